// The hub's websocket protocol (docs/protocol.md) for the pages: auth, subscribe with resume,
// commands with ids and results, events in seq order. Reconnects by itself and resumes from
// the last seq it saw: no gap, no duplicate, also across a hub restart. A ping every 10 s
// finds a connection that died silently (a cable pulled): no pong within 10 s, reconnect.
// With `onTables`, the hall's casino tables too: their states (`tables`), then each table's own
// stream, resumed the same way from the last seq seen of that table.

const PING_EVERY_MS = 10000;
// The hub closed the connection because this device logged in on another screen
// (transport/messages.py CLOSE_REPLACED): reconnecting would cut that one in turn.
const CLOSE_REPLACED = 4009;
// The credential already holds as many connections as the hub allows one (CLOSE_TOO_MANY):
// try again later, when one of them may have closed.
const CLOSE_TOO_MANY = 4010;
const TOO_MANY_RETRY_MS = 15000;

// A refusal of the hub: its code, its English message and, for a refusal of the hub's
// catalogue, the reason and parameters by which a page says it in its own language.
export class CommandError extends Error {
  constructor(code, message, reason = null, params = null) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.params = params || {};
  }
}

export async function fetchStart() {
  const response = await fetch('/api/start', { cache: 'no-store' });
  if (!response.ok) throw new Error(`/api/start: HTTP ${response.status}`);
  return response.json();
}

// /api/start, asked again every second until the hub answers (a kiosk may start before it);
// onWait() is called before each wait.
export async function awaitStart(onWait = () => {}) {
  for (;;) {
    try {
      return await fetchStart();
    } catch {
      onWait();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

// A staff-only data route (/api/hall, /api/acta): HTTP Basic with the staff user's name and
// password; the hub answers 202 while it checks the password off its event loop.
export async function fetchStaff(url, user, password, timeoutMs = 60000) {
  const auth = 'Basic ' + btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url, { headers: { Authorization: auth }, cache: 'no-store' });
    const body = response.status === 202 ? null : await response.json().catch(() => ({}));
    // 202: the password is being checked; 503 busy: the hub's checks are all taken. Any other
    // 503 (the store failing) is an answer, said as it is.
    if (response.status === 202 || (response.status === 503 && body.error && body.error.code === 'busy')) {
      if (Date.now() > deadline) throw new CommandError('timeout', `${url}: no answer`);
      const wait = Number(response.headers.get('Retry-After') || '0.3') * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(100, wait)));
      continue;
    }
    if (!response.ok) {
      const error = body.error || { code: `http_${response.status}`, message: url };
      throw new CommandError(error.code, error.message, error.reason || null, error.params || null);
    }
    return body;
  }
}

export class Hub {
  // auth: the first frame ({token} or {user, password}); channel: "caller" or "panel".
  // onTables(fresh, ids): the tables' ids in the hub's order and the states of those not
  // followed yet (each is then kept by onTableEvent(event), from the seq its state reflects).
  // onShowings(showings): the balls of a set shown to the camera so far, pushed when another
  // connection shows one or discards them (null: none kept).
  constructor({ auth, channel = 'caller', afterSeq = 0, onEvent, onStatus, onAuth, onTables, onTableEvent, onShowings }) {
    this.auth = auth;
    this.channel = channel;
    this.lastSeq = afterSeq;
    this.lastTime = null; // the time of the event at lastSeq, once one was seen
    this.headSeq = 0; // the log's head when this connection started: events up to it are replay
    this.onEvent = onEvent || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onAuth = onAuth || (() => {});
    this.onTables = onTables || null;
    this.onTableEvent = onTableEvent || (() => {});
    this.onShowings = onShowings || (() => {});
    this.tableSeqs = new Map(); // table id -> the last seq seen of its stream
    this.nextId = 1;
    this.pending = new Map();
    this.stopped = false;
    this.retry = 0;
    this.ws = null;
    this.principal = null;
  }

