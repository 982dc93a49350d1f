# One image for every part of the bridge: the cloud Node-RED, the edge Node-RED and the virtual
# S7-1500. The role is chosen by the command and S7T_ROLE (see docker-compose.yml).
FROM node:22-bookworm-slim AS build
# node-snap7 is a native addon: it needs a compiler and python for node-gyp.
RUN apt-get update && apt-get install -y --no-install-recommends build-essential python3 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# devDependencies too: the image runs Node-RED itself, the Modbus contrib nodes and the virtual
# PLC (node-snap7), which the published node package leaves to the user's own Node-RED.
RUN npm ci --no-audit --no-fund

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production S7T_HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY package.json settings.js ./
COPY nodes ./nodes
COPY subflows ./subflows
COPY flows ./flows
COPY plc ./plc
COPY twin ./twin
RUN useradd --create-home --uid 10001 nodered && mkdir -p /data && chown nodered /data
USER nodered
# Node-RED's user directory (credentials, context) and the flow-timer CSVs live on a volume.
ENV S7T_USER_DIR=/data S7T_TIMER_DIR=/data/results
VOLUME /data
EXPOSE 1880
CMD ["node", "node_modules/node-red/red.js", "--settings", "settings.js"]
