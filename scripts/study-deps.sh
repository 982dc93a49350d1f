#!/usr/bin/env bash
# What the protocol study (node bench/study.js, test/bench/study/companions.test.js) needs beside
# Node: Debian's packages where they are missing (installed when this machine allows it: root and
# apt-get; otherwise it says what is missing and stops), the Cyclone DDS companion's venv from PyPI,
# and the Fast DDS companion built with g++ against Debian's headers.
#   stress-ng                         every core busy (the CPU load)
#   tcpdump tshark                    the capture and its reading (bytes on the wire)
#   iperf3 iproute2                   the bulk transfer and the shaping of the network load (tc)
#   util-linux                        unshare: each measurement in a network namespace of its own
#   python3-rospy python3-rosmaster python3-std-msgs   ROS 1 (rospy, the master, std_msgs/String)
#   python3-venv                      the venv of the Cyclone DDS companion (PyPI cyclonedds)
#   libfastrtps-dev libfastcdr-dev g++   the Fast DDS companion (eProsima Fast DDS 2.9)
#   bash scripts/study-deps.sh        everything above; prints nothing else when all is there
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PKGS=(stress-ng tcpdump tshark iperf3 iproute2 util-linux python3-rospy python3-rosmaster python3-std-msgs python3-venv libfastrtps-dev libfastcdr-dev g++)
# a file each package provides, to see whether it is there
declare -A PROVIDES=([stress-ng]=/usr/bin/stress-ng [tcpdump]=/usr/bin/tcpdump [tshark]=/usr/bin/tshark
  [iperf3]=/usr/bin/iperf3 [iproute2]=/usr/sbin/tc [util-linux]=/usr/bin/unshare
  [python3-rospy]=/usr/lib/python3/dist-packages/rospy [python3-rosmaster]=/usr/bin/rosmaster
  [python3-std-msgs]=/usr/lib/python3/dist-packages/std_msgs [python3-venv]=/usr/lib/python3.11/ensurepip
  [libfastrtps-dev]=/usr/include/fastdds/dds/domain/DomainParticipantFactory.hpp
  [libfastcdr-dev]=/usr/include/fastcdr/Cdr.h [g++]=/usr/bin/g++)

missing=()
for p in "${PKGS[@]}"; do [ -e "${PROVIDES[$p]}" ] || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "study-deps: installing ${missing[*]} from Debian's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "study-deps: missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root" >&2
    exit 2
  fi
fi

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

# The Fast DDS companion, rebuilt when its source is newer than the binary.
SRC="$ROOT/bench/study/companions/fastdds.cpp"
BIN="$ROOT/.tools/bin/study-fastdds"
if [ ! -x "$BIN" ] || [ "$SRC" -nt "$BIN" ]; then
  echo "study-deps: building $BIN" >&2
  mkdir -p "$(dirname "$BIN")"
  g++ -O2 -std=c++17 -o "$BIN.tmp" "$SRC" -lfastrtps -lfastcdr -lpthread
  mv "$BIN.tmp" "$BIN"
fi
