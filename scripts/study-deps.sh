#!/usr/bin/env bash
# What the protocol study (node bench/study.js, test/bench/study/companions.test.js) needs beside
# Node: Debian's packages where they are missing (through scripts/system-deps.sh: installed when
# this machine allows it, root and apt-get; otherwise it says what is missing and stops), the
# Cyclone DDS companion's venv from PyPI, and the Fast DDS companion built with g++ against
# Debian's headers.
#   stress-ng                         every core busy (the CPU load)
#   tcpdump tshark                    the capture and its reading (bytes on the wire)
#   iperf3 iproute2                   the bulk transfer and the shaping of the network load (tc)
#   util-linux                        unshare: each measurement in a network namespace of its own
#   python3-rospy python3-rosmaster python3-std-msgs   ROS 1 (rospy, the master, std_msgs/String)
#   python3-venv                      the venv of the Cyclone DDS companion (PyPI cyclonedds)
#   libfastrtps-dev libfastcdr-dev g++   the Fast DDS companion (eProsima Fast DDS 2.9)
#   bash scripts/study-deps.sh        everything above; prints nothing when all is there
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Installed (or reported missing) the one way every Debian package of the project is; nothing is
# printed when they are all there.
bash "$ROOT/scripts/system-deps.sh" stress-ng tcpdump tshark iperf3 iproute2 util-linux \
  python3-rospy python3-rosmaster python3-std-msgs python3-venv libfastrtps-dev libfastcdr-dev g++

# The Cyclone DDS companion's Python packages (bench/study/requirements.txt) in a venv of Debian's
# python3, remade when the requirements change.
VENV="$ROOT/.tools/study-venv"
REQ="$ROOT/bench/study/requirements.txt"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/requirements.txt"; then
  echo "study-deps: making $VENV from PyPI" >&2
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ" >&2
  cp "$REQ" "$VENV/requirements.txt"
fi

# The Fast DDS companion, rebuilt when its source differs from the one it was built from (kept
# beside it: a checkout of another branch's source may be older than the binary, not newer).
SRC="$ROOT/bench/study/companions/fastdds.cpp"
BIN="$ROOT/.tools/bin/study-fastdds"
if [ ! -x "$BIN" ] || ! cmp -s "$SRC" "$BIN.cpp"; then
  echo "study-deps: building $BIN" >&2
  mkdir -p "$(dirname "$BIN")"
  g++ -O2 -std=c++17 -o "$BIN.tmp" "$SRC" -lfastrtps -lfastcdr -lpthread
  mv "$BIN.tmp" "$BIN"
  cp "$SRC" "$BIN.cpp"
fi
