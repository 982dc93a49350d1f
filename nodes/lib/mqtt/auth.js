'use strict';
/**
 * Users, roles and per-topic authorization for the s7twin MQTT broker. Pure logic: no sockets,
 * no aedes, no RED, so every rule is unit-tested on its own (test/nodes/lib/mqtt/auth.test.js).
 *
 * A user list is text, one entry per comma (or newline):
 *
 *   twin:pw:twin,plc:pw:plc,monitor:pw:monitor,lab3:pw:twin@plant3
 *
 * `<user>:<password>:<role>[@<plant>[|<plant>...]]`. The user name is everything before the first
 * ':', the role everything after the last ':', so a password may itself contain ':'. A role bound
 * to plants (`twin@plant3`, `plc@line1|line2`) gets the role's topics for those plants only;
 * without it, for every plant (a fleet scopes each PLC's user to its own plant, so that one
 * plant's PLC credentials cannot command another plant).
 *
 * Roles (topics from the I/O tables' `mqtt` section, the same for every plant's table unless it
 * says otherwise; `{plant}` = one topic level):
 *   twin     publish  s7twin/{plant}/cmd, s7twin/{plant}/probe/req
 *            subscribe s7twin/{plant}/state, s7twin/{plant}/probe/res/+
 *   plc      publish  s7twin/{plant}/state, s7twin/{plant}/probe/res/+
 *            subscribe s7twin/{plant}/cmd, s7twin/{plant}/probe/req
 * (`probe/res/{slot}`, one response topic per probe slot: nodes/lib/mqtt/topics.js. A twin may
 * subscribe to one slot's answers or to `probe/res/+`; the old shared `probe/res` is refused.)
 *   monitor  publish  nothing;  subscribe  everything (the cloud flow's own subscriber)
 *   edge     publish  s7twin/{plant}/link/up;    subscribe  s7twin/{plant}/link/down
 *   link     publish  s7twin/{plant}/link/down;  subscribe  s7twin/{plant}/link/up
 * (the edge↔cloud link when it runs over this broker: give each plant's edge a user bound to its
 * plant, `edge1:pw:edge@plant1`, so that only it may publish that plant's states and answers.)
 *
 * A subscription filter is allowed only if every topic it can match is allowed: `s7twin/+/state`
 * is fine for a twin, `s7twin/#` is not (it would also match cmd topics of other twins).
 */
const { codedError } = require('../core/errors');
const crypto = require('node:crypto');
const { template } = require('../core/io-table');
const { sectionsOf } = require('../core/table/sections');
const { PLANT_RE } = require('../core/plants');
const { slotOfResponse, LINK_TOPICS } = require('./topics');

// commandTopic, stateTopic, probeRequestTopic, probeResponseTopic: the topic layout every table has
// by default (one broker serves every plant, so its roles are written once, with {plant} in them)
const TOPICS = Object.freeze(sectionsOf({}).mqtt);

/** What each role may do, as topic patterns with `{plant}` still in them. */
const ROLES = Object.freeze({
  twin: { publish: [TOPICS.commandTopic, TOPICS.probeRequestTopic], subscribe: [TOPICS.stateTopic, TOPICS.probeResponseTopic] },
  plc: { publish: [TOPICS.stateTopic, TOPICS.probeResponseTopic], subscribe: [TOPICS.commandTopic, TOPICS.probeRequestTopic] },
  monitor: { publish: [], subscribe: ['#', '$SYS/#'] },
  // The edge↔cloud link over this broker (lib/link/transports/mqtt.js): a plant's edge, and the
  // cloud's end of the link (its s7twin-link-server of role edge).
  edge: { publish: [LINK_TOPICS.up], subscribe: [LINK_TOPICS.down] },
  link: { publish: [LINK_TOPICS.down], subscribe: [LINK_TOPICS.up] },
});

/** Error with a stable `code`. */
const MqttAuthError = codedError('MqttAuthError');

const digest = (s) => crypto.createHash('sha256').update(s).digest();

/**
 * Split a user list into its entries, unchecked: the one reading of the `user:password:role`
 * format (parseUsers checks them; nodes/lib/access/security.js looks for development passwords).
 * @param {string|undefined} text entries separated by ',' or newlines
 * @returns {Array<{username?:string, password?:string, role?:string}>} username undefined where an
 *   entry is not user:password:role (role may carry `@plant`)
 */
function userEntries(text) {
  if (text === undefined || text === null) return [];
  return String(text).split(/[,\n]/).map((e) => e.trim()).filter(Boolean).map((entry) => {
    const first = entry.indexOf(':');
    const last = entry.lastIndexOf(':');
    if (first <= 0 || last === first) return {};
    return { username: entry.slice(0, first), password: entry.slice(first + 1, last), role: entry.slice(last + 1) };
  });
}

/**
 * Parse a user list.
 * @param {string|undefined} text `user:password:role[@plant]` entries separated by ',' or newlines
 * @returns {Map<string, {username:string, role:string, plant:string|null, digest:Buffer}>}
 * @throws {MqttAuthError} E_MQTT_USERS on a malformed entry, an unknown role, a bad plant id or a
 *   repeated user name (the message never contains a password)
 */
