#!/usr/bin/env bash
# Build Toxiproxy (server and CLI) from the Go module proxy into .tools/bin, once.
# The kernel of the build/CI machines has no netem, so the benchmark emulates WAN latency and
# jitter with Toxiproxy between twin and cloud and between cloud and edge.
# Idempotent: does nothing when the pinned version is already built. Prints the server path.
#   scripts/toxiproxy.sh            build if missing, print the path of toxiproxy-server
#   TOXIPROXY_VERSION=v2.x.y ...    build another version (pinned default is the tested one)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${TOXIPROXY_VERSION:-v2.5.0}"       # the version the benchmark was tested with
BIN="$ROOT/.tools/bin"
STAMP="$BIN/.toxiproxy-version"
SERVER="$BIN/toxiproxy-server"

if [ -x "$SERVER" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$VERSION" ]; then
  echo "$SERVER"
  exit 0
fi

GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then
  echo "toxiproxy.sh: no Go toolchain found (need go >= 1.22 on PATH or at /usr/local/go/bin/go)" >&2
  exit 2
fi

mkdir -p "$BIN"
echo "toxiproxy.sh: building Toxiproxy $VERSION with $("$GO" version | cut -d' ' -f3) (about 10-30 s)" >&2
# go install names the binaries after their package folders: server, cli.
GOBIN="$BIN" GOFLAGS="${GOFLAGS:--buildvcs=false}" "$GO" install "github.com/Shopify/toxiproxy/v2/cmd/server@$VERSION" >&2
GOBIN="$BIN" GOFLAGS="${GOFLAGS:--buildvcs=false}" "$GO" install "github.com/Shopify/toxiproxy/v2/cmd/cli@$VERSION" >&2
mv -f "$BIN/server" "$SERVER"
mv -f "$BIN/cli" "$BIN/toxiproxy-cli"
echo "$VERSION" > "$STAMP"
echo "$SERVER"
