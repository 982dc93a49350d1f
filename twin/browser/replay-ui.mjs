/**
 * The replay bar under the 3D plant: pick a window (from/to, or a quick pick), load it, play,
 * pause, step frame by frame, the speed (1×–16×), the position, and back to live. The commands of
 * the window are marks on the track (a colour per sender) and a list of sentences, each a button
 * that goes to its time; the edge's snapshots and backfilled states are marked on the track too.
 * What the marks say comes from timeline.js; the replay runs in its own worker (app.mjs).
 *
 * Keyboard: every control is a native button, input or radio; on the position, arrow keys move
 * it, space plays or pauses, comma and full stop step back and forward one frame.
 */
import { $ } from './page.mjs';

const MAX_LISTED = 300; // commands listed as sentences (the marks show all of them)

/** One mark on the track, from x0 to x1 (fractions of the window), or a tick at x0. */
function mark(cls, x0, x1, title) {
  const el = document.createElement('span');
  el.className = cls;
  el.style.left = `${(x0 * 100).toFixed(3)}%`;
  if (x1 !== undefined) el.style.width = `${Math.max(0.4, (x1 - x0) * 100).toFixed(3)}%`;
  if (title) el.title = title;
  return el;
}

/** The window's marks on the track: backfilled spans, the edge's snapshots, the commands. */
function drawMarks(win, tl, table) {
  const box = $('timeline-marks');
  box.replaceChildren();
  for (const b of win.marks.backfill) {
    box.append(mark('tl-backfill', b.x0, b.x1, `${b.frames} backfilled states, ${tl.clockText(b.from)}–${tl.clockText(b.to)}`));
  }
  for (const s of win.marks.snaps) box.append(mark('tl-snap', s.x, undefined, `edge snapshot ${tl.clockText(s.at)}`));
  for (const m of tl.commandMarks(win.commands, win.from, win.to, table)) {
    const el = mark(`tl-cmd s${m.slot} o-${m.outcome}`, m.x, undefined, m.text);
    el.dataset.sender = m.sender;
    box.append(el);
  }
}

/** The window's senders and its commands as sentences, each a button that goes to its time. */
function listCommands(win, tl, table) {
  const senders = tl.sendersOf(win.commands);
  $('replay-cmd-count').textContent = `${win.commands.length}${win.commandsTruncated ? '+ (cut: pick a shorter window)' : ''} from ${senders.length} `
    + `sender${senders.length === 1 ? '' : 's'}`;
  $('replay-senders').replaceChildren(...senders.map((s) => {
    const li = document.createElement('li');
    li.innerHTML = `<span class="dot s${s.slot}"></span>`;
    li.append(`${s.label}: ${s.count}`);
    return li;
  }));
  const marks = tl.commandMarks(win.commands, win.from, win.to, table);
  const items = marks.slice(0, MAX_LISTED).map((m) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.at = String(m.at);
    b.className = `cmd o-${m.outcome}`;
    b.innerHTML = `<span class="dot s${m.slot}"></span>`;
    b.append(m.text);
    li.append(b);
    return li;
  });
  if (marks.length > MAX_LISTED) {
    const li = document.createElement('li');
    li.textContent = `… and ${marks.length - MAX_LISTED} more (marked on the track)`;
    items.push(li);
  }
  $('replay-cmds').replaceChildren(...items);
}

/**
 * @param {object} o
 * @param {object} o.timeline twin/browser/timeline.js
 * @param {number[]} o.speeds twin/browser/replay.js SPEEDS
 * @param {object} o.table the plant's table (the tags' names in the sentences)
 * @param {(from: number, to: number) => void} o.load
 * @param {(op: string, arg?: number) => void} o.control
 * @param {() => void} o.live
 */