  get url() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    return `${scheme}://${location.host}/ws`;
  }

  async start() {
    this.stopped = false;
    this.onStatus('connecting');
    try {
      this.headSeq = (await fetchStart()).seq;
    } catch (error) {
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onmessage = (message) => this.receive(ws, message.data);
    ws.onclose = (event) => this.closed(ws, event.code);
    ws.onerror = () => {};
    this.lastPong = Date.now();
    clearInterval(this.pinger);
    this.pinger = setInterval(() => this.ping(ws), PING_EVERY_MS);
  }

  ping(ws) {
    if (ws !== this.ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastPong > 2 * PING_EVERY_MS) {
      ws.close(4000, 'no pong');
      this.closed(ws); // do not wait for the closing handshake of a dead connection
      return;
    }
    this.send(ws, { type: 'ping', id: this.nextId++ });
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(1000, 'page closed');
  }

  send(ws, frame) {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }

  receive(ws, data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    switch (message.type) {
      case 'auth_required':
        this.send(ws, { type: 'auth', ...this.auth });
        break;
      case 'auth_ok':
        this.principal = message;
        this.retry = 0;
        this.onAuth(message);
        this.subscribeId = this.nextId++;
        this.send(ws, {
          type: 'subscribe',
          id: this.subscribeId,
          after_seq: this.lastSeq,
          // the time of the last event seen: a log restored and gone on holds another there
          ...(this.lastTime ? { after_time: this.lastTime } : {}),
          channel: this.channel,
        });
        this.onStatus('live');
        if (this.onTables) this.followTables(ws);
        break;
      case 'auth_invalid':
        this.stopped = true;
        this.onStatus('auth_failed', message);
        break;
      case 'event':
        if (message.table) {
          this.tableEvent(message);
          break;
        }
        if (message.seq <= this.lastSeq) return; // already seen
        this.lastSeq = message.seq;
        this.lastTime = message.time;
        this.onEvent(message, { replay: message.seq <= this.headSeq });
        break;
      case 'pong':
        this.lastPong = Date.now();
        break;
      case 'showings':
        this.onShowings(message.showings);
        break;
      case 'result': {
        if (message.id === this.subscribeId && !message.success) {
          // the log no longer holds what this page saw: start again; anything else (the
          // store failing): connect again, with the usual growing delay
          if (message.error.code === 'not_in_log') this.logWentBack();
          else ws.close(4000, message.error.code);
          break;
        }
        const waiting = this.pending.get(message.id);
        if (!waiting) return;
        this.pending.delete(message.id);
        if (message.success) waiting.resolve(message.result || {});
        else {
          const { code, message: text, reason, params } = message.error;
          waiting.reject(new CommandError(code, text, reason, params));
        }
        break;
      }
      default:
        break;
    }
  }

  // The hall's log ends before the last event this page saw: restored from an older copy, so
  // what the page shows after that point is no longer a fact. The page starts again from the
  // log (a staff screen asks for its login again).
  logWentBack() {
    this.stop();
    this.onStatus('log_went_back');
    location.reload();
  }

  // The tables' states, then each table's stream after the last seq seen of it (a table not
  // followed yet, or whose log went back, from the seq of its state).
  async followTables(ws) {
    let answer;
    try {
      answer = await this.request(ws, { type: 'tables' });
    } catch {
      return; // the connection went: the next one asks again
    }
    const ids = answer.tables.map((state) => state.table);
    for (const id of [...this.tableSeqs.keys()]) {
      if (!ids.includes(id)) this.tableSeqs.delete(id);
    }
    const fresh = answer.tables.filter((state) => {
      const seen = this.tableSeqs.get(state.table);
      return seen === undefined || seen > state.seq;
    });
    for (const state of fresh) this.tableSeqs.set(state.table, state.seq);
    this.onTables(fresh, ids);
    for (const id of ids) {
      this.send(ws, { type: 'subscribe', id: this.nextId++, stream: `table:${id}`, after_seq: this.tableSeqs.get(id) });
    }
  }

  tableEvent(message) {
    const seen = this.tableSeqs.get(message.table);
    if (seen === undefined || message.seq <= seen) return; // not followed, or already seen
    this.tableSeqs.set(message.table, message.seq);
    this.onTableEvent(message);
  }

  closed(ws, code) {
    if (ws !== this.ws) return;
    this.ws = null;
    clearInterval(this.pinger);
    for (const waiting of this.pending.values()) {
      waiting.reject(new CommandError('disconnected', 'disconnected'));
    }
    this.pending.clear();
    if (code === CLOSE_REPLACED) {
      this.stopped = true; // until the page is told to take the device back (start())
      this.onStatus('replaced');
      return;
    }
    if (this.stopped) return;
    if (code === CLOSE_TOO_MANY) {
      this.onStatus('too_many');
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.start(), TOO_MANY_RETRY_MS);
      return;
    }
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    if (this.stopped) return;
    this.onStatus('reconnecting');
    const delay = Math.min(5000, 300 * 2 ** this.retry);
    this.retry = Math.min(this.retry + 1, 6);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.start(), delay);
  }

  // A command by name; resolves with the result, rejects with a CommandError (code, message).
  command(name, args = {}) {
    return this.ask({ type: 'command', command: name, args });
  }

  // A command to a casino table (`table`: its id), as command() is to the hall.
  tableCommand(table, name, args = {}) {
    return this.ask({ type: 'command', table, command: name, args });
  }

  // Every table's state now, as this connection may see it (the `tables` answer).
  tables() {
    return this.ask({ type: 'tables' });
  }

  // A frame on the connection once it is authenticated; rejected at once when there is none.
  ask(frame) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.principal) {
      return Promise.reject(new CommandError('disconnected', 'disconnected'));
    }
    return this.request(ws, frame);
  }

  // A frame that gets a `result`: resolves with its result, rejects with a CommandError.
  request(ws, frame) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send(ws, { ...frame, id });
    });
  }
}
