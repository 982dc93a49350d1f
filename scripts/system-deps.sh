#!/usr/bin/env bash
# Sourced by scripts/test.sh (and by scripts that need the same): installs the Debian packages the
# tests drive for real, where they are missing, when this machine allows it (root and apt-get):
#   chromium      the browser the page tests and the editor tests drive (playwright-core)
#   redis-server  the fleet's backplane
#   podman runc netavark aardvark-dns iptables   the container tests (rootful Podman; netavark and
#                 aardvark-dns give compose networks their service names; listed because
#                 --no-install-recommends would otherwise pick the CNI stack without DNS)
#   debootstrap   the container tests' base image, made without an image registry (scripts/containers.sh)
#   docker-compose  the compose tool the container test drives against `podman system service`
#   openssl       the TLS tests' throwaway CA and certificates
# Nothing is installed when every package is already there. Where the machine does not allow an
# install, it says what is missing and stops: a test that needs one of them cannot pass without it.
#   bash scripts/system-deps.sh                 every package above
#   bash scripts/system-deps.sh redis-server    only those named (`bash scripts/start.sh --fleet`,
#                                               scripts/broker-deps.sh)
set -euo pipefail

if [ $# -gt 0 ]; then S7T_DEB_PACKAGES=("$@"); else S7T_DEB_PACKAGES=(chromium redis-server podman runc netavark aardvark-dns iptables debootstrap docker-compose openssl); fi
# command each package provides, to see whether it is there
declare -A S7T_DEB_PROVIDES=([chromium]=chromium [redis-server]=redis-server
  [podman]=podman [runc]=runc [netavark]=/usr/lib/podman/netavark [aardvark-dns]=/usr/lib/podman/aardvark-dns
  [iptables]=iptables [debootstrap]=debootstrap [docker-compose]=docker-compose [openssl]=openssl
  # asked for by name only, by scripts/broker-deps.sh (the real brokers)
  [rabbitmq-server]=/usr/lib/rabbitmq/bin/rabbitmq-server [mosquitto]=mosquitto_passwd
  [default-jre-headless]=java [maven]=mvn
  # asked for by name only, by scripts/study-deps.sh (the protocol study); a package without a
  # command is seen by a file it installs
  [stress-ng]=stress-ng [tcpdump]=tcpdump [tshark]=tshark [iperf3]=iperf3 [iproute2]=tc [util-linux]=unshare [g++]=g++
  [python3-rospy]=/usr/lib/python3/dist-packages/rospy/__init__.py [python3-rosmaster]=rosmaster
  [python3-std-msgs]=/usr/lib/python3/dist-packages/std_msgs/__init__.py [python3-venv]=/usr/lib/python3.11/ensurepip/__init__.py
  [libfastrtps-dev]=/usr/include/fastdds/dds/domain/DomainParticipantFactory.hpp [libfastcdr-dev]=/usr/include/fastcdr/Cdr.h)

missing=()
for p in "${S7T_DEB_PACKAGES[@]}"; do
  if [ -z "${S7T_DEB_PROVIDES[$p]+x}" ]; then echo "system-deps: unknown package $p (${!S7T_DEB_PROVIDES[*]})" >&2; exit 2; fi
  provided="${S7T_DEB_PROVIDES[$p]}"
  if [[ "$provided" == /* ]]; then [ -e "$provided" ] || missing+=("$p")
  else command -v "$provided" >/dev/null 2>&1 || missing+=("$p"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: installing ${missing[*]} from Debian's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "system-deps: missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root" >&2
    exit 2
  fi
fi