function parseUsers(text) {
  const users = new Map();
  userEntries(text).forEach(({ username, password, role: roleAt }, i) => {
    const where = `user entry ${i + 1}`;
    if (username === undefined) throw new MqttAuthError('E_MQTT_USERS', `${where} is not user:password:role`);
    const [role, plantList, extra] = roleAt.split('@');
    if (!password) throw new MqttAuthError('E_MQTT_USERS', `${where} (${username}) has an empty password`);
    if (!ROLES[role]) throw new MqttAuthError('E_MQTT_USERS', `${where} (${username}) has unknown role "${role}" (${Object.keys(ROLES).join(', ')})`);
    const plants = plantList === undefined ? null : plantList.split('|');
    if (extra !== undefined || (plants && !plants.every((p) => PLANT_RE.test(p)))) {
      throw new MqttAuthError('E_MQTT_USERS', `${where} (${username}) has an invalid plant id`);
    }
    if (users.has(username)) throw new MqttAuthError('E_MQTT_USERS', `${where}: user "${username}" is listed twice`);
    // `plant`: the one plant of a user bound to exactly one (null: every plant, or several).
    users.set(username, { username, role, plants, plant: plants && plants.length === 1 ? plants[0] : null, digest: digest(password) });
  });
  return users;
}

/**
 * Does an MQTT topic filter match a topic name? (MQTT 3.1.1 §4.7: '+' one level, '#' the rest;
 * wildcards at the first level do not match topics starting with '$'.)
 * @param {string} filter
 * @param {string} topic
 * @returns {boolean}
 */
function topicMatches(filter, topic) {
  const f = filter.split('/');
  const t = topic.split('/');
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

/**
 * Is every topic a requested filter can match also matched by an allowed pattern? Level by
 * level: '#' covers anything below it, '+' covers one level of anything except '#', a literal
 * covers only itself. (`s7twin/+/state` covers `s7twin/plant1/state` and `s7twin/+/state`.)
 * @param {string} pattern allowed filter
 * @param {string} filter requested filter
 * @returns {boolean}
 */
function filterCovers(pattern, filter) {
  const p = pattern.split('/');
  const f = filter.split('/');
  if (filter.startsWith('$') !== pattern.startsWith('$')) return false;
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '#') return true;
    if (i >= f.length) return false;
    if (f[i] === '#') return false; // the request reaches further than the pattern
    if (p[i] === '+') continue;
    if (p[i] !== f[i]) return false;
  }
  return p.length === f.length;
}

/**
 * Can two topic filters match a common topic? Level by level: '#' matches the rest, '+' any one
 * level, literals only themselves. (`s7twin/+/cmd` and `s7twin/plant1/#` overlap.)
 * @param {string} a
 * @param {string} b
 * @returns {boolean}
 */
function filtersOverlap(a, b) {
  const x = a.split('/');
  const y = b.split('/');
  if ((a.startsWith('$') && (y[0] === '+' || y[0] === '#')) || (b.startsWith('$') && (x[0] === '+' || x[0] === '#'))) return false;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === '#' || y[i] === '#') return true;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== '+' && y[i] !== '+' && x[i] !== y[i]) return false;
  }
  return true;
}

/**
 * The concrete patterns of a user: the role's topics, `{plant}` bound to each of the user's
 * plants, or '+' for a user of every plant.
 * @param {{role:string, plants?:string[]|null, plant?:string|null}} user
 * @returns {{publish:string[], subscribe:string[]}}
 */
function patternsOf(user) {
  const plants = user.plants || (user.plant ? [user.plant] : ['+']);
  const r = ROLES[user.role];
  const fill = (list) => plants.flatMap((plant) => list.map((t) => template(t, { plant, slot: '+' })));
  return { publish: fill(r.publish), subscribe: fill(r.subscribe) };
}

/**
 * The plant id in a topic of the table's layout (`s7twin/<plant>/...`), or null.
 * @param {string} topic
 * @returns {string|null}
 */
function plantOf(topic) {
  const parts = topic.split('/');
  return parts[0] === 's7twin' && parts.length >= 3 && PLANT_RE.test(parts[1]) ? parts[1] : null;
}

/**
 * Which of the table's topics this is: 'cmd' | 'state' | 'probe' | 'probe-res', or null.
 * @param {string} topic
 * @returns {string|null}
 */
function kindOf(topic) {
  const plant = plantOf(topic);
  if (!plant) return null;
  const fill = (t) => template(t, { plant });
  if (topic === fill(TOPICS.commandTopic)) return 'cmd';
  if (topic === fill(TOPICS.stateTopic)) return 'state';
  if (topic === fill(TOPICS.probeRequestTopic)) return 'probe';
  if (slotOfResponse(topic, plant) !== null) return 'probe-res';
  return null;
}

/**
 * An authorizer over a user list.
 * @param {Map} users from parseUsers
 * @returns {{authenticate(username:string, password:string|Buffer): object|null,
 *   canPublish(user:object, topic:string): boolean, canSubscribe(user:object, filter:string): boolean}}
 */
function createAuthorizer(users) {
  const patterns = new Map([...users.values()].map((u) => [u.username, patternsOf(u)]));
  // An unknown user is compared against a dummy digest, so the time taken does not tell
  // whether the user name exists.
  const dummy = digest(crypto.randomBytes(16).toString('hex'));
  return {
    authenticate(username, password) {
      const u = typeof username === 'string' ? users.get(username) : undefined;
      const given = digest(password === undefined || password === null ? '' : password);
      const ok = crypto.timingSafeEqual(given, u ? u.digest : dummy);
      return u && ok && password !== undefined && password !== null ? u : null;
    },
    canPublish(user, topic) {
      const p = user && patterns.get(user.username);
      return !!p && typeof topic === 'string' && p.publish.some((pat) => topicMatches(pat, topic));
    },
    canSubscribe(user, filter) {
      const p = user && patterns.get(user.username);
      return !!p && typeof filter === 'string' && p.subscribe.some((pat) => filterCovers(pat, filter));
    },
  };
}

module.exports = {
  ROLES, TOPICS, MqttAuthError, parseUsers, userEntries, topicMatches, filterCovers, filtersOverlap, patternsOf, plantOf, kindOf, createAuthorizer,
};
