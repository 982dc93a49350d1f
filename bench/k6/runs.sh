#!/usr/bin/env bash
# A series of k6 runs kept in a folder (bench/results/<date>-k6/): N runs of bench/k6/ws-probes.js
# at 1,000 VUs against one target, each run's text summary (<name>.txt, with the load average
# before it) and its JSON summary (<name>.json, --summary-export). The target must already run:
#   echo:   node bench/k6/echo-server.js --port 28990
#   system: node scripts/start-all.js          (npm start: virtual PLC, cloud and edge, every path)
#
#   bash bench/k6/runs.sh DIR echo|system default|off N [FIRST]
#
# K6_CLUSTERS=1: also each run's windows of slow probes (<name>.clusters.txt, bench/k6/clusters.js,
# from k6's per-sample output, which is not kept).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1"
HERE="$(cd "$1" && pwd)"
shift
K6="${K6:-$ROOT/.tools/bin/k6}"
target="$1" gc="$2" n="$3" first="${4:-1}"
case "$target" in
  echo) url=ws://127.0.0.1:28990/s7twin/twin ;;
  system) url=ws://127.0.0.1:1880/s7twin/twin ;;
  *) echo "target: echo or system" >&2; exit 2 ;;
esac
case "$gc" in
  default) gcenv=() ;;
  off) gcenv=(GOGC=off) ;;
  *) echo "gc: default or off" >&2; exit 2 ;;
esac
for i in $(seq "$first" $((first + n - 1))); do
  name="$target-gc-$gc-$i"
  { date -u +%FT%TZ; uptime; } > "$HERE/$name.txt"
  points=()
  [ "${K6_CLUSTERS:-}" = 1 ] && points=(--out "json=$HERE/$name.points.json")
  env "${gcenv[@]}" "$K6" run -q -e URL="$url" -e TWINS="${TWINS:-1000}" -e SECONDS="${SECONDS_MEASURED:-20}" "${points[@]}" \
    --summary-export "$HERE/$name.json" "$ROOT/bench/k6/ws-probes.js" >> "$HERE/$name.txt" 2>&1 || echo "k6 exit $?" >> "$HERE/$name.txt"
  if [ "${K6_CLUSTERS:-}" = 1 ]; then
    node "$ROOT/bench/k6/clusters.js" "$HERE/$name.points.json" > "$HERE/$name.clusters.txt"
    rm -f "$HERE/$name.points.json"
  fi
  node "$ROOT/bench/k6/table.js" "$HERE/$name.json" | tail -n 1
done
