#!/usr/bin/env bash
# Set up what the system needs, then run it on this machine: virtual S7-1500, edge Node-RED,
# cloud Node-RED (and its twin endpoints, MQTT broker, OPC UA and Modbus servers). Ctrl-C stops all.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
exec node scripts/start-all.js "$@"
