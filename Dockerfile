# One image for every part of the bridge: the cloud Node-RED, the edge Node-RED and the virtual
# S7-1500. The role is chosen by the command and S7T_ROLE (see docker-compose.yml, docs/deploy.md).
#
#   docker build -t s7twin-bridge .
#   podman build --format docker -t s7twin-bridge .          (docker format keeps the HEALTHCHECK)
#
# Build arguments:
#   BASE             the Node 22 base image (default: the official node:22-bookworm-slim); any
#                    Debian-based image with node and npm in /usr/local works (scripts/containers.sh
#                    makes one from Debian packages and the npm registry, for machines without an
#                    image registry)
#   EXTRA_CA_CERTS   PEM text of extra CA certificates npm must trust during the build (a company
#                    proxy that intercepts TLS): --build-arg EXTRA_CA_CERTS="$(cat proxy-ca.pem)"
ARG BASE=node:22-bookworm-slim

FROM ${BASE} AS build
ARG EXTRA_CA_CERTS=""
# node-snap7 is a native addon: node-gyp needs a compiler, make and python, and the headers of the
# image's own Node (no header download: npm_config_nodedir points at /usr/local/include/node).
RUN apt-get update && apt-get install -y --no-install-recommends g++ make python3 \
    && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. The node package leaves Node-RED itself and the contrib nodes
# to the user's own Node-RED (they are devDependencies), but this image runs Node-RED, the Modbus
# contrib nodes of the flows, the virtual PLC (node-snap7) and scripts/gen-env.js (bcryptjs):
# those move to dependencies here, at the versions package-lock.json pins (npm ci installs exactly
# the lock; test/containers/compose-env.test.js checks the list), and the development tools stay out. Then
# what no running process reads (docs, sources of compiled files, source maps, TypeScript
# declarations, the native addon's build objects).
RUN node -e 'const fs = require("fs"); const p = JSON.parse(fs.readFileSync("package.json", "utf8")); \
      for (const n of ["node-red", "node-red-contrib-modbus", "node-snap7", "bcryptjs"]) { \
        if (!p.devDependencies[n]) throw new Error(n + " is not a devDependency"); \
        p.dependencies[n] = p.devDependencies[n]; delete p.devDependencies[n]; } \
      fs.writeFileSync("package.json", JSON.stringify(p, null, 2));' \
    && if [ -n "$EXTRA_CA_CERTS" ]; then printf '%s\n' "$EXTRA_CA_CERTS" > /tmp/extra-ca.pem; export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.pem; fi \
    && npm ci --omit=dev --no-audit --no-fund \
    && npm cache clean --force && rm -f /tmp/extra-ca.pem \
    && find node_modules -type f \( -name '*.md' -o -name '*.map' -o -name '*.d.ts' -o -name '*.ts' -o -name '*.tsbuildinfo' \) -delete \
    && rm -rf node_modules/node-snap7/build/Release/obj.target node_modules/node-snap7/build/Release/.deps

FROM ${BASE}
ENV NODE_ENV=production \
    S7T_HOST=0.0.0.0 \
    S7T_USER_DIR=/data \
    S7T_TIMER_DIR=/results
WORKDIR /app
# Not root: the processes run as nodered (uid 10001); its user data and the flow-timer CSVs are
# volumes it owns.
RUN useradd --create-home --uid 10001 nodered && mkdir -p /data /results && chown nodered:nodered /data /results
COPY --from=build /app/node_modules ./node_modules
COPY package.json settings.js ./
COPY nodes ./nodes
COPY subflows ./subflows
COPY flows ./flows
COPY plc ./plc
COPY twin ./twin
COPY scripts/healthcheck.js scripts/gen-env.js ./scripts/
USER nodered
VOLUME ["/data", "/results"]
EXPOSE 1880 1881 1883 9001 4841 5021
# GET /s7twin/health on Node-RED; a TCP connect to the S7 port on the virtual PLC (S7T_ROLE=plc).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "scripts/healthcheck.js"]
# Room for V8's old generation before its first full collection (system/nodered.js OLD_SPACE_MB:
# under load, full collections every few seconds made the bursts of slow probes; docs/bench.md).
CMD ["node", "--initial-old-space-size=512", "node_modules/node-red/red.js", "--settings", "settings.js"]
