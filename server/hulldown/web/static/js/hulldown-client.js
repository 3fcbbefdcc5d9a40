// hulldown-client.js - a small ES module client of the hulldown protocol (SPEC.md), for the
// browser and for Node. No build step, one import (./jsonpatch.js). Types: hulldown-client.d.ts.
//
// The same promises as the Python client (hulldown.client):
// - hello -> welcome (the full view) -> patches applied in seq order; `client.view` is current
//   once `connect()` resolves (the client sends `ping` after `hello`; the server answers frames in
//   order, so the pong comes after the welcome or the resumed patches);
// - `act()` gives every action an `action_id` and keeps it until the server answers: if the
//   connection drops first, the same action id is sent again after reconnecting, and the
//   server's dedupe answers a second delivery with `ack {duplicate: true}` - never a second event;
// - a patch whose seq is not the next one is a gap: the client sends `resume {from_seq}` and
//   ignores patches until the missing ones arrive (a `resync` replaces the view whole);
// - a lost connection is re-opened with exponential backoff and jitter, saying
//   `hello {resume_from}` so the server sends only what was missed; the fatal error
//   `store_unavailable` (close 1013, "try again later") is such a loss, not a refusal;
// - `rate_limited` means the server dropped one frame sent before the error, without saying
//   which: after a pause the client re-sends the unanswered acts (and the outstanding resume)
//   sent before it, a few at a time, with one re-send scheduled however many errors arrive;
// - the side token travels in the first websocket frame (hello), never in a URL; HTTP helpers
//   send it as `Authorization: Bearer`.
import { applyPatch, PatchError } from "./jsonpatch.js";

export const PROTOCOL_VERSION = 1;
const RATE_LIMIT_RETRY_MS = 250; // the pause before re-sending what a rate_limited error may have dropped
const RATE_LIMIT_RESEND_BATCH = 10; // frames re-sent per pause: 40 a second, under the server's 50
const RETRY_LATER_CODES = new Set(["store_unavailable"]); // fatal errors that mean "reconnect shortly"
const NO_FRAME = 0; // frame marks count from 1 on each connection

export class ClientError extends Error {}

export class FatalError extends ClientError {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
    this.serverMessage = message;
  }
}

export class ConnectionLost extends ClientError {}

export class TimeoutError extends ClientError {}

// Delays initial * factor^n capped at maximum, each scaled by a random factor in
// [1 - jitter, 1 + jitter]; maxAttempts null retries forever; reset() after a good connection.
export class Backoff {
  constructor({ initial = 100, factor = 2, maximum = 5000, jitter = 0.2, maxAttempts = null, random = Math.random } = {}) {
    Object.assign(this, { initial, factor, maximum, jitter, maxAttempts, random });
    this.attempts = 0;
  }

  nextDelay() {
    if (this.maxAttempts !== null && this.attempts >= this.maxAttempts) {
      throw new ConnectionLost(`gave up after ${this.attempts} attempts`);
    }
    const base = Math.min(this.maximum, this.initial * this.factor ** this.attempts);
    this.attempts += 1;
    return base * (1 + this.jitter * (2 * this.random() - 1));
  }

  reset() {
    this.attempts = 0;
  }
}

// A send on a dying socket fails quietly: what is pending is sent again on reconnect.
function sendQuietly(ws, message) {
  try {
    ws.send(JSON.stringify(message));
  } catch {
    // onclose follows
  }
}

function newActionId() {
  if (globalThis.crypto && typeof globalThis.crypto.randomUUID === "function") {
    return globalThis.crypto.randomUUID().replace(/-/g, "");
  }
  return `${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`;
}

