#!/usr/bin/env bash
# Build k6 (Grafana's load generator, Go) from the Go module proxy into .tools/bin, once: the
# benchmark's independent load generator (bench/k6/, docs/bench.md "An independent load generator").
# Idempotent: does nothing when the pinned version is already built. Prints the binary's path.
#   scripts/k6.sh                 build if missing, print the path of k6
#   K6_VERSION=v1.x.y ...         build another version (pinned default is the tested one)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${K6_VERSION:-v1.8.1}"               # the version the comparison was made with
BIN="$ROOT/.tools/bin"
STAMP="$BIN/.k6-version"
K6="$BIN/k6"

if [ -x "$K6" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$VERSION" ]; then
  echo "$K6"
  exit 0
fi

GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then
  echo "k6.sh: no Go toolchain found (need go >= 1.23 on PATH or at /usr/local/go/bin/go)" >&2
  exit 2
fi

mkdir -p "$BIN"
echo "k6.sh: building k6 $VERSION with $("$GO" version | cut -d' ' -f3) (a few minutes on 2 cores)" >&2
GOBIN="$BIN" GOFLAGS="${GOFLAGS:--buildvcs=false}" "$GO" install "go.k6.io/k6@$VERSION" >&2
echo "$VERSION" > "$STAMP"
echo "$K6"
