'use strict';
/**
 * The catalogue of every stable error code (`E_*`) the project raises: what it means, in one
 * sentence a user can act on; which part raises it; and whether a twin resyncs after it (the
 * answers after which the PLC may not hold what the twin sent). docs/errors.md is generated from
 * this list (`node scripts/errors-md.js`), and a test scans nodes/, plc/, twin/, bench/, scripts/, system/
 * and the flows for codes used but not listed here, or listed but never used, so the list and the
 * code cannot drift apart.
 *
 * A key that ends in `_` is a family whose last part is filled in when it is raised (its `family`
 * names that part): `E_HTTP_` stands for E_HTTP_404, E_HTTP_503, …
 *
 * Plain data and no `require`, so any part (the browser twin's page included) may load it.
 */

/** The parts that raise codes, as docs/errors.md names them. */
const PARTS = {
  cloud: 'cloud',
  edge: 'edge',
  plc: 'virtual PLC',
  twin: 'twin',
  bench: 'benchmark',
  scripts: 'scripts',
};

/**
 * Sections of docs/errors.md, in their order: a title, and where codes of that section show up.
 * The anchors docs link to are GitHub's slugs of these titles.
 */
const AREAS = {
  answer: {
    title: 'Answers to commands and probes',
    where: 'In the `e.code` of an `err` envelope (WebSocket–S7 path, the REST endpoint\'s answer body) and in the node\'s counters. ' +
      'Every command and probe gets exactly one answer: `ack` (`probe-res`) or one of these.',
  },
  access: {
    title: 'Connections, tokens and per-peer limits',
    where: 'In the twin\'s or the edge\'s log and `stats().errorCodes`, the node\'s status and log, and the endpoint\'s counters.',
  },
  config: {
    title: 'Settings refused at start',
    where: 'In the node\'s red status and the Node-RED log, or on the command line: the part does not start until the setting is fixed.',
  },
  table: {
    title: 'I/O tables refused',
    where: 'In the findings of `validateTable` (the I/O table node\'s editor shows them as you type), and in the error of a refused ' +
      'table: the node\'s red status, `npm run plc`, the instances at start. Each finding names the tag and its field.',
  },
  fleet: {
    title: 'Fleet (Redis backplane)',
    where: 'In the cloud instance\'s log; a twin sees the answer named in the sentence.',
  },
  mqtt: {
    title: 'MQTT path',
    where: 'On the broker node\'s output and log (refusals, at most 20 a second), its counters, and the twin transport\'s `stats().errorCodes`.',
  },
  opcua: {
    title: 'OPC UA path',
    where: 'In the OPC UA nodes\' status and log, the bridge\'s counters, and the twin transport\'s `stats().errorCodes`.',
  },
  modbus: {
    title: 'Modbus path',
    where: 'At a Catch node (codec and server nodes), in the server node\'s warnings, and the twin transport\'s `stats().errorCodes`; ' +
      'Modbus clients get the Modbus exception named in the sentence.',
  },
  web: {
    title: 'Browser twin page',
    where: 'In the page\'s log and the browser\'s console, or as the HTTP answer of the page\'s API.',
  },
  history: {
    title: 'Plant history and command log',
    where: 'As the HTTP answer of `GET /s7twin/audit` and `GET /s7twin/history`, in the cloud\'s log and `/s7twin/health`, or printed by ' +
      '`node scripts/audit-verify.js` (exit code 1 for a broken chain, 2 for a file it cannot read).',
  },
  timer: {
    title: 'Flow-timer',
    where: 'At a Catch node (`done(err)`): the flow-timer keeps running.',
  },
  plc: {
    title: 'Virtual PLC',
    where: 'Thrown by `createPlc` and its methods, or printed as `error <CODE>: <message>` by `npm run plc` (exit code 1; bad flags 2).',
  },
  twin: {
    title: 'Headless twin and twin transports',
    where: 'Printed as `twin: <CODE>: <message>` (exit code 2), thrown by `runTwin`, or counted in a transport\'s `stats().errorCodes`.',
  },
  bench: {
    title: 'Benchmark and scripts',
    where: 'Thrown by the benchmark (`npm run bench`) or `bash scripts/start.sh`; the report names a path that could not be measured and why.',
  },
};

/**
 * code → { area, by: part keys, means: one sentence (what happened, what to do), resync: whether
 * a twin resyncs from the next state after this answer, family: for a key ending in `_`, what
 * its last part stands for }.
 */
