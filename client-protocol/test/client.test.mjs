// The JS client against a real hulldown server (started by tests/client_js/test_js_client.py,
// which sets HULLDOWN_URL and HULLDOWN_SCENARIO). Run: npm test (node --test test/).
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import {
  Backoff,
  FatalError,
  HulldownClient,
  checkAction,
  createMatch,
  getLog,
  getState,
  HttpError,
  odds,
  ruler,
  sight,
} from "../hulldown-client.js";

const BASE = process.env.HULLDOWN_URL;
const SCENARIO = process.env.HULLDOWN_SCENARIO ? JSON.parse(process.env.HULLDOWN_SCENARIO) : null;
const WebSocket = globalThis.WebSocket ?? (await import("ws")).WebSocket;
const skip = BASE && SCENARIO ? false : "HULLDOWN_URL / HULLDOWN_SCENARIO not set: run through pytest tests/client_js";
const MOVE = { type: "move", unit: "predator-1", path: [[14, 24]], heading: 20 };
const END = { type: "end_phase" };

const opened = [];
afterEach(() => {
  for (const client of opened.splice(0)) client.close(); // even when a test failed
});

async function match() {
  const created = await createMatch(BASE, SCENARIO);
  const open = (options) => {
    const client = new HulldownClient(created.live_url, { WebSocket, backoff: { initial: 20, maximum: 200 }, ...options });
    opened.push(client);
    return client;
  };
  return { created, open };
}

async function agrees(client, created) {
  const state = await getState(BASE, created.match_id, { token: created.tokens.a });
  await client.waitSeq(state.seq);
  assert.equal(client.seq, state.seq);
  assert.deepEqual(client.view, state.view);
}

test("hello, welcome, patches: two sides and a spectator see the server's state", { skip }, async () => {
  const { created, open } = await match();
  const a = open({ token: created.tokens.a });
  const b = open({ token: created.tokens.b });
  const watcher = open({ spectator: true });
  await Promise.all([a.connect(), b.connect(), watcher.connect()]);
  assert.equal(a.role, "a");
  assert.equal(watcher.role, "spectator");
  assert.equal(a.status, "live");
  const moved = await a.act(MOVE);
  assert.equal(moved.type, "ack");
  assert.equal(moved.seq, 2);
  const ended = await a.act(END, { expect: 2 });
  assert.equal(ended.type, "ack");
  for (const client of [a, b, watcher]) await agrees(client, created);
  assert.deepEqual(a.view.units["predator-1"].models["predator-1-m"].pos, [14, 24]);
  const stale = await a.act(END, { expect: 2 });
  assert.equal(stale.type, "rejected");
  assert.equal(stale.code, "stale");
  for (const client of [a, b, watcher]) client.close();
});

test("a rejection names the code, the rule and the measured values", { skip }, async () => {
  const { created, open } = await match();
  const a = open({ token: created.tokens.a });
  await a.connect();
  const answer = await a.act({ type: "move", unit: "predator-1", path: [[30, 24]] });
  assert.equal(answer.type, "rejected");
  assert.equal(answer.code, "too_far");
  assert.match(answer.rule, /^40k7 /);
  assert.equal(answer.values.distance, 20);
  await assert.rejects(open({ spectator: true }).act(END), /spectators can not act/);
  a.close();
});

test("safe retries: the same action id is applied once and answered as a duplicate", { skip }, async () => {
  const { created, open } = await match();
  const a = open({ token: created.tokens.a });
  await a.connect();
  const first = await a.act(MOVE, { actionId: "move-once" });
  const again = await a.act(MOVE, { actionId: "move-once" });
  assert.equal(first.type, "ack");
  assert.equal(again.type, "ack");
  assert.equal(again.duplicate, true);
  assert.equal(again.seq, first.seq);
  const state = await getState(BASE, created.match_id);
  assert.equal(state.seq, 2); // one event, not two
  a.close();
});

test("gap detection: a lost patch is resumed, the view stays exact", { skip }, async () => {
  const { created, open } = await match();
  const a = open({ token: created.tokens.a });
  const watcher = open({ spectator: true });
  await Promise.all([a.connect(), watcher.connect()]);
  watcher.dropPatches = 1;
  for (const action of [MOVE, END, END]) assert.equal((await a.act(action)).type, "ack");
  await agrees(watcher, created);
  assert.ok(watcher.stats.gaps >= 1);
  assert.equal(watcher.stats.resumes, 1);
  assert.equal(watcher.stats.welcomes, 1);
  a.close();
  watcher.close();
});

