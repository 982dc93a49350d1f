#!/usr/bin/env node
'use strict';
/**
 * The container's health check (Dockerfile HEALTHCHECK), exit 0 when healthy, 1 when not:
 * - Node-RED (cloud or edge): GET /s7twin/health on its own port answers 200 (the runtime is up and
 *   its flows are started);
 * - the virtual PLC (S7T_ROLE=plc): its S7 port accepts a TCP connection.
 * It asks the instance over loopback unless the instance binds one address only, and over https
 * when the instance serves TLS; the certificate is not checked there (it names the public host
 * name, not the loopback address this asks; this is a liveness probe of the process next to it).
 */
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');

const TIMEOUT_MS = 4000;
const env = process.env;
const wildcard = (h) => !h || h === '0.0.0.0' || h === '::';

function fail(why) {
  process.stderr.write(`unhealthy: ${why}\n`);
  process.exit(1);
}

function checkPlc() {
  const host = wildcard(env.S7T_PLC_HOST) ? '127.0.0.1' : env.S7T_PLC_HOST;
  const port = Number(env.S7T_PLC_S7_PORT || 10102);
  const sock = net.connect({ host, port, timeout: TIMEOUT_MS });
  sock.once('connect', () => { sock.destroy(); process.exit(0); });
  sock.once('timeout', () => fail(`S7 port ${host}:${port} did not answer`));
  sock.once('error', (err) => fail(`S7 port ${host}:${port}: ${err.message}`));
}

function checkNodeRed() {
  const host = wildcard(env.S7T_HOST) ? '127.0.0.1' : env.S7T_HOST;
  const port = Number(env.PORT || (env.S7T_ROLE === 'edge' ? 1881 : 1880));
  const tls = Boolean(env.S7T_TLS_KEY && env.S7T_TLS_CERT);
  const req = (tls ? https : http).get({ host, port, path: '/s7twin/health', timeout: TIMEOUT_MS, rejectUnauthorized: false }, (res) => {
    res.resume();
    if (res.statusCode === 200) process.exit(0);
    fail(`GET /s7twin/health answered ${res.statusCode}`);
  });
  req.once('timeout', () => { req.destroy(); fail('GET /s7twin/health timed out'); });
  req.once('error', (err) => fail(`GET /s7twin/health: ${err.message}`));
}

if (env.S7T_ROLE === 'plc') checkPlc(); else checkNodeRed();