const CODES = {
  // Answers to commands and probes.
  E_JSON: { area: 'answer', by: ['cloud', 'edge'], resync: false,
    means: 'The frame or request body is not valid JSON: send a JSON envelope (HTTP 400 on the REST endpoint and the page\'s API).' },
  E_VERSION: { area: 'answer', by: ['cloud', 'edge'], resync: false,
    means: 'The envelope\'s `v` is not the version this bridge speaks (1): update the sender.' },
  E_SCHEMA: { area: 'answer', by: ['cloud', 'edge'], resync: false,
    means: 'The frame is not a valid envelope (a binary frame, or a bad `k`, `src`, `seq`, `ts`, `d`, `ref`, `ttl` or `dl`): ' +
      'the message names the field to fix.' },
  E_DECODE: { area: 'answer', by: ['cloud', 'edge', 'twin'], resync: false,
    means: 'A binary frame on a connection that agreed on the compact encoding (`s7twin.v1+msgpack`) is not a compact envelope: ' +
      'the message says what is wrong; nothing is written, the frame is counted (`errors`).' },
  E_TOO_LARGE: { area: 'answer', by: ['cloud', 'edge', 'plc'], resync: false,
    means: 'The frame, request body or MQTT payload is larger than the receiver allows (64 KiB on the endpoints, HTTP 413 over REST); ' +
      'a WebSocket is then closed with 1009: send smaller frames.' },
  E_KIND: { area: 'answer', by: ['cloud', 'edge'], resync: false,
    means: 'The peer sent a kind of frame its role may not send (twins send `cmd` and `probe`; the edge `state`, `snap`, `ack`, `err`, ' +
      '`probe-res`, `sync`, `table`, `samples` and `backfill`; the REST endpoint takes `cmd`): fix the sender.' },
  E_READ_ONLY: { area: 'answer', by: ['cloud'], resync: false,
    means: 'A viewer token may watch but not command (HTTP 403 over REST and for the page\'s driver lease): use a twin token to drive.' },
  E_UNKNOWN_TAG: { area: 'answer', by: ['cloud', 'edge', 'plc', 'twin'], resync: false,
    means: 'A command or state names a tag that is not in the plant\'s I/O table, or not one this path carries: ' +
      'use the tags\' short names; nothing was written.' },
  E_NOT_WRITABLE: { area: 'answer', by: ['cloud', 'edge', 'plc'], resync: false,
    means: 'The command writes a tag the cloud may not write (a PLC output): only inputs marked cloud-writable in the I/O table may be ' +
      'commanded; nothing was written.' },
  E_TYPE: { area: 'answer', by: ['cloud', 'edge', 'plc', 'twin'], resync: false,
    means: 'A value has the wrong type for its tag (a BOOL takes 0/1 or true/false, integer types whole numbers, REAL and LREAL ' +
      'finite numbers, a STRING text of one byte per character, a probe value a whole number): the whole command was refused, nothing written.' },
  E_RANGE: { area: 'answer', by: ['cloud', 'edge', 'plc'], resync: false,
    means: 'A value is outside its tag\'s range (a probe value outside 0..4294967295), or a `ttl` asks for longer than the endpoint ' +
      'allows (10 s by default): nothing was written; send a value in range.' },
  E_EMPTY: { area: 'answer', by: ['edge'], resync: false,
    means: 'The command or probe carries no values: send at least one.' },
  E_SLOT: { area: 'answer', by: ['edge'], resync: false,
    means: 'The probe names a slot outside the PLC\'s probe slots (0..1023): use a slot in range.' },
  E_EDGE_DOWN: { area: 'answer', by: ['cloud'], resync: true,
    means: 'No edge of the plant is connected to the cloud (or to any instance of the fleet), its link has not finished its first ' +
      'clock exchange, or (a fleet with Redis unreachable) the plant\'s lease could not be renewed: the request was not delivered; ' +
      'check the edge, which redials by itself (or Redis).' },
  E_PLC_DOWN: { area: 'answer', by: ['edge'], resync: true,
    means: 'The edge has no connection to the PLC: nothing was written; check the PLC\'s address and network (the edge reconnects by ' +
      'itself and sends a snapshot when it is back).' },
  E_BUSY: { area: 'answer', by: ['cloud', 'edge'], resync: true,
    means: 'Too many requests already wait (100,000 for their answers at the twin endpoint, for the edge\'s answers at the cloud or ' +
      'between fleet instances, 4,096 writes for the PLC at the edge), or the edge holds as many idempotency keys as it keeps ' +
      '(100,000 of the last 10 min): the request was not relayed or written; slow the senders down.' },
  E_EXPIRED: { area: 'answer', by: ['edge'], resync: true,
    means: 'The request\'s deadline (its `ttl`, 1 s by default) passed, or was nearer than the request\'s way to the PLC, before it ' +
      'could be written (on arrival at the edge, in the PLC\'s write queue, or right before its bytes went out); or an `ask` named a ' +
      'key the edge never saw, which is now closed: nothing was written.' },
  E_OUTCOME_UNKNOWN: { area: 'answer', by: ['cloud', 'edge', 'twin'], resync: true,
    means: 'The answer cannot come (the link or the S7 connection dropped or was closed with the request sent, the PLC did not answer ' +
      'the write request in time, or no answer came by its deadline): it may or may not have been written. A command with a key: ' +
      'send it again with the same key (within its deadline, else as an `ask`) and the edge says what happened; else read the next state.' },
  E_WRITE: { area: 'answer', by: ['edge', 'twin'], resync: false,
    means: 'The PLC refused the write (over S7: check the CPU\'s protection level and PUT/GET access, docs/deploy.md), or an OPC UA ' +
      'Write request failed: nothing was written.' },
  E_PROBE_TIMEOUT: { area: 'answer', by: ['edge'], resync: false,
    means: 'The probe\'s response slot did not show its value within 5 s: check that the PLC program copies probe requests to ' +
      'responses (`S7TwinProbeEcho` on a real CPU).' },
  E_PROBE_SUPERSEDED: { area: 'answer', by: ['edge'], resync: false,
    means: 'The slot was probed again before the earlier probe was answered: keep one probe in flight per slot.' },
  E_INTERNAL: { area: 'answer', by: ['edge', 'plc'], resync: false,
    means: 'An error without a code of its own reached an answer (the edge\'s `err`, or a refused MQTT message at the PLC): ' +
      'a bug; report it with its message.' },
  E_DUPLICATE: { area: 'answer', by: ['cloud'], resync: false,
    means: 'A request with this `src` and `seq` is still waiting for its answer (two twins with one id, or a twin restarted with a ' +
      'fixed id before its old request was answered), or the REST endpoint already received it (HTTP 409): it was not relayed; ' +
      'give every twin its own id and every request a fresh `seq`.' },
  E_KEY_REUSED: { area: 'answer', by: ['edge'], resync: false,
    means: 'The command\'s idempotency key was used before for a command with other values: nothing was written; give every command ' +
      'its own key (a key is remembered for 10 minutes).' },
  E_KEY_STORE: { area: 'answer', by: ['edge'], resync: true,
    means: 'The edge could not record the command\'s idempotency key in its key file (disk full, no permission; the node logs which ' +
      'file): nothing was written; fix the edge\'s disk or S7T_KEY_DIR.' },
  E_TIMEOUT: { area: 'answer', by: ['cloud', 'edge', 'twin'], resync: false,
    means: 'No answer in time: an S7 read or write of the edge timed out (the connection is rebuilt; a write sent before it is ' +
      'answered E_OUTCOME_UNKNOWN), or a Modbus twin\'s request timed out.' },
  E_NO_STATE: { area: 'answer', by: ['cloud'], resync: false,
    means: 'The REST endpoint has no plant state yet, since no edge has reported since it started (HTTP 503): wait for the edge.' },
  E_CLOSED: { area: 'answer', by: ['cloud', 'edge', 'twin'], resync: false,
    means: 'The endpoint, session or transport was closing or closed (a redeploy; HTTP 503 over REST): retry on the new one.' },
  E_METHOD: { area: 'answer', by: ['cloud'], resync: false,
    means: 'The HTTP method is not served on that path (HTTP 405): the REST endpoint takes `GET state` and `POST cmd`, the browser ' +
      'twin\'s files `GET`.' },
  E_NOT_FOUND: { area: 'answer', by: ['cloud'], resync: false,
    means: 'No such path on the REST endpoint or the browser twin\'s page (HTTP 404): check the URL.' },

  // Connections, tokens and per-peer limits.
  E_UNAUTHORIZED: { area: 'access', by: ['cloud', 'twin'], resync: false,
    means: 'The token or login was refused (HTTP 401 on the twin endpoint, the REST endpoint, the page\'s API and the command log; a ' +
      'refused MQTT or OPC UA login at a twin): check the token (`S7T_TWIN_TOKEN`, `S7T_VIEWER_TOKEN`, `S7T_AUDITOR_TOKEN`, ' +
      '`S7T_TOKENS`) or account; twins do not retry.' },
  E_FORBIDDEN: { area: 'access', by: ['cloud', 'twin'], resync: false,
    means: 'HTTP 403: the token is valid, but not for this: the twin endpoint\'s plant (use a token scoped to it, `S7T_TOKENS`, or ask ' +
      'for the right `plant`), or the command log (`GET /s7twin/audit` takes an auditor token or the editor login, never a twin, ' +
      'viewer or edge token).' },
  E_AUTH: { area: 'access', by: ['edge'], resync: false,
    means: 'The cloud refused the edge\'s token (HTTP 401): give the edge and the cloud the same `S7T_EDGE_TOKEN`.' },
  E_EDGE_TAKEN: { area: 'access', by: ['edge'], resync: false,
    means: 'Another edge of this plant is connected (HTTP 409); this edge tries again every 0.5 s and is taken once the other is gone ' +
      'or silent for 3 s: run one edge per plant.' },
  E_HTTP: { area: 'access', by: ['edge', 'twin'], resync: false,
    means: 'The endpoint answered the WebSocket upgrade with another HTTP status (503: the endpoint is full); the status is in the ' +
      'message, and the link retries with back-off.' },
  E_LINK_HANDSHAKE: { area: 'access', by: ['edge'], resync: false,
    means: 'A link session over a message bus had no answer to its hello within the handshake time (3 s): no cloud takes sessions on ' +
      'that broker (its link server is not running, or listens on another broker or transport), or the link is cut; the edge retries with back-off.' },
  E_LINK_NO_CLOUD: { area: 'access', by: ['edge'], resync: false,
    means: 'RabbitMQ returned the link\'s message: no cloud consumes the queue it went to (the cloud instance of the session is gone); ' +
      'the edge dials a new session at once.' },
  E_LINK_MESSAGE: { area: 'access', by: ['cloud', 'edge'], resync: false,
    means: 'A message on the link\'s broker topic or queue is not a link message (counted as `malformed` and dropped): something ' +
      'else publishes there; give the link its own topics or queues and broker users.' },
  E_LINK_KAFKA_TOPIC: { area: 'access', by: ['cloud', 'edge'], resync: false,
    means: 'A link topic on Kafka had no leader within the connect time (the broker is still starting, or does not create topics ' +
      'itself): create the `s7twin.link.*` topics, one partition each; the link retries.' },
  E_LINK_KAFKA_FETCH: { area: 'access', by: ['cloud', 'edge'], resync: false,
    means: 'Kafka refused a fetch of a link topic (its error code is in the message): the end that asked reconnects with back-off; ' +
      'check the topic and the user\'s rights to read it.' },
  E_RATE_LIMIT: { area: 'access', by: ['cloud'], resync: false,
    means: 'A peer sent more than its rate (200 frames or requests a second, bursts of 400) and was disconnected (WebSocket close 1008, ' +
      'Modbus exception 06, OPC UA BadTcpServerTooBusy; logged for MQTT): slow the client down, or raise the node\'s limit.' },
  E_ERROR_BUDGET: { area: 'access', by: ['cloud'], resync: false,
    means: 'A peer had more than 50 frames or requests refused within 10 s and was disconnected: fix what it sends (the earlier ' +
      'refusals say what).' },
  E_CONNECT: { area: 'access', by: ['edge', 'twin'], resync: false,
    means: 'No connection to the PLC over S7 (or to an OPC UA server) within the timeout: check host, port, rack and slot; it retries ' +
      'with back-off.' },
  E_CONNECT_TIMEOUT: { area: 'access', by: ['twin', 'bench'], resync: false,
    means: 'A twin got no connection within its connect timeout (10–15 s): is the endpoint running and reachable at that URL? ' +
      'The transport keeps retrying.' },
  E_READ: { area: 'access', by: ['edge', 'twin'], resync: false,
    means: 'A read failed: the edge\'s S7 read came back with bad quality (is DB1 there, non-optimized and big enough?), or an OPC UA ' +
      'Read failed; the connection is rebuilt.' },

  // Command log.
  E_AUDIT_WRITE: { area: 'history', by: ['cloud'], resync: false,
    means: 'The cloud could not write its command log (disk full, no permission; the log line names the file): commands go on, ' +
      'their entries wait in memory and are written once the disk takes them (past 100,000 waiting, entries are dropped and a ' +
      '`gap` entry says how many); fix the disk or `S7T_AUDIT_FILE`.' },
  E_AUDIT_TAMPERED: { area: 'history', by: ['cloud', 'scripts'], resync: false,
    means: 'The command log\'s hash chain is broken at the line named: an entry was edited, removed or reordered there, or the ' +
      'end of the log was cut off (it ends before its head file says); in a fleet, also a log that no longer matches its copy on ' +
      'Redis (the copy stops being updated); keep the original and find out who changed the file.' },
  E_AUDIT_SHARE: { area: 'history', by: ['cloud'], resync: false,
    means: 'In a fleet, the cloud could not copy its command log to Redis (Redis down, out of memory): commands go on and the file ' +
      'is written as ever; the copy catches up from the file once Redis takes writes, and meanwhile the other instances\' ' +
      '`GET /s7twin/audit` lack this instance\'s newest commands; check Redis.' },
  E_AUDIT_FILE: { area: 'history', by: ['cloud', 'scripts'], resync: false,
    means: 'The command log could not be read (no such file, no permission; HTTP 500 on `GET /s7twin/audit` and on ' +
      '`GET /s7twin/history?commands=1`): check the path ' +
      '(`S7T_AUDIT_FILE`, default `s7twin-audit.jsonl` in the Node-RED user directory).' },
  E_AUDIT_QUERY: { area: 'history', by: ['cloud'], resync: false,
    means: '`GET /s7twin/audit` was asked for a window it cannot read (HTTP 400): `from` and `to` are ms since the epoch or ISO 8601 ' +
      'dates with `from` first, `plant` a plant id, `format` json or csv.' },

  E_AUDIT_INCOMPLETE: { area: 'history', by: ['cloud'], resync: false,
    means: 'In a fleet, `GET /s7twin/audit?format=csv` could not read the other instances\' command logs (Redis away; HTTP 503): a ' +
      'CSV file would not show it lacks their commands, so none is written; ask for JSON (this instance\'s commands, with ' +
      '`complete: false`) or again once Redis is back.' },
  E_HISTORY_STORE: { area: 'history', by: ['cloud'], resync: false,
    means: 'The cloud could not open, write or read its plant history (SQLite through node:sqlite: disk full, no permission, a Node ' +
      'without node:sqlite; in a fleet, Redis down or out of memory; HTTP 500 on `GET /s7twin/history`): the link goes on, rows ' +
      'wait and are retried; a backfill record it could not file is told to the edge, which keeps it and sends it again from its ' +
      'last answer 5 s later; fix the disk or `S7T_HISTORY_FILE`, or Redis.' },
  E_JOURNAL: { area: 'history', by: ['edge'], resync: false,
    means: 'The edge\'s journal (store and forward) cannot be used: its size is not a number of MiB, or its folder cannot be made, ' +
      'written or synced (disk full, no permission; the link client\'s log names the folder). The link goes on; states of an outage ' +
      'that could not be journalled are lost and counted (`journal.dropped`); fix the setting, the disk or `S7T_JOURNAL_DIR`.' },
  E_NO_HISTORY: { area: 'history', by: ['cloud'], resync: false,
    means: 'The edge forwarded its journal (backfill) to a cloud that keeps no plant history (it could not open it: its log says ' +
      '`E_HISTORY_STORE`): nothing is lost, the edge keeps its journal and forwards it again on its next connection; fix the ' +
      'cloud\'s history.' },
  E_HISTORY_QUERY: { area: 'history', by: ['cloud'], resync: false,
    means: '`GET /s7twin/history` was asked for a window it cannot read (HTTP 400): `from` and `to` are ms since the epoch or ISO ' +
      '8601 dates with `from` first, `plant` a plant id, `tags` at most 64 short names separated by commas, `commands` 0 or 1 (1 on an ' +
      'instance that keeps no command log is refused too).' },

  // Settings refused at start.
  E_CONFIG: { area: 'config', by: ['cloud', 'edge', 'plc'], resync: false,
    means: 'A node property, option or flag has a value the part cannot run with (a port, interval, URL, security mode, register ' +
      'count, PLC host, probe slots …): the message names it; the node shows a red status and does not start.' },
  E_SIGNAL: { area: 'config', by: ['edge', 'plc', 'bench'], resync: false,
    means: 'A high-frequency signal\'s option is out of range (its rate, data block, block size or count, a ring larger than a 64 KB data ' +
      'block, tones or noise beyond a DINT): the message names it; the virtual PLC does not start.' },
  E_RING: { area: 'access', by: ['edge'], resync: false,
    means: 'The data block the edge reads a signal\'s ring buffer from is not the ring it was set up for (rate, block size, block count or ' +
      'format differ, or it is not a ring at all): the message names what differs; the edge reads it again every 200 ms and sends nothing from it.' },
  E_ENCODING: { area: 'config', by: ['edge', 'twin'], resync: false,
    means: 'The encoding asked for is not one this bridge speaks: `compact` (MessagePack, the default) or `json` ' +
      '(`S7T_LINK_ENCODING` at the edge, `--encoding` for the headless twin, `?encoding=` on the page).' },
  E_TOKENS: { area: 'config', by: ['cloud'], resync: false,
    means: 'A token list entry (`S7T_TOKENS`, `S7T_TWIN_TOKEN` …, or the endpoint\'s credentials) is not `token:role:plant[|plant]`, ' +
      'has an unknown role or a bad plant id: fix the entry the message names (it never shows the token).' },
  E_TLS_CONFIG: { area: 'config', by: ['cloud', 'edge'], resync: false,
    means: 'Only one of `S7T_TLS_KEY` and `S7T_TLS_CERT` is set, or a file cannot be read or holds no PEM block: set both to readable ' +
      'PEM files; the instance does not start rather than serve plain text.' },
  E_SOURCES: { area: 'config', by: ['cloud'], resync: false,
    means: 'An entry of an address list (`S7T_MODBUS_EDGE_HOSTS`) is neither an address, an address block (a.b.c.d/n) nor a host ' +
      'name: fix it.' },
  E_PLANT: { area: 'config', by: ['cloud', 'edge', 'twin'], resync: false,
    means: 'A plant id is not 1–64 characters of `[A-Za-z0-9_.-]` (for OPC UA node ids `[A-Za-z0-9_-]`): rename the plant.' },
  E_LINK_TRANSPORT: { area: 'config', by: ['cloud', 'edge'], resync: false,
    means: 'The link transport is not one of ws, amqp, kafka, mqtt, zmq (`S7T_LINK_TRANSPORT` or the link node\'s Transport), or a ' +
      'link server of role twin was given another transport than WebSocket (twins always connect over WebSocket).' },
  E_LINK_URL: { area: 'config', by: ['cloud', 'edge'], resync: false,
    means: 'The link\'s broker address does not fit its transport: amqp://host:port[/vhost], kafka://host:port, mqtt://host:port, ' +
      'or tcp://address:port for ZeroMQ (`S7T_LINK_URL` or the link node\'s Broker URL).' },
  E_LINK_CLIENT_MISSING: { area: 'config', by: ['cloud', 'edge'], resync: false,
    means: 'The npm client of the chosen link transport is not installed: run the `npm install` the message names (amqplib, ' +
      '@platformatic/kafka, zeromq) in the Node-RED user directory, then restart Node-RED.' },
  E_URL: { area: 'config', by: ['edge'], resync: false,
    means: 'The link client\'s cloud URL list is empty or holds something that is not a `ws://` or `wss://` URL: fix `S7T_CLOUD_URL`.' },
  E_NO_CREDENTIAL: { area: 'config', by: ['cloud', 'edge'], resync: false,
    means: 'An OPC UA account has no password (`S7T_OPCUA_TWIN_PASSWORD`, `S7T_OPCUA_EDGE_PASSWORD` or the node\'s credentials): set ' +
      'it; until then the server does not start and the bridge does not connect.' },

  // I/O tables.
  E_TABLE: { area: 'table', by: ['cloud', 'edge', 'plc', 'twin', 'scripts'], resync: false,
    means: 'The I/O table has errors (its `errors` list them, the message names the first tags): fix the tags named; nothing runs ' +
      'with a refused table.' },
  E_TABLE_SCHEMA: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'The table is not an object with a non-empty `tags` list, a tag is not an object, or a section (`plc`, `modbus`, `program`, ' +
      '`version`) holds a value it cannot: fix the field the message names.' },
  E_TABLE_FILE: { area: 'table', by: ['cloud', 'edge', 'plc', 'twin', 'scripts'], resync: false,
    means: 'The file `S7T_IO_TABLE` (or `--table`) names cannot be read: fix the path.' },
  E_TABLE_JSON: { area: 'table', by: ['cloud', 'edge', 'plc', 'twin', 'scripts'], resync: false,
    means: 'The I/O table file is not valid JSON (a file ending in .csv is read as CSV, .db as a TIA Portal source): fix the file.' },
  E_TABLE_MISMATCH: { area: 'table', by: ['cloud', 'edge', 'twin'], resync: false,
    means: 'An edge\'s I/O table differs from the one the cloud has for its plant (configured, or taught by another edge): give both ' +
      'the same table; the edge is refused until then. On a connection in the compact encoding, a frame naming tags by the numbers ' +
      'of another table than this end\'s is refused the same way, never written (our own ends name tags as text until they agree).' },
  E_ADDRESS: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'An address in the I/O table (or the program\'s marker list) is not an S7 address: a data block (`DB5,REAL4`, `DB1,X0.6`, ' +
      '`DB2,S10.16`, `DB5.DBD4`) or the M area (`MW10`, `M2.0`); fix the tag named.' },
  E_TAG_NAME: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s name is not 1–64 letters, digits or `_` starting with a letter or `_` (it names the tag on OPC UA and in TIA): rename it.' },
  E_TAG_SHORT: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s short id is not 1–32 letters, digits or `_` starting with a letter (it keys the tag in every envelope): change it.' },
  E_TAG_DUPLICATE: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'Two tags share a name or a short id (or one\'s short id is another\'s name): make them unique.' },
  E_TAG_TYPE: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s type is not BOOL, BYTE, WORD, DWORD, SINT, INT, DINT, USINT, UINT, UDINT, REAL, LREAL or STRING[n] (n 1..254): ' +
      'pick one of those.' },
  E_TAG_WIDTH: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s address does not fit its type: a BOOL needs a bit address, other types a byte address of their size (`DB5,REAL4` ' +
      'for a REAL), a STRING an S address in a data block: fix the address or the type.' },
  E_TAG_SIZE: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A STRING\'s address says another length than its type (`DB2,S10.16` with `STRING[8]`): make them agree.' },
  E_TAG_ALIGN: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag of two bytes or more (WORD, INT, DINT, REAL, STRING …) sits on an odd byte of a data block, where a non-optimized ' +
      'block never places one: read its offset off TIA again.' },
  E_TAG_OVERLAP: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'Two tags (or a tag and a program marker) share a bit, or a tag sits in a probe block: move one; the message names both.' },
  E_TAG_RANGE: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s min or max is not a number of its type, lies outside what the type holds, min is above max, or a BOOL or STRING ' +
      'has one: fix it.' },
  E_TAG_DIR: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s `dir` is neither `in` (written into the PLC) nor `out` (written by the PLC program): set one.' },
  E_TAG_FLAG: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s `cloudWritable` or `noStream` is not true or false, or a writable tag is not streamed back: fix the flag.' },
  E_TAG_TEXT: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s unit or description is not text of at most 500 characters: shorten it.' },
  E_TAG_OPCUA: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s OPC UA node id is not `ns=<n>;s=<id>` (or `i=`, `g=`, `b=`): leave it out for the default or fix it.' },
  E_TAG_MODBUS: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s Modbus register is taken by another tag, runs into the probe registers, is not a register 0..65535, lacks a bit ' +
      'for a BOOL, or has a word count its type cannot take: leave `modbus` out to have it placed, or fix it.' },
  E_TAG_TIMED: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s `timed` is not `{trigger, value, with?}` naming input tags of the table: fix it or leave it out.' },
  E_TAG_ECHO: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'A tag\'s `echo` does not name another tag, is on an input, or copies a value its type cannot hold (text into a number): fix it.' },
  E_CSV: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'The CSV has no header, an unknown column, a quote never closed, or a cell that is no flag, register or timing: fix the ' +
      'line the message names.' },
  E_TIA: { area: 'table', by: ['cloud', 'edge', 'plc', 'scripts'], resync: false,
    means: 'The TIA Portal source has no data block, an optimized one (no fixed offsets), a block with no number given, a member of a ' +
      'PLC data type, or a line that is no declaration: fix what the message names.' },
  E_AREA: { area: 'answer', by: ['edge', 'plc'], resync: false,
    means: 'Bytes of a PLC area were decoded without the area a tag lives in (a table of several areas read from one buffer): a bug ' +
      'to report; nothing was written.' },

  // Fleet.
  E_BACKPLANE_CONFIG: { area: 'fleet', by: ['cloud'], resync: false,
    means: '`S7T_REDIS_URL` is not `redis://host:port` or `rediss://…`: fix it; the edge endpoint does not start.' },
  E_BACKPLANE_DOWN: { area: 'fleet', by: ['cloud'], resync: false,
    means: 'Redis is not reachable (or the backplane is closed), so a request was surely not sent to another instance: the twin gets ' +
      '`E_EDGE_DOWN`; check Redis.' },
  E_BACKPLANE: { area: 'fleet', by: ['cloud'], resync: false,
    means: 'A Redis command failed after it may have gone out, or got no answer within 2 s: the request is answered ' +
      '`E_OUTCOME_UNKNOWN`; check Redis\'s health.' },

  // MQTT.
  E_MQTT_AUTH: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'Bad or missing MQTT user name or password (CONNACK 4 or 5): check the user in `S7T_MQTT_USERS`.' },
  E_MQTT_CLIENT_ID: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'The client id is held by another user\'s connection (CONNACK 2): give each client its own id.' },
  E_MQTT_PUBLISH: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'The user\'s role may not publish on that topic (a twin publishes `cmd` and `probe/req` only); the connection is closed.' },
  E_MQTT_SUBSCRIBE: { area: 'mqtt', by: ['cloud', 'twin'], resync: false,
    means: 'The role may not subscribe to that filter (granted 0x80; a twin may not subscribe to `s7twin/#`): subscribe to the plant\'s ' +
      '`state` and `probe/res/<slot>` topics only; a twin drops the probes of a refused slot.' },
  E_MQTT_PERSISTENT: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'A persistent session (clean session 0) asked for the command or probe request topics at QoS 1 or 2, which would queue ' +
      'commands and deliver them late (granted 0x80): connect with a clean session, or subscribe at QoS 0.' },
  E_MQTT_TOO_LARGE: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'A payload over the broker\'s limit (4,096 bytes) was published; the connection is closed.' },
  E_MQTT_FRAME: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'A TCP client announced a packet over the limit (64 KiB); the connection is dropped before the body is read.' },
  E_MQTT_JSON: { area: 'mqtt', by: ['cloud', 'plc', 'twin'], resync: false,
    means: 'An MQTT payload is not JSON: send the compact JSON payloads of docs/mqtt.md.' },
  E_MQTT_CMD: { area: 'mqtt', by: ['cloud', 'plc'], resync: false,
    means: 'A command payload is not a non-empty object `{short: value}`; the publish is refused.' },
  E_MQTT_PROBE: { area: 'mqtt', by: ['cloud', 'plc'], resync: false,
    means: 'A probe payload is not `{"i": slot, "v": value}` (or an array of them) with a slot and a UDInt value in range.' },
  E_MQTT_STATE: { area: 'mqtt', by: ['twin'], resync: false,
    means: 'A state payload is not an object `{short: value}`: the twin drops it.' },
  E_MQTT_PAYLOAD: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'The payload checks refused a publish for a reason without a code of its own (the message says why); the connection is closed.' },
  E_MQTT_CONFIG: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'The broker cannot start: no users, TLS with only a key or only a certificate, a bad limit, or neither a TCP nor a WebSocket ' +
      'port: the message names which.' },
  E_MQTT_USERS: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'An entry of the user list (`S7T_MQTT_USERS` or the node\'s credentials) is not `user:password:role[@plant]`, has an empty ' +
      'password, an unknown role or a bad plant id, or names a user twice: fix that entry.' },
  E_MQTT_LISTEN: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'The broker cannot listen on its host and port (in use or not allowed): free the port or change `S7T_MQTT_PORT` / ' +
      '`S7T_MQTT_WS_PORT`.' },
  E_MQTT_CLIENT: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'A client\'s connection failed with an error that has no code of its own (logged with the client id, counted in ' +
      '`clientErrors`).' },
  E_MQTT_CONNECTION: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'A connection failed before it became an MQTT client (a TLS handshake, a broken socket; counted in `clientErrors`).' },
  E_MQTT: { area: 'mqtt', by: ['cloud'], resync: false,
    means: 'The broker node failed to start with an error that has no code of its own: the message says why.' },

  // OPC UA.
  E_START: { area: 'opcua', by: ['cloud', 'edge', 'plc'], resync: false,
    means: 'The OPC UA server could not start on its host and port (in use, or its PKI folder unusable), or the bridge or the virtual ' +
      'PLC failed to start: the message says why.' },
  E_STATE: { area: 'opcua', by: ['cloud'], resync: false,
    means: 'The OPC UA server module was used before `start()` or started twice: a programming error in the code using it.' },
  E_SESSION: { area: 'opcua', by: ['edge', 'twin'], resync: false,
    means: 'The OPC UA server refused the session, usually a wrong user or password: check the account (`S7T_OPCUA_EDGE_PASSWORD`, ' +
      'the twin\'s `--user`/`--password`); the bridge retries every 5 s.' },
  E_SUBSCRIBE: { area: 'opcua', by: ['edge', 'twin'], resync: false,
    means: 'The subscription or its monitored items could not be created: the session is closed and the connection retried.' },
  E_NOT_CONNECTED: { area: 'opcua', by: ['edge', 'twin'], resync: false,
    means: 'There is no OPC UA session now: the request is dropped and counted until the reconnect.' },
  E_OPCUA_DENIED: { area: 'opcua', by: ['cloud'], resync: false,
    means: 'The cloud OPC UA server refused a write of a command variable (BadUserAccessDenied): the session\'s account may not write ' +
      'commands (the edge\'s, or an anonymous one); nothing was written. The command log records it as refused with this code.' },
  E_OPCUA_WRITE: { area: 'opcua', by: ['cloud'], resync: false,
    means: 'The cloud OPC UA server refused a write of a command variable with another bad status (the message names it: a value of ' +
      'the wrong data type, BadTypeMismatch): nothing was written. The command log records it as refused with this code.' },
  E_WRITE_REFUSED: { area: 'opcua', by: ['edge'], resync: false,
    means: 'An OPC UA server refused a value of the bridge\'s Write (its OPC UA status is in the message): that value was not written.' },
  E_BRIDGE: { area: 'opcua', by: ['edge'], resync: false,
    means: 'The OPC UA bridge reported an error without a code of its own (logged and counted; the bridge keeps running).' },
  E_PROBE_SLOT: { area: 'opcua', by: ['cloud', 'edge', 'plc', 'twin'], resync: false,
    means: 'A probe slot outside the slots configured (`S7T_OPCUA_PROBE_SLOTS` on the cloud and the edge; 0..1023 at the PLC): use a ' +
      'lower slot or raise the count on both sides; nothing is written.' },
  E_PROBE_VALUE: { area: 'opcua', by: ['cloud', 'plc'], resync: false,
    means: 'A probe value is not a UDInt (0..4294967295): nothing is written.' },

  // Modbus.
  E_MODBUS_MAP: { area: 'modbus', by: ['plc'], resync: false,
    means: 'A Modbus request names a register no tag of the table holds, writes an output\'s register or a bit no input defines: ' +
      'the client gets exception 02 or 03; read the map with `node scripts/modbus-map.js`.' },
  E_MODBUS_WORDS: { area: 'modbus', by: ['edge'], resync: false,
    means: 'The codec got something other than an array or Buffer of 16-bit words, or the wrong number of registers: check what ' +
      'the Getter passes it.' },
  E_MODBUS_ADDRESS: { area: 'modbus', by: ['cloud', 'edge'], resync: false,
    means: 'A register address is outside 0..65535 or the server\'s bank (the cloud\'s: 0..6047), or a block runs past it: ' +
      'nothing is written (Modbus clients get exception 02).' },
  E_MODBUS_BLOCKS: { area: 'modbus', by: ['edge'], resync: false,
    means: 'A codec with Block "from each message" saw more than 64 distinct blocks: check the Flex Getter\'s addresses.' },
  E_MODBUS_NOT_MAPPED: { area: 'modbus', by: ['edge'], resync: false,
    means: 'A tag has no Modbus register, or lies outside the block the codec handles: check the codec\'s address and count against ' +
      'the I/O table.' },
  E_BASELINE: { area: 'modbus', by: ['edge'], resync: false,
    means: 'A Fresh-only relay (towards the PLC) was asked to send a block again, which it never does (it would be a late write): ' +
      'a programming error in the flow or code driving it.' },
  E_MODBUS_NOT_EDGE: { area: 'modbus', by: ['cloud'], resync: false,
    means: 'A client whose address is not in `S7T_MODBUS_EDGE_HOSTS` wrote registers only the edge writes (states, counters, probe ' +
      'responses): refused with exception 02; add the edge\'s address if it was the edge.' },
  E_MODBUS_CLIENTS: { area: 'modbus', by: ['cloud'], resync: false,
    means: 'A connection was refused: the server already serves Max clients (`S7T_MODBUS_MAX_CLIENTS`, 256); raise it for more twins.' },
  E_MODBUS_LISTEN: { area: 'modbus', by: ['cloud'], resync: false,
    means: 'The Modbus server cannot listen on its host and port (in use or not allowed): free the port or change `S7T_MODBUS_PORT`.' },
  E_MODBUS_FUNCTION: { area: 'modbus', by: ['cloud', 'plc'], resync: false,
    means: 'A request used a function code other than 3, 6 or 16: answered with exception 01.' },
  E_MODBUS_QUANTITY: { area: 'modbus', by: ['cloud', 'plc'], resync: false,
    means: 'A read or write asked for a bad register quantity or byte count: answered with exception 03.' },
  E_MODBUS_FRAME: { area: 'modbus', by: ['cloud', 'plc'], resync: false,
    means: 'A request\'s length does not fit its function code: answered with exception 03.' },
  E_MODBUS_EXCEPTION_: { area: 'modbus', by: ['twin'], resync: false, family: '<n>',
    means: 'The Modbus server answered the twin\'s request with exception `<n>` (02: an address it may not use; 06: busy, past its ' +
      'per-peer limit); counted, and the twin goes on.' },
  E_REQUEST: { area: 'modbus', by: ['twin'], resync: false,
    means: 'A Modbus twin\'s request failed on its socket (not a timeout): the transport reconnects with back-off.' },

  // The browser twin's page.
  E_BODY: { area: 'web', by: ['cloud'], resync: false,
    means: 'The request body could not be read (the client broke off): answered HTTP 400.' },
  E_LEASE_ID: { area: 'web', by: ['cloud'], resync: false,
    means: 'A page asked for the driver lease with an id that is not 1–64 characters of `[A-Za-z0-9_.:-]`: reload the page.' },
  E_NETWORK: { area: 'web', by: ['twin'], resync: false,
    means: 'The page could not reach the cloud (to ask who its token is, or to load a replay window from the plant history): check ' +
      'the network and the cloud\'s address.' },
  E_REPLAY_WINDOW: { area: 'web', by: ['twin'], resync: false,
    means: 'The replay window cannot be loaded: its start is not before its end, or it is longer than 6 hours: pick another window.' },
  E_REPLAY: { area: 'web', by: ['twin'], resync: false,
    means: 'The page could not replay the window, for a reason its message names (an error in the page): reload it, and report the ' +
      'message with the browser console\'s.' },
  E_NOT_LOADED: { area: 'web', by: ['twin'], resync: false,
    means: 'The page has not loaded a library a module needs (three.js or mqtt.js): reload it, and look in the browser\'s console ' +
      'for the script that failed.' },
  E_NOT_BUNDLED: { area: 'web', by: ['twin'], resync: false,
    means: 'Page code asked for a module the page bundle does not hold: a bug in the page\'s module list (`nodes/lib/web/page-bundle.js`).' },
  E_NOT_IN_BROWSER: { area: 'web', by: ['twin'], resync: false,
    means: 'Page code used a Node built-in (such as `fs`) that the page only stubs: a bug, that code path must not run in the page.' },
  E_BUNDLE_ENTRY: { area: 'web', by: ['cloud'], resync: false,
    means: 'A module listed for the page bundle does not exist: the install or checkout is incomplete.' },
  E_BUNDLE_OUTSIDE: { area: 'web', by: ['cloud'], resync: false,
    means: 'A module the page needs lies outside the folder the page is served from, so it is not served: a bug in the module list.' },

  // Flow-timer.
  E_TIMER_INPUT: { area: 'timer', by: ['cloud'], resync: false,
    means: 'The message has neither `msg.timer` nor an envelope-like `msg.payload` (or its payload text is not JSON): wire only ' +
      'commands, states and explicit timers into it.' },
  E_TIMER_OP: { area: 'timer', by: ['cloud'], resync: false,
    means: '`msg.timer.op` is neither `start` nor `stop`.' },
  E_TIMER_ID: { area: 'timer', by: ['cloud'], resync: false,
    means: 'A timer start without an `id`, or a stop with neither `id` nor `variable`, or an id that is not a string or number.' },
  E_CSV_HEADER: { area: 'timer', by: ['cloud', 'twin'], resync: false,
    means: 'A CSV file was opened without its header line: a programming error in the code that opens it.' },

  // The virtual PLC.
  E_BAD_WRITE: { area: 'plc', by: ['plc'], resync: false,
    means: 'Input writes must be an object `{short: value}`.' },
  E_NOT_INPUT: { area: 'plc', by: ['plc'], resync: false,
    means: 'An input write names a PLC output: only inputs may be written.' },
  E_S7_IN_USE: { area: 'plc', by: ['plc'], resync: false,
    means: 'This process already runs a PLC with S7 on (node-snap7 allows one server per process): stop it first, or run more PLCs ' +
      'as child processes (`node plc/cli.js`).' },
  E_S7_START: { area: 'plc', by: ['plc'], resync: false,
    means: 'The S7 server could not start on its host and port (in use; ports under 1024 need root): change `--s7-port`.' },
  E_OPCUA_START: { area: 'plc', by: ['plc'], resync: false,
    means: 'The PLC\'s OPC UA server could not start (port in use, PKI folder unusable): change `--opcua-port` or `--pki-dir`.' },
  E_MODBUS_START: { area: 'plc', by: ['plc'], resync: false,
    means: 'The PLC\'s Modbus server could not start (port in use; ports under 1024 need root): change `--modbus-port`.' },
  E_MODBUS: { area: 'plc', by: ['plc'], resync: false,
    means: 'The PLC refused a register (not mapped, read-only, or a command word with undefined bits): the client gets the exception ' +
      'named in the message, and nothing is written.' },

  // The headless twin and its transports.
  E_ARGS: { area: 'twin', by: ['twin'], resync: false,
    means: 'An unknown option, or a value out of range (`npm run twin -- --help` lists them).' },
  E_PROTOCOL: { area: 'twin', by: ['twin'], resync: false,
    means: 'No twin transport of that name (`twin/transports/<protocol>.js`): use ws, mqtt, mqttws, http, opcua or modbus.' },
  E_NOT_RUNNING: { area: 'twin', by: ['twin'], resync: false,
    means: 'The PLC did not start the plant (no GreenLamp after pressing start, three times): is the PLC running its program, and ' +
      'does the path reach it?' },
  E_TRANSPORT_CONFIG: { area: 'twin', by: ['twin'], resync: false,
    means: 'The transport\'s options cannot work (a missing or wrong-scheme URL, a bad `ttl` or poll period): the message says which.' },
  E_FRAME: { area: 'twin', by: ['twin'], resync: false,
    means: 'The twin received a frame it could not parse and dropped it (counted in `badFrames`).' },
  E_HTTP_: { area: 'twin', by: ['twin'], resync: false, family: '<status>',
    means: 'The REST endpoint (or, for the page\'s replay, the plant history) answered with HTTP status `<status>` and no error ' +
      'envelope (a proxy in the way?): the status says why.' },
  E_HTTP_NETWORK: { area: 'twin', by: ['twin'], resync: false,
    means: 'An HTTP twin\'s request failed on the network (no connection, reset): the transport retries with back-off.' },
  E_HTTP_TIMEOUT: { area: 'twin', by: ['twin'], resync: false,
    means: 'An HTTP twin\'s request got no answer within its timeout: the transport retries with back-off.' },
  E_PLANT_CONFIG: { area: 'twin', by: ['twin'], resync: false,
    means: 'The plant model\'s options are wrong (an unknown profile, boxes not a whole number, `damaged` not a fraction or a 0/1 ' +
      'pattern).' },
  E_PLANT_TICK: { area: 'twin', by: ['twin'], resync: false,
    means: 'The plant model was advanced by a negative or missing time: a programming error in the code driving it.' },
  E_PLANT_BUTTON: { area: 'twin', by: ['twin'], resync: false,
    means: 'The plant model has buttons `st` and `sp` only.' },
  E_PLANT_EVENT: { area: 'twin', by: ['twin'], resync: false,
    means: 'The plant model has no event of that name (`inputs`, `box`, `done`).' },

  // The benchmark and the scripts.
  E_BENCH_ARGS: { area: 'bench', by: ['bench'], resync: false,
    means: 'An unknown protocol, profile or fault, or an option out of range: `npm run bench -- --help` lists them.' },
  E_BENCH_START: { area: 'bench', by: ['bench'], resync: false,
    means: 'The stream benchmark\'s cloud or edge process did not start, or the edge\'s link did not come up within 2 minutes: the message ' +
      'ends with both processes\' output; the report names the transport and goes on with the next.' },
  E_BENCH_SS: { area: 'bench', by: ['bench'], resync: false,
    means: 'The link bytes of a link transport could not be read with `ss` (iproute2): install iproute2, or the report leaves those bytes out.' },
  E_LOAD_ARGS: { area: 'bench', by: ['bench'], resync: false,
    means: 'A load level needs at least one user, and a duration or a number of probes per user.' },
  E_LOAD_SLOTS: { area: 'bench', by: ['bench'], resync: false,
    means: 'A load level wants more users than the PLC has probe slots (1,024): lower `--users`.' },
  E_PATH_NOT_READY: { area: 'bench', by: ['bench'], resync: false,
    means: 'No probe came back through a path after it started: the report lists the path as not measured, with the reason.' },
  E_PLOT_EMPTY: { area: 'bench', by: ['bench'], resync: false,
    means: 'A plot has no samples to draw (its section was skipped or failed): the report says which.' },
  E_TOXIPROXY_BUILD: { area: 'bench', by: ['bench'], resync: false,
    means: 'Toxiproxy is missing and could not be built: put Go on the PATH and let it reach the Go module proxy ' +
      '(`bash scripts/toxiproxy.sh`).' },
  E_TOXIPROXY_START: { area: 'bench', by: ['bench'], resync: false,
    means: 'toxiproxy-server exited, or did not answer on its API port: its log is in the message.' },
  E_TOXIPROXY_API: { area: 'bench', by: ['bench'], resync: false,
    means: 'A Toxiproxy API call failed (its status and answer are in the message).' },
  E_TOXIPROXY_TIMEOUT: { area: 'bench', by: ['bench'], resync: false,
    means: 'A Toxiproxy API call timed out: is toxiproxy-server still running?' },
  E_TOXIPROXY_ARG: { area: 'bench', by: ['bench'], resync: false,
    means: 'A Toxiproxy proxy was asked for without a name or an upstream: a programming error in the benchmark.' },
  E_FLOOR_SOCKET: { area: 'bench', by: ['bench'], resync: false,
    means: 'A socket of the network-floor echo chain failed: the message says which and why.' },
  E_STUDY_ARGS: { area: 'bench', by: ['bench'], resync: false,
    means: 'The protocol study (`node bench/study.js`) was given an unknown stack, load or task, or a many-nodes stack without forwarders: the message ' +
      'lists the valid ones.' },
  E_STUDY_NETNS: { area: 'bench', by: ['bench'], resync: false,
    means: 'A capture or the network load of the protocol study needs a network namespace of its own (`unshare -n`): run the study as root; it never ' +
      'shapes the machine\'s own loopback.' },
  E_STUDY_LOAD: { area: 'bench', by: ['bench'], resync: false,
    means: 'stress-ng or iperf3 did not run for a load of the protocol study: install them (`bash scripts/study-deps.sh`); the message has their output.' },
  E_STUDY_MISSING: { area: 'bench', by: ['bench'], resync: false,
    means: 'A stack of the protocol study cannot run here (ROS, the Cyclone DDS venv or the Fast DDS companion missing): `bash scripts/study-deps.sh` ' +
      'installs it; the report lists the stack as skipped.' },
  E_STUDY_CELL: { area: 'bench', by: ['bench'], resync: false,
    means: 'One measurement of the protocol study ended without a result (a companion crashed or timed out): the report lists it as not measured, with ' +
      'the tail of its log.' },
  E_STUDY_MEMORY: { area: 'bench', by: ['bench'], resync: false,
    means: 'The many-nodes test did not start its next level: that many nodes, at the memory each took at the level before, would need more than half ' +
      'of the memory available.' },
  E_STUDY: { area: 'bench', by: ['bench'], resync: false,
    means: 'The protocol study stopped on an error of its own: the message and stack say where.' },
  E_CAPTURE: { area: 'bench', by: ['bench'], resync: false,
    means: 'tcpdump did not start or captured nothing, or tshark could not read the capture: install them (`bash scripts/study-deps.sh`) and run as root.' },
  E_COMPANION: { area: 'bench', by: ['bench'], resync: false,
    means: 'A Node.js companion of the protocol study failed (its stack could not listen or connect): the message says why.' },
  E_COMPANION_CONNECT: { area: 'bench', by: ['bench'], resync: false,
    means: 'A Node.js companion of the protocol study could not connect to its MQTT broker in five attempts, or its login was refused: the ' +
      'message gives the broker and the last reason.' },
  E_COMPANION_TIMEOUT: { area: 'bench', by: ['bench'], resync: false,
    means: 'A companion of the protocol study did not start, answer or finish in time (a master not listening, discovery that never matched): the tail ' +
      'of its log is in the message.' },
  E_CHAIN_NOT_READY: { area: 'bench', by: ['bench'], resync: false,
    means: 'In the many-nodes test no message came through every chain of forwarders within five minutes (processes not started or discovery not done): ' +
      'the report lists that level as failed.' },
  E_START_TIMEOUT: { area: 'bench', by: ['bench'], resync: false,
    means: 'The PLC, a Node-RED or a stock replica did not come up in time: the tail of its log is in the message.' },
  E_START_FAILED: { area: 'bench', by: ['bench'], resync: false,
    means: 'The PLC or a Node-RED logged a fatal error while starting: the tail of its log is in the message.' },
  E_EXITED: { area: 'bench', by: ['bench'], resync: false,
    means: 'The PLC or a Node-RED exited while starting: the tail of its log is in the message.' },
  E_NO_BROWSER: { area: 'bench', by: ['bench'], resync: false,
    means: 'No Chromium or no playwright-core for the browser twin\'s section: `bash scripts/system-deps.sh` installs Debian\'s ' +
      'Chromium, or set `S7T_CHROMIUM`; `--no-browser` skips the section.' },
  E_PAGE_TIMEOUT: { area: 'bench', by: ['bench'], resync: false,
    means: 'The browser twin\'s page did not reach the state the benchmark waited for: its last snapshot is in the message.' },
  E_TWIN: { area: 'bench', by: ['bench'], resync: false,
    means: 'A production failed with an error that has no code of its own: the report lists its message among the failures.' },
  E_UNSUPPORTED: { area: 'bench', by: ['bench'], resync: false,
    means: 'The stock WebSocket–S7 replica carries probes only: it takes no commands, so it has no production rows.' },
  E_SYSTEM_ARGS: { area: 'bench', by: ['scripts', 'bench'], resync: false,
    means: 'The launcher (system/) was asked for a protocol path the table of paths (nodes/lib/core/paths.js) does not have: ' +
      'the message lists those it has.' },
  E_STOP_TIMEOUT: { area: 'bench', by: ['scripts'], resync: false,
    means: 'A part of `npm start` did not stop within 15 s of Ctrl-C and was killed: its last log lines say what it was doing.' },
  E_S7_READ: { area: 'bench', by: ['scripts', 'bench'], resync: false,
    means: 'An S7 read of a tool\'s client (system/s7.js) came back with a bad quality: the address is not in the PLC, or the ' +
      'connection dropped; the values it got are in the message.' },
  E_S7_WRITE: { area: 'bench', by: ['scripts', 'bench'], resync: false,
    means: 'An S7 write of a tool\'s client (system/s7.js) failed: the address is not in the PLC, or the connection dropped.' },
  E_REDIS_MISSING: { area: 'bench', by: ['scripts', 'bench'], resync: false,
    means: 'redis-server is not installed: run `bash scripts/system-deps.sh` as root, or `apt-get install redis-server`, or give ' +
      '`S7T_REDIS_URL` for your own.' },
  E_REDIS_START: { area: 'bench', by: ['scripts', 'bench'], resync: false,
    means: 'redis-server did not start on its host and port: its log is in the message.' },
  E_RABBITMQ_MISSING: { area: 'bench', by: ['scripts'], resync: false,
    means: 'RabbitMQ (or its epmd) is not installed: run `bash scripts/broker-deps.sh rabbitmq-server` as root, or ' +
      '`apt-get install rabbitmq-server`.' },
  E_RABBITMQ_START: { area: 'bench', by: ['scripts'], resync: false,
    means: 'RabbitMQ or its epmd exited, logged a failed boot or was not up in time: the end of its log is in the message.' },
  E_KAFKA_MISSING: { area: 'bench', by: ['scripts'], resync: false,
    means: 'Java 17+ or Kafka\'s jars (.tools/kafka/libs) are missing: run `bash scripts/broker-deps.sh kafka` (as root where Java or ' +
      'Maven is missing).' },
  E_KAFKA_START: { area: 'bench', by: ['scripts'], resync: false,
    means: 'Formatting Kafka\'s log folder failed, or the broker exited, or was not up in time: the end of its log is in the message.' },
  E_MOSQUITTO_MISSING: { area: 'bench', by: ['scripts'], resync: false,
    means: 'Mosquitto or mosquitto_passwd is not installed: run `bash scripts/broker-deps.sh mosquitto` as root, or ' +
      '`apt-get install mosquitto`.' },
  E_MOSQUITTO_START: { area: 'bench', by: ['scripts'], resync: false,
    means: 'mosquitto_passwd failed, or Mosquitto exited or was not up in time: the end of its log is in the message.' },
  E_ROSMASTER_MISSING: { area: 'bench', by: ['scripts'], resync: false,
    means: 'The ROS 1 master (rosmaster) is not installed: run `bash scripts/study-deps.sh` as root, or `apt-get install python3-rosmaster`.' },
  E_ROSMASTER_START: { area: 'bench', by: ['scripts'], resync: false,
    means: 'rosmaster exited, or did not listen on its port in time: the end of its log is in the message.' },
  E_BROKER_OPTION: { area: 'bench', by: ['scripts'], resync: false,
    means: 'A broker\'s start was asked for with a port, host, username, password or name that cannot go into its config ' +
      '(the message says which and what is allowed), or a launcher child without S7T_BROKER_PASSWORD: nothing was started.' },
};

/**
 * The catalogue entry of a code, families included (E_HTTP_503 → the entry of E_HTTP_).
 * @param {string} code
 * @returns {{area: string, by: string[], means: string, resync: boolean, code: string}|undefined}
 */
function describe(code) {
  if (typeof code !== 'string') return undefined;
  if (Object.hasOwn(CODES, code) && !code.endsWith('_')) return { code, ...CODES[code] };
  const family = Object.keys(CODES).find((k) => k.endsWith('_') && code.startsWith(k) && code.length > k.length);
  return family ? { code: family, ...CODES[family] } : undefined;
}

/**
 * Whether a twin resyncs from the next state after an answer with this code: the PLC may not
 * hold what the twin sent.
 * @param {string} code
 * @returns {boolean}
 */
function mustResync(code) {
  const d = describe(code);
  return Boolean(d && d.resync);
}

module.exports = { PARTS, AREAS, CODES, describe, mustResync };