test("reconnect with backoff: an action sent while disconnected goes out once, after resume", { skip }, async () => {
  const { created, open } = await match();
  const a = open({ token: created.tokens.a });
  const statuses = [];
  await a.connect();
  a.on("status", (status) => statuses.push(status));
  a.dropConnection();
  const answer = await a.act(MOVE, { actionId: "while-away" }); // queued until the pong of the new connection
  assert.equal(answer.type, "ack");
  assert.equal(a.stats.connections, 2);
  assert.equal(a.stats.welcomes, 1); // resumed with hello.resume_from, no second welcome
  assert.deepEqual(statuses, ["reconnecting", "live"]);
  await agrees(a, created);
  a.close();
});

test("a refused hello is fatal: connect rejects with the server's code", { skip }, async () => {
  const { open } = await match();
  const intruder = open({ token: "not-a-token" });
  await assert.rejects(intruder.connect(), (error) => error instanceof FatalError && error.code === "unauthorised");
  assert.equal(intruder.status, "refused: unauthorised");
});

test("HTTP helpers: check without acting, ruler, sight and the log", { skip }, async () => {
  const { created } = await match();
  const checked = await checkAction(BASE, created.match_id, created.tokens.a, { type: "move", unit: "predator-1", path: [[30, 24]] });
  assert.equal(checked.ok, false);
  assert.equal(checked.rejected.code, "too_far");
  assert.equal(checked.facts.distance, 20);
  assert.equal(checked.facts.allowance, 12);
  const legal = await checkAction(BASE, created.match_id, created.tokens.a, MOVE);
  assert.equal(legal.ok, true);
  assert.equal(legal.seq, 2);
  assert.equal(legal.facts.speed_band, "combat");
  assert.equal((await getState(BASE, created.match_id)).seq, 1); // nothing happened
  const reading = await ruler(BASE, created.match_id, "predator-1-m", "rhino-1-m");
  assert.equal(reading.distance, 25.5);
  const seen = await sight(BASE, created.match_id, "predator-1-m", "rhino-1-m", { weapon: "lascannon" });
  assert.equal(seen.visible, true);
  assert.equal(seen.facing, "front");
  assert.equal(seen.armour, 11);
  const log = await getLog(BASE, created.match_id);
  assert.equal(log.total, log.entries.length);
});

test("odds: the outcomes of a shot before acting, and the rejection of an illegal one", { skip }, async () => {
  const { created, open } = await match();
  const SHOOT = { type: "shoot", unit: "predator-1", fire: [{ weapon: "lascannon", target: "rhino-1" }] };
  await assert.rejects(
    odds(BASE, created.match_id, created.tokens.a, SHOOT), // the Movement phase: no shooting
    (error) => error instanceof HttpError && error.status === 422 && error.body.error.code === "wrong_phase",
  );
  await assert.rejects(
    odds(BASE, created.match_id, created.tokens.a, { type: "undo" }),
    (error) => error instanceof HttpError && error.status === 422 && error.body.error.code === "odds_not_applicable",
  );
  const a = open({ token: created.tokens.a });
  await a.connect();
  assert.equal((await a.act(END)).type, "ack"); // to the Shooting phase
  const answer = await odds(BASE, created.match_id, created.tokens.a, SHOOT);
  assert.equal(answer.method, "exact");
  assert.equal(answer.seq, 2);
  assert.equal(answer.by, "a");
  const rhino = answer.units.find((unit) => unit.unit === "rhino-1");
  assert.equal(rhino.measure, "hp");
  assert.equal(rhino.start, 3);
  const total = Object.values(rhino.final).reduce((sum, prob) => sum + prob.p, 0);
  assert.ok(Math.abs(total - 1) < 1e-5, `final HP probabilities sum to ${total}`); // each rounded to 6 places
  assert.match(answer.summary[0], /^Lascannon -> Rhino, front AV11/);
  const sampled = await odds(BASE, created.match_id, created.tokens.a, SHOOT, { method: "sampled", samples: 400, choices: { jink: "no" } });
  assert.equal(sampled.method, "sampled");
  assert.equal(sampled.samples, 400);
  assert.deepEqual(sampled.choices, { jink: "no" });
  assert.ok(sampled.units.find((unit) => unit.unit === "rhino-1").no_effect.se > 0);
  assert.equal((await getState(BASE, created.match_id)).seq, 2); // asking changed nothing
  a.close();
});

test("Backoff: exponential, capped, jittered, gives up after maxAttempts", () => {
  const backoff = new Backoff({ initial: 100, factor: 2, maximum: 500, jitter: 0.2, maxAttempts: 5, random: () => 0.5 });
  assert.deepEqual([1, 2, 3, 4, 5].map(() => backoff.nextDelay()), [100, 200, 400, 500, 500]);
  assert.throws(() => backoff.nextDelay(), /gave up after 5 attempts/);
  backoff.reset();
  const low = new Backoff({ initial: 100, jitter: 0.2, random: () => 0 });
  assert.equal(low.nextDelay(), 80);
});
