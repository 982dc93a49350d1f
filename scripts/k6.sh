#!/usr/bin/env bash
# Build k6 (Grafana's load generator, Go) from the Go module proxy into .tools/bin, once: the
# benchmark's independent load generator (bench/k6/, docs/bench.md "An independent load generator").
# Idempotent: does nothing when the pinned version is already built. Prints the binary's path.
#   scripts/k6.sh                 build if missing, print the path of k6
#   K6_VERSION=v1.x.y ...         build another version (pinned default is the tested one)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/go-tool.sh"
VERSION="${K6_VERSION:-v1.8.1}"               # the version the comparison was made with
K6="$GO_TOOL_BIN/k6"

if ! go_tool_built k6 "$VERSION" "$K6"; then
  go_tool_install k6 "$VERSION" "k6 $VERSION (a few minutes on 2 cores)" "go.k6.io/k6@$VERSION"
fi
echo "$K6"
