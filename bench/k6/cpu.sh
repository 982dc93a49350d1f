#!/usr/bin/env bash
# The CPU the virtual PLC, the cloud and the edge spend during each of N k6 runs against
# `npm start` (bench/k6/runs.sh, GOGC=off), beside each run's p99 and each process's memory
# (resident after the run, and its peak so far): starts the system itself, runs k6 N times into
# DIR, stops the system. For comparing a change's cost at 1,000 twins (the run-
# to-run spread of p99 is wide on a 2-core machine; CPU seconds per run are steadier), and how the
# cloud's and the edge's event loops fared in each (bench/k6/loops.js: delay, garbage collections).
#
#   bash bench/k6/cpu.sh DIR [N]        (NODE_OPTIONS etc. pass through to every process)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$1" n="${2:-3}"
mkdir -p "$dir"
log="$dir/system.log"
cd "$ROOT"
node scripts/start-all.js > "$log" 2>&1 &
sys=$!
trap 'kill -INT "$sys" 2>/dev/null; wait "$sys" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q "Everything is up" "$log" && break; sleep 1; done
grep -q "Everything is up" "$log" || { echo "the system did not come up: $log" >&2; exit 1; }
read -r plc cloud edge < <(sed -nE 's/.*plc pid ([0-9]+), cloud pid ([0-9]+), edge pid ([0-9]+).*/\1 \2 \3/p' "$log")
tck=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk '/^VmRSS/ {r = $2} /^VmHWM/ {h = $2} END {printf "%d (%d)", r / 1024, h / 1024}' "/proc/$1/status"; }
for i in $(seq 1 "$n"); do
  node bench/k6/loops.js mark "$dir/loops.mark"
  c0=$(cpu "$cloud") e0=$(cpu "$edge") p0=$(cpu "$plc")
  row=$(bash bench/k6/runs.sh "$dir" system off 1 "$i" | tail -n 1)
  c1=$(cpu "$cloud") e1=$(cpu "$edge") p1=$(cpu "$plc")
  echo "run $i: CPU ms cloud $(( (c1 - c0) * 1000 / tck )), edge $(( (e1 - e0) * 1000 / tck )), plc $(( (p1 - p0) * 1000 / tck )) | $row"
  echo "  memory MiB now (peak): cloud $(rss "$cloud"), edge $(rss "$edge"), plc $(rss "$plc")"
  echo "  $(node bench/k6/loops.js since "$dir/loops.mark")"
done