export function createReplayBar(o) {
  const tl = o.timeline;
  let win = null; // the loaded window
  let st = null; // the replay's state as the worker last said
  let lastSeek = 0;
  let seekTimer = null;

  for (const p of tl.QUICK_PICKS) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = p.label;
    b.dataset.pick = p.id;
    b.disabled = true;
    b.addEventListener('click', () => {
      const w = tl.pickWindow(p.id, Date.now());
      $('replay-from').value = tl.toLocalInput(w.from);
      $('replay-to').value = tl.toLocalInput(w.to);
      o.load(w.from, w.to);
    });
    $('replay-picks').append(b);
  }
  for (const x of o.speeds) {
    const label = document.createElement('label');
    label.innerHTML = `<input type="radio" name="replay-speed" value="${x}"${x === 1 ? ' checked' : ''}> ${x}×`;
    label.querySelector('input').addEventListener('change', () => o.control('speed', x));
    $('replay-speeds').append(label);
  }
  $('replay-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const from = tl.fromLocalInput($('replay-from').value);
    const to = tl.fromLocalInput($('replay-to').value);
    if (!(from < to)) { status('Pick a start before the end.', true); $('replay-from').focus(); return; }
    o.load(from, to);
  });
  const toggle = () => o.control(st && st.playing ? 'pause' : 'play');
  $('replay-play').addEventListener('click', toggle);
  $('replay-back').addEventListener('click', () => o.control('step', -1));
  $('replay-fwd').addEventListener('click', () => o.control('step', 1));
  $('replay-live').addEventListener('click', () => o.live());
  const pos = $('replay-pos');
  // Dragging sends a seek at most every 100 ms, and the last one when it is let go.
  const seek = () => {
    if (!win) return;
    clearTimeout(seekTimer);
    const t = win.from + Number(pos.value);
    const wait = 100 - (Date.now() - lastSeek);
    if (wait <= 0) { lastSeek = Date.now(); o.control('seek', t); } else seekTimer = setTimeout(seek, wait);
  };
  pos.addEventListener('input', seek);
  pos.addEventListener('keydown', (ev) => {
    if (ev.key === ' ') { ev.preventDefault(); toggle(); } else if (ev.key === ',') o.control('step', -1);
    else if (ev.key === '.') o.control('step', 1);
  });
  $('replay-cmds').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-at]');
    if (b) o.control('seek', Number(b.dataset.at));
  });

  function status(text, error = false) {
    $('replay-status').textContent = text;
    $('replay-status').classList.toggle('error', error);
  }

  function controls(on) {
    for (const id of ['replay-back', 'replay-play', 'replay-fwd', 'replay-pos']) $(id).disabled = !on;
    $('replay-speeds').disabled = !on;
  }

  return {
    /** Whether a window may be loaded (a token is known and the cloud serves the history). */
    enable(on) {
      for (const el of [$('replay-from'), $('replay-to'), $('replay-load'), ...$('replay-picks').children]) el.disabled = !on;
      if (on && !$('replay-from').value) {
        const w = tl.pickWindow('last-5m', Date.now());
        $('replay-from').value = tl.toLocalInput(w.from);
        $('replay-to').value = tl.toLocalInput(w.to);
      }
    },
    loading(from, to) {
      status(`Loading ${tl.clockText(from)}–${tl.clockText(to)} from the plant history…`);
    },
    /** A window came: its marks, commands and the position's range. */
    loaded(w) {
      win = w;
      pos.max = String(Math.max(0, w.to - w.from));
      // An arrow key moves about 1/600 of the window (a tenth of a second at least): 0.5 s in 5 minutes.
      pos.step = String(Math.max(100, Math.round((w.to - w.from) / 600 / 100) * 100));
      pos.value = '0';
      $('replay-start').textContent = tl.clockText(w.from);
      $('replay-end').textContent = tl.clockText(w.to);
      $('replay-flag').hidden = false;
      $('replay-live').disabled = false;
      controls(true);
      drawMarks(w, tl, o.table);
      listCommands(w, tl, o.table);
      const cut = w.truncated ? ` The history cut the window at ${tl.clockText(w.to)}: pick a shorter one for the rest.` : '';
      const unknown = w.unknown.length ? ` Not in the history before the window (shown as – until they change): ${w.unknown.join(', ')}.` : '';
      status(`Replaying ${tl.clockText(w.from)}–${tl.clockText(w.to)}: ${w.frames} states, ${w.commands.length} commands. Press Play.${cut}${unknown}`);
    },
    /** Where the replay is (the worker's replay-state). */
    state(s) {
      st = s;
      if (!win) return;
      pos.value = String(Math.round(s.pos - win.from));
      pos.setAttribute('aria-valuetext', `${tl.clockText(s.pos, true)}${s.playing ? `, playing at ${s.speed}×` : ', paused'}`);
      $('timeline-cursor').style.left = `${(((s.pos - win.from) / Math.max(1, win.to - win.from)) * 100).toFixed(3)}%`;
      $('replay-now').textContent = tl.clockText(s.pos, true);
      $('replay-play').textContent = s.playing ? 'Pause' : 'Play';
      $('replay-play').setAttribute('aria-pressed', String(s.playing));
      const radio = document.querySelector(`input[name=replay-speed][value="${s.speed}"]`);
      if (radio) radio.checked = true;
    },
    error(code, message) {
      status(`${code}: ${message}`, true);
    },
    /** Back to live: the bar keeps the window's inputs, the rest is cleared. */
    live() {
      win = null;
      st = null;
      controls(false);
      $('replay-flag').hidden = true;
      $('replay-live').disabled = true;
      $('timeline-marks').replaceChildren();
      $('replay-cmds').replaceChildren();
      $('replay-senders').replaceChildren();
      $('replay-cmd-count').textContent = '0';
      for (const id of ['replay-start', 'replay-now', 'replay-end']) $(id).textContent = '–';
      status('Live: the plant as it is now. Pick a window to replay it again.');
    },
    get window() { return win; },
    get position() { return st; },
  };
}