// One websocket session to one match, surviving reconnects.
export class HulldownClient {
  // url: ws(s)://host/matches/{id}/live. Options: token (a side) or spectator: true (with
  // spectatorToken for a private match); WebSocket (a constructor, default globalThis.WebSocket);
  // backoff (a Backoff or its options); openTimeout / actTimeout in ms.
  constructor(url, { token = null, spectator = false, spectatorToken = null, WebSocket = globalThis.WebSocket, backoff = null, openTimeout = 10000, actTimeout = 30000 } = {}) {
    if ((token === null) === !spectator) throw new ClientError("give either a side token or spectator: true");
    if (typeof WebSocket !== "function") throw new ClientError("no WebSocket implementation: pass options.WebSocket");
    Object.assign(this, { url, token, spectator, spectatorToken, openTimeout, actTimeout });
    this.WebSocketImpl = WebSocket;
    this.backoff = backoff instanceof Backoff ? backoff : new Backoff(backoff || {});
    this.view = null; // the view (a MatchState), kept current by patches
    this.seq = 0;
    this.matchId = null;
    this.role = null;
    this.welcome = null; // {role, delayed, delay_events, delay_seconds}
    this.status = "idle"; // idle | connecting | live | reconnecting | closed | refused: <code>
    this.failure = null;
    this.stats = { connections: 0, welcomes: 0, resyncs: 0, patches: 0, duplicates: 0, gaps: 0, resumes: 0, resent: 0, patchErrors: 0, errors: [] };
    this.dropPatches = 0; // test hook: lose this many incoming patches, as a network could
    this.ws = null;
    this.ready = false;
    this.closing = false;
    this.connectionNo = 0;
    this.resumeFrom = null;
    this.reconnectTimer = null; // set while a reconnect waits for its backoff delay
    this.rateLimitTimer = null; // set while a re-send after rate_limited waits for its pause
    // Acts and resumes get increasing marks on each connection; a rate_limited error may have
    // dropped any of them sent up to limitedMark.
    this.frameMarks = NO_FRAME;
    this.limitedMark = NO_FRAME;
    this.resumeMark = NO_FRAME;
    this.pending = new Map(); // action_id -> {message, resolve, reject, sentOn, sentMark, promise}
    this.waiters = new Set();
    this.listeners = { view: new Set(), status: new Set(), message: new Set() };
  }

  // ---- events: on("view", (view, seq, reason) => ...), on("status", (status) => ...),
  // on("message", (message) => ...). Returns a function that unsubscribes.
  on(kind, listener) {
    const set = this.listeners[kind];
    if (!set) throw new ClientError(`unknown event ${kind}`);
    set.add(listener);
    return () => set.delete(listener);
  }

