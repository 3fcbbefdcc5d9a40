// The JS client against scripted fake servers (a `ws` WebSocketServer in this process), in the
// situations a real server reaches only under faults (SPEC.md 6.1): the store unavailable at a
// reconnect (retry, not a refusal), connect() while a reconnect waits, an action retried with its
// id, rate_limited dropping acts and a resume (one coalesced re-send of what may have been
// dropped, a bounded number of frames). Needs no server: run with npm test (node --test test/).
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { WebSocketServer } from "ws";
import { ClientError, HulldownClient, TimeoutError } from "../hulldown-client.js";

const WebSocket = globalThis.WebSocket ?? (await import("ws")).WebSocket;
const WELCOME_SEQ = 5; // the fake match's seq when a client connects
const STORE_UNAVAILABLE_CLOSE = 1013; // "try again later" (SPEC 6.1)
const SERVER_ERROR_CLOSE = 1011;
const HANG_GUARD_MS = 10000; // a call the client should settle fails the test instead of hanging
const SHORT_TIMEOUT_MS = 300; // an act timeout meant to expire while the server holds the answer
const SERVER_RATE = 50; // frames per second, burst twice that: the live socket's default
const CONCURRENT_ACTS = 150; // more than the burst, so the limiter drops some of them
const MAX_ACT_FRAMES = Math.floor((CONCURRENT_ACTS * 3) / 2); // each act once, the ~50 over the burst twice
const RECONNECT_DELAY_MS = 150;
const END = { type: "end_phase" };

const cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); // even when a test failed
});

// ---- the fake server ---------------------------------------------------------------------------

const welcome = (seq = WELCOME_SEQ) => ({ type: "welcome", match_id: "m", role: "a", seq, view: { log: [] }, protocol: 1, delay_events: 0, delay_seconds: 0, delayed: false });
// The event at seq appends seq to the view's log: the log shows what was applied.
const patch = (seq) => ({ type: "patch", seq, ops: [{ op: "add", path: "/log/-", value: seq }] });
const ack = (actionId, seq, duplicate = false) => ({ type: "ack", action_id: actionId, seq, duplicate });
const error = (code, fatal = false) => ({ type: "error", code, message: `fake ${code}`, fatal });
const send = (socket, message) => socket.send(JSON.stringify(message));

// Appends each new action_id once (patch, then ack) and answers a second delivery with
// ack(duplicate) and the original seq, as the server's dedupe does.
class FakeMatch {
  constructor() {
    this.seq = WELCOME_SEQ;
    this.appended = new Map();
  }

  answer(socket, act) {
    if (this.appended.has(act.action_id)) {
      send(socket, ack(act.action_id, this.appended.get(act.action_id), true));
      return;
    }
    this.seq += 1;
    this.appended.set(act.action_id, this.seq);
    send(socket, patch(this.seq));
    send(socket, ack(act.action_id, this.seq));
  }
}

// Serves onFrame({number, socket, frame}) for every frame a client sends (connections numbered
// from 1); a ping is answered with its pong first. Resolves with what the server saw.
async function fakeLive(onFrame) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const seen = {
    url: `ws://127.0.0.1:${server.address().port}/matches/m/live`,
    connections: [], // the frames of every connection, in order
    open: 0,
    frames(type) {
      return this.connections.flat().filter((frame) => frame.type === type);
    },
    actsOf(actionId) {
      return this.frames("act").filter((act) => act.action_id === actionId).length;
    },
  };
  server.on("connection", (socket) => {
    const frames = [];
    seen.connections.push(frames);
    seen.open += 1;
    const number = seen.connections.length;
    socket.on("close", () => (seen.open -= 1));
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data));
      frames.push(frame);
      if (frame.type === "ping") send(socket, { type: "pong", nonce: frame.nonce });
      onFrame({ number, socket, frame });
    });
  });
  cleanups.push(async () => {
    for (const socket of server.clients) socket.terminate();
    server.close();
    await once(server, "close");
  });
  return seen;
}

function client(url, options = {}) {
  const opened = new HulldownClient(url, { WebSocket, token: "t", backoff: { initial: 20, maximum: 200 }, ...options });
  cleanups.push(() => opened.close());
  return opened;
}

const rateLimitedErrors = (c) => c.stats.errors.filter((e) => e.code === "rate_limited").length;

