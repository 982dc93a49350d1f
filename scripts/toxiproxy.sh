#!/usr/bin/env bash
# Build Toxiproxy (server and CLI) from the Go module proxy into .tools/bin, once.
# The kernel of the build/CI machines has no netem, so the benchmark emulates WAN latency and
# jitter with Toxiproxy between twin and cloud and between cloud and edge.
# Idempotent: does nothing when the pinned version is already built. Prints the server path.
#   scripts/toxiproxy.sh            build if missing, print the path of toxiproxy-server
#   TOXIPROXY_VERSION=v2.x.y ...    build another version (pinned default is the tested one)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/go-tool.sh"
VERSION="${TOXIPROXY_VERSION:-v2.5.0}"       # the version the benchmark was tested with
SERVER="$GO_TOOL_BIN/toxiproxy-server"

if ! go_tool_built toxiproxy "$VERSION" "$SERVER"; then
  go_tool_install toxiproxy "$VERSION" "Toxiproxy $VERSION (about 10-30 s)" \
    "github.com/Shopify/toxiproxy/v2/cmd/server@$VERSION" "github.com/Shopify/toxiproxy/v2/cmd/cli@$VERSION"
  # go install names the binaries after their package folders: server, cli.
  mv -f "$GO_TOOL_BIN/server" "$SERVER"
  mv -f "$GO_TOOL_BIN/cli" "$GO_TOOL_BIN/toxiproxy-cli"
fi
echo "$SERVER"