  emit(kind, ...args) {
    for (const listener of this.listeners[kind]) listener(...args);
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.emit("status", status);
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  // Start the session; resolves when the view is current (rejects with FatalError if the server
  // refuses, TimeoutError after openTimeout). While a reconnect waits for its backoff delay it
  // only waits: the reconnect opens the socket, never a second one.
  connect() {
    if (this.closing) return Promise.reject(new ClientError("client closed"));
    if (!this.ws && !this.ready && this.reconnectTimer === null && !this.failure) this.open();
    return this.waitUntil(() => this.ready, this.openTimeout);
  }

  close() {
    this.closing = true;
    this.failPending(new ClientError("client closed"));
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    clearTimeout(this.rateLimitTimer);
    this.rateLimitTimer = null;
    if (this.ws) this.ws.close();
    this.ws = null;
    this.ready = false;
    this.setStatus("closed");
  }

  // Test hook: drop the socket as a network failure would; the client reconnects by itself.
  dropConnection() {
    if (this.ws) this.ws.close();
  }

  open() {
    this.setStatus(this.connectionNo === 0 ? "connecting" : "reconnecting");
    const ws = new this.WebSocketImpl(this.url);
    this.ws = ws;
    this.connectionNo += 1;
    const number = this.connectionNo;
    const nonce = `ready-${number}`;
    ws.onopen = () => {
      this.resumeFrom = null;
      this.frameMarks = this.limitedMark = this.resumeMark = NO_FRAME;
      const hello = { type: "hello", protocol: PROTOCOL_VERSION };
      if (this.token !== null) hello.token = this.token;
      if (this.spectator) hello.spectator = true;
      if (this.spectatorToken) hello.spectator_token = this.spectatorToken;
      if (this.view !== null) hello.resume_from = this.seq;
      ws.send(JSON.stringify(hello));
      ws.send(JSON.stringify({ type: "ping", nonce }));
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      let message;
      try {
        message = JSON.parse(typeof event.data === "string" ? event.data : String(event.data));
      } catch {
        return;
      }
      this.handle(ws, message, nonce);
      this.emit("message", message);
      this.checkWaiters();
    };
    ws.onerror = () => {}; // onclose follows
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.ready = false;
      if (this.closing || this.failure) return;
      let delay;
      try {
        delay = this.backoff.nextDelay();
      } catch (error) {
        this.giveUp(error);
        return;
      }
      this.setStatus("reconnecting");
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        if (!this.closing) this.open();
      }, delay);
    };
  }

  giveUp(error) {
    this.failure = error;
    this.failPending(error);
    this.checkWaiters();
  }

  handle(ws, message, nonce) {
    switch (message.type) {
      case "welcome":
        this.stats.welcomes += 1;
        this.matchId = message.match_id;
        this.role = message.role;
        this.welcome = { role: message.role, delayed: !!message.delayed, delay_events: message.delay_events || 0, delay_seconds: message.delay_seconds || 0 };
        this.reset(message.seq, message.view, "welcome");
        break;
      case "resync":
        this.stats.resyncs += 1;
        this.reset(message.seq, message.view, "resync");
        break;
      case "patch":
        if (this.dropPatches > 0) {
          this.dropPatches -= 1;
          break;
        }
        this.patch(ws, message);
        break;
      case "ack":
      case "rejected": {
        const pending = this.pending.get(message.action_id);
        if (pending) {
          this.pending.delete(message.action_id);
          pending.resolve(message);
        }
        break;
      }
      case "pong":
        if (message.nonce === nonce && !this.ready) {
          this.ready = true;
          this.backoff.reset();
          this.stats.connections += 1;
          this.setStatus("live");
          this.resendPending();
        }
        break;
      case "error":
        this.onError(ws, message);
        break;
      default:
        break; // SPEC: ignore message types this client does not know
    }
  }

  onError(ws, message) {
    if (message.fatal && !RETRY_LATER_CODES.has(message.code)) {
      this.setStatus(`refused: ${message.code}`);
      this.giveUp(new FatalError(message.code, message.message));
      ws.close();
      return;
    }
    this.stats.errors.push(message);
    if (message.fatal) {
      ws.close(); // SPEC 6.1: retry shortly (the server closes 1013): onclose reconnects
    } else if (message.code === "rate_limited") {
      this.onRateLimited();
    }
  }

  reset(seq, view, reason) {
    this.view = view;
    this.seq = seq;
    this.resumeFrom = null;
    this.emit("view", this.view, this.seq, reason);
  }

  patch(ws, message) {
    if (this.view === null) return;
    if (message.seq <= this.seq) {
      this.stats.duplicates += 1;
      return;
    }
    if (message.seq > this.seq + 1) {
      this.stats.gaps += 1;
      if (this.resumeFrom !== this.seq) this.sendResume(ws);
      return;
    }
    try {
      this.view = applyPatch(this.view, message.ops);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      // The view and the server disagree: start again from a fresh welcome.
      this.stats.patchErrors += 1;
      this.view = null;
      ws.close();
      return;
    }
    this.seq = message.seq;
    this.resumeFrom = null;
    this.stats.patches += 1;
    this.emit("view", this.view, this.seq, "patch");
  }

  // ---- acting --------------------------------------------------------------------------------

  // Send an action; resolves with the server's answer ({type: "ack", seq, duplicate} or
  // {type: "rejected", code, rule, message, values}). Safe while disconnected: the action goes
  // out when the connection is back, and again with the same action id until answered. A second
  // act() with the id of an action still waiting returns the same promise (one answer, the
  // first call's timer; close() rejects it).
  act(action, { actionId = null, expect = null, timeout = null } = {}) {
    if (this.spectator) return Promise.reject(new ClientError("spectators can not act"));
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new ClientError("client closed"));
    const id = actionId || newActionId();
    const existing = this.pending.get(id);
    if (existing) return existing.promise;
    const message = { type: "act", action_id: id, action };
    if (expect !== null) message.expect = expect;
    let entry;
    const promise = new Promise((resolve, reject) => {
      entry = { message, resolve, reject, sentOn: -1, sentMark: NO_FRAME };
    });
    entry.promise = promise;
    this.pending.set(id, entry);
    const timer = setTimeout(() => {
      if (this.pending.get(id) === entry) {
        this.pending.delete(id);
        entry.reject(new TimeoutError(`no answer to action ${id} in ${timeout || this.actTimeout} ms`));
      }
    }, timeout || this.actTimeout);
    promise.then(() => clearTimeout(timer), () => clearTimeout(timer));
    if (this.ready) this.send(entry);
    return promise;
  }

  nextFrameMark() {
    this.frameMarks += 1;
    return this.frameMarks;
  }

  send(entry) {
    if (!this.ws || !this.ready) return;
    if (entry.sentOn !== -1) this.stats.resent += 1;
    entry.sentOn = this.connectionNo;
    entry.sentMark = this.nextFrameMark();
    sendQuietly(this.ws, entry.message);
  }

  sendResume(ws) {
    this.resumeFrom = this.seq;
    this.resumeMark = this.nextFrameMark();
    this.stats.resumes += 1;
    sendQuietly(ws, { type: "resume", from_seq: this.seq });
  }

  resendPending() {
    for (const entry of this.pending.values()) {
      if (entry.sentOn !== this.connectionNo) this.send(entry);
    }
  }

  // ---- rate_limited: re-send what may have been dropped --------------------------------------

  // One frame sent before this error was dropped (the error does not say which): every error
  // moves the mark; one re-send at a time is scheduled however many errors arrive.
  onRateLimited() {
    this.limitedMark = this.frameMarks;
    if (this.rateLimitTimer === null) this.scheduleRateLimitResend();
  }

  scheduleRateLimitResend() {
    this.rateLimitTimer = setTimeout(() => {
      this.rateLimitTimer = null;
      if (this.resendDroppedBatch()) this.scheduleRateLimitResend();
    }, RATE_LIMIT_RETRY_MS);
  }

  // Acts sent on this connection before the last rate_limited and still unanswered (one whose
  // answer came meanwhile has left `pending`).
  actsMaybeDropped() {
    return [...this.pending.values()].filter((entry) => entry.sentOn === this.connectionNo && entry.sentMark <= this.limitedMark);
  }

  resumeMaybeDropped() {
    return this.resumeFrom !== null && this.resumeMark <= this.limitedMark;
  }

  // Re-send the outstanding resume and up to RATE_LIMIT_RESEND_BATCH frames in all; true while
  // more wait for the next pause. A reconnect re-sends everything anyway.
  resendDroppedBatch() {
    if (!this.ws || !this.ready) return false;
    let budget = RATE_LIMIT_RESEND_BATCH;
    if (this.resumeMaybeDropped()) {
      this.sendResume(this.ws);
      budget -= 1;
    }
    for (const entry of this.actsMaybeDropped().slice(0, budget)) this.send(entry);
    return this.actsMaybeDropped().length > 0 || this.resumeMaybeDropped();
  }

  failPending(error) {
    for (const entry of this.pending.values()) entry.reject(error);
    this.pending.clear();
  }

  // ---- waiting -------------------------------------------------------------------------------

  // Resolves once predicate() holds (checked after every message); rejects on timeout (ms) or
  // when the client gives up.
  waitUntil(predicate, timeout = 10000) {
    if (this.failure) return Promise.reject(this.failure);
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { predicate, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new TimeoutError(`condition not met in ${timeout} ms`));
      }, timeout);
      this.waiters.add(waiter);
    });
  }

  waitSeq(seq, timeout = 10000) {
    return this.waitUntil(() => this.view !== null && this.seq >= seq, timeout);
  }

  checkWaiters() {
    for (const waiter of [...this.waiters]) {
      if (this.failure) {
        this.waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.reject(this.failure);
      } else if (waiter.predicate()) {
        this.waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.resolve();
      }
    }
  }
}

