#!/usr/bin/env bash
# Set up what the system needs, then run it on this machine: virtual S7-1500, edge Node-RED,
# cloud Node-RED (and its twin endpoints, MQTT broker, OPC UA and Modbus servers). Ctrl-C stops all.
#   bash scripts/start.sh --fleet --instances 2 --plants 2    a fleet on Redis (docs/fleet.md)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
# A fleet (--fleet) runs Debian's redis-server: installed where missing and the machine allows it
# (root and apt-get), unless S7T_REDIS_URL names a Redis of your own.
for a in "$@"; do
  if [ "$a" = "--fleet" ] && [ -z "${S7T_REDIS_URL:-}" ]; then bash "$ROOT/scripts/system-deps.sh" redis-server; fi
done
exec node scripts/start-all.js "$@"
