// The match viewer: a spectator connection, the battlefield, the units, the log and the replay
// scrubber. Plain ES modules, no build step.
import { Board } from "./js/board.js";
import { HulldownClient, getLog } from "./js/hulldown-client.js";
import { renderHeader, renderLog, renderUnits } from "./js/panels.js";
import { Scrubber, matchIndex, undoneAt } from "./js/replay.js";
import { TableTools } from "./js/tools.js";

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
// Tokens come in the URL fragment (#spectator_token=... for a private match, #side_token=... for a
// side's link): a fragment is never sent to the server, so no access log records it. An old link
// with the token in the query string still opens; the token is moved into the fragment at once.
// A side's token makes the HTTP reads and the websocket those of that side (undelayed).
const fragment = new URLSearchParams(location.hash.slice(1));
const search = new URLSearchParams(location.search);
const sideToken = fragment.get("side_token");
const spectatorToken =
  fragment.get("spectator_token") || fragment.get("token") || search.get("spectator_token") || search.get("token");
if (search.has("spectator_token") || search.has("token")) {
  search.delete("spectator_token");
  search.delete("token");
  const rest = search.toString();
  const hash = spectatorToken ? `#spectator_token=${encodeURIComponent(spectatorToken)}` : "";
  history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${hash}`);
}
const base = `/matches/${encodeURIComponent(matchId)}`;
// HTTP reads carry the token in the Authorization header (the websocket's access), never the URL.
const readToken = sideToken || spectatorToken;
const headers = readToken ? { authorization: `Bearer ${readToken}` } : {};
const query = "";
const withQuery = (path, params) => `${path}?${new URLSearchParams(params)}`;

const $ = (id) => document.getElementById(id);
const viewer = {
  matchId,
  live: null, // the live view (kept by the connection)
  replay: null, // the fetched view shown while scrubbing
  selected: null,
  weapon: null,
  status: "connecting",
  arcKey: null,
  errors: [],
  earlierLog: [],
  undone: {}, // action seq -> the seq of the undo or takeback that took it back (GET /index)
  indexSeq: 0, // the seq the index above stands at
};
window.hulldownViewer = viewer;

const board = new Board($("board"), {
  onSelect: (id) => selectUnit(id),
  onModelDown: (unit, model, point, event) => tools.modelDown(unit, model, point, event),
});
const tools = new TableTools({ board, root: $("tools"), base, headers, view: () => shown(), onError: (e) => viewer.errors.push(String(e)) });
viewer.tools = tools;
board.enableZoomPan();
const scrubber = new Scrubber({
  slider: $("scrub"),
  label: $("scrub-label"),
  back: $("step-back"),
  forward: $("step-forward"),
  playButton: $("play"),
  speed: $("play-speed"),
  live: $("go-live"),
  jump: $("jump"),
  onSeek: (seq) => seek(seq),
});
viewer.scrubber = scrubber;

function shown() {
  return scrubber.position === null ? viewer.live : viewer.replay;
}

function mode() {
  if (scrubber.position !== null) {
    const by = undoneAt(viewer.undone, scrubber.position);
    const undone = by === null ? "" : ` (undone at seq ${by})`;
    return { kind: "replay", text: `replay at seq ${scrubber.position}${undone}` };
  }
  const welcome = viewer.connection ? viewer.connection.welcome : null;
  const delay = welcome && welcome.delayed ? ` (delayed: ${welcome.delay_events} events, ${welcome.delay_seconds} s)` : "";
  // Opened from a side's link, the viewer is that side's: its pending decision reads as its own.
  const side = welcome && (welcome.role === "a" || welcome.role === "b") ? welcome.role : undefined;
  return { kind: viewer.status === "live" ? "live" : "offline", text: `${viewer.status}${delay}`, side };
}

function render() {
  const view = shown();
  if (!view) return;
  document.body.dataset.seq = String(view.seq);
  document.body.dataset.mode = mode().kind;
  $("title").textContent = `Match ${matchId}`;
  renderHeader($("info"), view, mode());
  board.selected = viewer.selected;
  board.render(view);
  renderUnits($("units"), view, {
    selected: viewer.selected,
    weapon: viewer.weapon,
    onSelectUnit: selectUnit,
    onSelectWeapon: selectWeapon,
    startWounds: board.startWounds,
  });
  renderLog($("log"), $("log-note"), view, { earlier: viewer.earlierLog, loadEarlier, undone: viewer.undone });
  refreshArc(view);
}

async function loadEarlier(from, before) {
  try {
    const page = await getLog("", matchId, { from, limit: before - from, token: readToken });
    const known = new Set(viewer.earlierLog.map((e) => e.n));
    viewer.earlierLog = [...page.entries.filter((e) => !known.has(e.n)), ...viewer.earlierLog].sort((x, y) => x.n - y.n);
    render();
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

// Wound maxima: the wounds every model started with (the view keeps only what is left).
// A match created under other rules than the server's (GET /matches/{id}: rules_version and
// server_rules_version) is replayed with today's rules, so its states may differ from those its
// players saw: the page says so (docs/architecture.md, 10. Replay).
async function loadRulesVersion() {
  try {
    const response = await fetch(base, { headers });
    if (!response.ok) throw new Error(`match summary: HTTP ${response.status}`);
    const { rules_version: played, server_rules_version: server } = await response.json();
    const note = $("rules-note");
    note.dataset.played = String(played);
    if (played === server) return;
    const under = played === 0 ? "rules version 0 (before versions were recorded)" : `rules version ${played}`;
    note.textContent =
      `Played under ${under}; this server replays it with rules version ${server}, so a position may ` +
      "differ from what the players saw (docs/architecture.md, 10. Replay).";
    note.hidden = false;
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

async function loadStartWounds() {
  try {
    const response = await fetch(withQuery(`${base}/state`, { at: 1 }), { headers });
    if (!response.ok) throw new Error(`state at 1: HTTP ${response.status}`);
    const { view } = await response.json();
    const wounds = {};
    for (const unit of Object.values(view.units)) for (const m of Object.values(unit.models)) wounds[m.id] = m.wounds;
    board.startWounds = wounds;
    render();
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

function selectUnit(id) {
  if (viewer.selected !== id) viewer.weapon = null;
  viewer.selected = id;
  board.arc = null;
  render();
}

function selectWeapon(unitId, weaponId) {
  viewer.selected = unitId;
  viewer.weapon = weaponId;
  board.arc = null;
  render();
}

async function refreshArc(view) {
  if (!viewer.selected || !viewer.weapon) return;
  const key = `${viewer.selected}/${viewer.weapon}/${view.seq}`;
  if (viewer.arcKey === key) return;
  viewer.arcKey = key;
  const url = withQuery(`${base}/arcs`, { unit: viewer.selected, weapon: viewer.weapon, at: view.seq });
  try {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`arc: HTTP ${response.status}`);
    const arc = await response.json();
    if (viewer.arcKey !== key) return;
    board.arc = arc;
    render();
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

// Show the live view (seq null) or fetch the state at seq. Resolves once answered: false when the
// fetch failed (the scrubber's playback then stops).
async function seek(seq) {
  if (seq === null) {
    viewer.replay = null;
    render();
    return true;
  }
  try {
    const response = await fetch(withQuery(`${base}/state`, { at: seq }), { headers });
    if (!response.ok) throw new Error(`state at ${seq}: HTTP ${response.status}`);
    const { view } = await response.json();
    if (scrubber.position !== seq) return true; // the slider moved on meanwhile
    viewer.replay = view;
    render();
    return true;
  } catch (error) {
    viewer.errors.push(String(error));
    return false;
  }
}

let indexed = false;
let previous = null;

// The server's index: the phase starts for the jump list and the actions taken back (marked in
// the log). Read again after an undo or takeback and after a welcome or resync.
async function refreshIndex() {
  try {
    const index = await matchIndex(base, query, headers);
    if (index.seq < viewer.indexSeq) return; // an older answer arriving late
    viewer.indexSeq = index.seq;
    viewer.undone = index.undone;
    scrubber.setIndex(index.phases, index.seq);
    render();
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

// An undo or takeback brings back an earlier state: its phase is no new phase start.
function undoneHere(view, seq) {
  return !!view.last_undo && view.last_undo.seq === seq;
}

function noticePhaseStart(view, seq) {
  const now = { seq, turn: view.turn, side: view.active, phase: view.phase };
  const changed = previous && (previous.turn !== now.turn || previous.side !== now.side || previous.phase !== now.phase);
  if (changed && !undoneHere(view, seq)) scrubber.addPhaseStart(now);
  previous = now;
}

function onView(view, seq, reason) {
  viewer.live = view;
  scrubber.setLatest(seq);
  noticePhaseStart(view, seq);
  if (!indexed) {
    indexed = true;
    loadStartWounds();
    loadRulesVersion();
  }
  if (reason !== "patch" || undoneHere(view, seq)) refreshIndex();
  if (scrubber.position === null) render();
}

function onStatus(status) {
  viewer.status = status;
  scrubber.setConnection(status);
  $("status").textContent = status;
  $("status").className = `status ${status.split(":")[0]}`;
  if (shown()) renderHeader($("info"), shown(), mode());
}

const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${base}/live`;
const connection = sideToken
  ? new HulldownClient(wsUrl, { token: sideToken })
  : new HulldownClient(wsUrl, { spectator: true, spectatorToken });
connection.on("view", onView);
connection.on("status", onStatus);
viewer.connection = connection;
connection.connect().catch((error) => {
  if (!String(error).includes("unauthorised")) viewer.errors.push(String(error));
});