// ---- HTTP ------------------------------------------------------------------------------------

export class HttpError extends Error {
  constructor(status, body) {
    super(`HTTP ${status}: ${JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
  }
}

function matchUrl(base, matchId, route, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) query.set(key, String(value));
  }
  const text = query.toString();
  return `${base.replace(/\/$/, "")}/matches/${encodeURIComponent(matchId)}${route}${text ? `?${text}` : ""}`;
}

async function requestJSON(method, url, { body = undefined, token = null } = {}) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const payload = text ? JSON.parse(text) : null;
  if (!response.ok) throw new HttpError(response.status, payload);
  return payload;
}

// POST /matches: {match_id, tokens: {a, b}, spectator_token, spectator_url, live_url}.
export function createMatch(base, request) {
  return requestJSON("POST", `${base.replace(/\/$/, "")}/matches`, { body: request });
}

// GET /matches/{id}/state[?at=]: {seq, hash, game_hash, view}.
export function getState(base, matchId, { at = null, token = null } = {}) {
  return requestJSON("GET", matchUrl(base, matchId, "/state", { at }), { token });
}

// GET /matches/{id}/log?from=&limit=: {from, total, entries} (the whole combat log, paged).
export function getLog(base, matchId, { from = 0, limit = 100, token = null } = {}) {
  return requestJSON("GET", matchUrl(base, matchId, "/log", { from, limit }), { token });
}

// POST /matches/{id}/check: what acting would answer now ({ok, at, seq, duplicate, rejected,
// facts}), without acting. `token` is a side token.
export function checkAction(base, matchId, token, action, { actionId = null, expect = null } = {}) {
  const body = { action };
  if (actionId) body.action_id = actionId;
  if (expect !== null) body.expect = expect;
  return requestJSON("POST", matchUrl(base, matchId, "/check"), { body, token });
}

// POST /matches/{id}/odds: the distribution of the action's outcomes at the match's current state
// (SPEC.md section 9), from the rules core with independent dice - never the match's. `token` is
// a side token. An illegal action rejects with HttpError(422, {error: {code, rule, message,
// values}}) - `odds_not_applicable` for an action that rolls nothing (undo, takebacks, concede).
export function odds(base, matchId, token, action, { method = null, samples = null, maxPlays = null, choices = null } = {}) {
  const body = { action };
  if (method !== null) body.method = method;
  if (samples !== null) body.samples = samples;
  if (maxPlays !== null) body.max_plays = maxPlays;
  if (choices !== null) body.choices = choices;
  return requestJSON("POST", matchUrl(base, matchId, "/odds"), { body, token });
}

// GET /matches/{id}/ruler?from=&to=: closest point to closest point, as the edition measures.
export function ruler(base, matchId, fromModel, toModel, { at = null, token = null } = {}) {
  return requestJSON("GET", matchUrl(base, matchId, "/ruler", { from: fromModel, to: toModel, at }), { token });
}

// GET /matches/{id}/sight?from=&to=[&weapon=]: visible, the facing hit, armour, hidden share.
export function sight(base, matchId, fromModel, toModel, { weapon = null, at = null, token = null } = {}) {
  return requestJSON("GET", matchUrl(base, matchId, "/sight", { from: fromModel, to: toModel, weapon, at }), { token });
}