// Settles with {value} or {error}, or rejects after HANG_GUARD_MS if it never settles.
function settled(promise, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never settled`)), HANG_GUARD_MS);
  });
  const outcome = promise.then((value) => ({ value }), (error) => ({ error }));
  return Promise.race([outcome, guard]).finally(() => clearTimeout(timer));
}

function refuseWithStoreUnavailable(socket) {
  send(socket, error("store_unavailable", true));
  socket.close(STORE_UNAVAILABLE_CLOSE);
}

// ---- store_unavailable: reconnect with backoff, do not give up --------------------------------

test("store_unavailable at a reconnect is retried and the pending act goes through", async () => {
  const match = new FakeMatch();
  const fake = await fakeLive(({ number, socket, frame }) => {
    if (frame.type === "hello" && number === 2) refuseWithStoreUnavailable(socket);
    else if (frame.type === "hello" && number === 1) send(socket, welcome());
    else if (frame.type === "act" && number === 1) socket.close(SERVER_ERROR_CLOSE); // lost before the answer
    else if (frame.type === "act") match.answer(socket, frame);
  });
  const a = client(fake.url);
  await a.connect();
  const answer = await settled(a.act(END, { actionId: "through-the-outage", timeout: HANG_GUARD_MS }), "the act");
  assert.equal(answer.error, undefined);
  assert.equal(answer.value.type, "ack");
  assert.equal(answer.value.seq, WELCOME_SEQ + 1);
  assert.equal(a.failure, null);
  assert.equal(a.status, "live");
  assert.deepEqual(a.stats.errors.map((e) => e.code), ["store_unavailable"]);
  assert.equal(fake.connections.length, 3);
  assert.equal(a.stats.connections, 2); // live twice
  assert.deepEqual(fake.frames("hello").map((hello) => hello.resume_from), [undefined, WELCOME_SEQ, WELCOME_SEQ]);
  assert.equal(fake.actsOf("through-the-outage"), 2); // sent, lost, sent again
});

test("connect() waits out a store outage", async () => {
  const fake = await fakeLive(({ number, socket, frame }) => {
    if (frame.type === "hello" && number === 1) refuseWithStoreUnavailable(socket);
    else if (frame.type === "hello") send(socket, welcome());
  });
  const a = client(fake.url);
  const connected = await settled(a.connect(), "connect()");
  assert.equal(connected.error, undefined);
  assert.equal(a.failure, null);
  assert.equal(a.seq, WELCOME_SEQ);
  assert.equal(fake.connections.length, 2);
});

// ---- connect() while a reconnect waits: one socket ----------------------------------------------

test("connect() while a reconnect waits for its backoff opens no second socket", async () => {
  const fake = await fakeLive(({ socket, frame }) => {
    if (frame.type === "hello") send(socket, welcome());
  });
  const a = client(fake.url, { backoff: { initial: RECONNECT_DELAY_MS, maximum: RECONNECT_DELAY_MS, jitter: 0 } });
  await a.connect();
  const reconnecting = new Promise((resolve) => a.on("status", (status) => status === "reconnecting" && resolve()));
  a.dropConnection();
  await reconnecting; // the socket is gone, the reconnect timer runs
  await a.connect(); // resolves when the reconnect is live
  await new Promise((resolve) => setTimeout(resolve, 2 * RECONNECT_DELAY_MS)); // past the backoff delay
  assert.equal(fake.connections.length, 2);
  assert.equal(fake.open, 1);
  assert.equal(a.status, "live");
  assert.equal(a.stats.connections, 2);
});

// ---- the same action id while the first call waits: one answer, one timer ---------------------

test("a retry with the same action id shares the first call's promise; close() rejects it", async () => {
  const fake = await fakeLive(({ socket, frame }) => {
    if (frame.type === "hello") send(socket, welcome()); // acts are never answered
  });
  const a = client(fake.url);
  await a.connect();
  const timedOut = a.act(END, { actionId: "X", timeout: SHORT_TIMEOUT_MS });
  assert.equal(a.act(END, { actionId: "X" }), timedOut);
  assert.ok((await settled(timedOut, "the act")).error instanceof TimeoutError);
  const waiting = a.act(END, { actionId: "Y" });
  const retry = a.act(END, { actionId: "Y" });
  a.close();
  for (const call of [waiting, retry]) assert.ok((await settled(call, "the act")).error instanceof ClientError);
  assert.equal(fake.actsOf("X"), 1); // the retry sent nothing of its own
});

// ---- rate_limited: one re-send of what may have been dropped, after a pause ---------------------

test("rate_limited re-sends once only the unanswered acts sent before it", async () => {
  // A is answered after the errors (its answer was in flight), B and C are dropped (two errors),
  // D is sent after the errors: only B and C are sent again, once each.
  const match = new FakeMatch();
  const held = [];
  const fake = await fakeLive(({ socket, frame }) => {
    if (frame.type === "hello") send(socket, welcome());
    if (frame.type !== "act") return;
    const firstDelivery = fake.actsOf(frame.action_id) === 1;
    if (["A", "D"].includes(frame.action_id) && firstDelivery) {
      held.push(frame); // answered later
    } else if (["B", "C"].includes(frame.action_id) && firstDelivery) {
      send(socket, error("rate_limited"));
      if (frame.action_id === "C") match.answer(socket, held.shift()); // A's answer, after the errors
    } else {
      match.answer(socket, frame);
      if (frame.action_id === "C") match.answer(socket, held.shift()); // D
    }
  });
  const a = client(fake.url);
  await a.connect();
  const firstThree = ["A", "B", "C"].map((id) => a.act(END, { actionId: id }));
  await a.waitUntil(() => rateLimitedErrors(a) === 2);
  const late = a.act(END, { actionId: "D" });
  const answers = await settled(Promise.all([...firstThree, late]), "the acts");
  assert.equal(answers.error, undefined);
  assert.deepEqual(answers.value.map((answer) => answer.type), ["ack", "ack", "ack", "ack"]);
  assert.deepEqual(Object.fromEntries(["A", "B", "C", "D"].map((id) => [id, fake.actsOf(id)])), { A: 1, B: 2, C: 2, D: 1 });
  assert.equal(a.stats.resent, 2);
});

// The live socket's token bucket (server/hulldown/web/rate_limit.py): rate a second, burst 2 * rate.
class TokenBucket {
  constructor(rate) {
    this.rate = rate;
    this.capacity = 2 * rate;
    this.tokens = this.capacity;
    this.stamp = performance.now();
  }

  allow() {
    const now = performance.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.stamp) / 1000) * this.rate);
    this.stamp = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

test("rate_limited acts do not snowball against a token bucket", async () => {
  // 150 acts at once against the server's limiter (50 a second, burst 100): every act is appended
  // once and the frames the server reads stay close to the number of acts.
  const match = new FakeMatch();
  const limiters = new Map();
  let read = 0;
  const fake = await fakeLive(({ number, socket, frame }) => {
    if (frame.type === "hello") {
      limiters.set(number, new TokenBucket(SERVER_RATE));
      send(socket, welcome());
      return;
    }
    read += 1;
    if (!limiters.get(number).allow()) send(socket, error("rate_limited"));
    else if (frame.type === "act") match.answer(socket, frame);
  });
  const a = client(fake.url, { actTimeout: HANG_GUARD_MS });
  await a.connect();
  const answers = await settled(Promise.all(Array.from({ length: CONCURRENT_ACTS }, () => a.act(END))), "the acts");
  assert.equal(answers.error, undefined);
  assert.ok(answers.value.every((answer) => answer.type === "ack"));
  const seqs = answers.value.map((answer) => answer.seq).sort((x, y) => x - y);
  assert.deepEqual(seqs, Array.from({ length: CONCURRENT_ACTS }, (_, i) => WELCOME_SEQ + 1 + i));
  assert.equal(match.appended.size, CONCURRENT_ACTS);
  assert.ok(rateLimitedErrors(a) > 0, "the limiter dropped no act");
  const actFrames = fake.frames("act").length;
  assert.ok(actFrames <= MAX_ACT_FRAMES, `${actFrames} act frames for ${CONCURRENT_ACTS} acts`);
  assert.equal(read, actFrames + 1); // and the ping: no resume, nothing else
});

test("a resume dropped by the rate limit is sent again", async () => {
  // A gap (patch 7 without 6) sends resume {from_seq: 5}; the server drops it with rate_limited
  // and more patches come (still a gap); the resume is sent again and the view catches up.
  let resumes = 0;
  const fake = await fakeLive(({ socket, frame }) => {
    if (frame.type === "hello") send(socket, welcome());
    else if (frame.type === "ping") send(socket, patch(WELCOME_SEQ + 2)); // WELCOME_SEQ + 1 was lost
    else if (frame.type === "resume") {
      resumes += 1;
      if (resumes === 1) {
        send(socket, error("rate_limited"));
        send(socket, patch(WELCOME_SEQ + 3));
        return;
      }
      for (let seq = frame.from_seq + 1; seq <= WELCOME_SEQ + 4; seq += 1) send(socket, patch(seq));
    }
  });
  const a = client(fake.url);
  await a.connect();
  const caughtUp = await settled(a.waitSeq(WELCOME_SEQ + 4, HANG_GUARD_MS), "the resume");
  assert.equal(caughtUp.error, undefined);
  assert.deepEqual(a.view.log, [6, 7, 8, 9]);
  assert.deepEqual(fake.frames("resume"), [{ type: "resume", from_seq: WELCOME_SEQ }, { type: "resume", from_seq: WELCOME_SEQ }]);
  assert.equal(a.stats.resumes, 2);
  assert.equal(rateLimitedErrors(a), 1);
});
