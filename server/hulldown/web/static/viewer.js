// The match viewer: a spectator connection, the battlefield, the units, the log and the replay
// scrubber. Plain ES modules, no build step.
import { Board } from "./js/board.js";
import { LiveConnection } from "./js/live.js";
import { renderHeader, renderLog, renderUnits } from "./js/panels.js";
import { Scrubber, phaseIndex } from "./js/replay.js";

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
const params = new URLSearchParams(location.search);
// ?side_token= is a side's link from the new-match page: the HTTP reads and the websocket use it
// as that side's token (the match as it is, undelayed); otherwise a spectator's.
const sideToken = params.get("side_token");
const spectatorToken = params.get("spectator_token") || params.get("token") || sideToken;
const base = `/matches/${encodeURIComponent(matchId)}`;
// HTTP reads carry the spectator token of a private match (the same access as the websocket).
const query = spectatorToken ? `?token=${encodeURIComponent(spectatorToken)}` : "";
const withQuery = (path, params) => `${path}?${new URLSearchParams({ ...params, ...(spectatorToken ? { token: spectatorToken } : {}) })}`;

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
};
window.hulldownViewer = viewer;

const board = new Board($("board"), { onSelect: (id) => selectUnit(id) });
const scrubber = new Scrubber({
  slider: $("scrub"),
  label: $("scrub-label"),
  back: $("step-back"),
  forward: $("step-forward"),
  live: $("go-live"),
  jump: $("jump"),
  onSeek: (seq) => seek(seq),
});
viewer.scrubber = scrubber;

function shown() {
  return scrubber.position === null ? viewer.live : viewer.replay;
}

function mode() {
  if (scrubber.position !== null) return { kind: "replay", text: `replay at seq ${scrubber.position}` };
  const welcome = viewer.connection ? viewer.connection.welcome : null;
  const delay = welcome && welcome.delayed ? ` (delayed: ${welcome.delay_events} events, ${welcome.delay_seconds} s)` : "";
  return { kind: viewer.status === "live" ? "live" : "offline", text: `${viewer.status}${delay}` };
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
  });
  renderLog($("log"), $("log-note"), view);
  refreshArc(view);
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
    const response = await fetch(url);
    if (!response.ok) throw new Error(`arc: HTTP ${response.status}`);
    const arc = await response.json();
    if (viewer.arcKey !== key) return;
    board.arc = arc;
    render();
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

async function seek(seq) {
  if (seq === null) {
    viewer.replay = null;
    render();
    return;
  }
  try {
    const response = await fetch(withQuery(`${base}/state`, { at: seq }));
    if (!response.ok) throw new Error(`state at ${seq}: HTTP ${response.status}`);
    const { view } = await response.json();
    if (scrubber.position !== seq) return; // the slider moved on meanwhile
    viewer.replay = view;
    render();
  } catch (error) {
    viewer.errors.push(String(error));
  }
}

let indexed = false;
let previous = null;

function onView(view, seq, reason) {
  viewer.live = view;
  scrubber.setLatest(seq);
  const now = { seq, turn: view.turn, side: view.active, phase: view.phase };
  if (previous && (previous.turn !== now.turn || previous.side !== now.side || previous.phase !== now.phase)) {
    scrubber.addPhaseStart(now);
  }
  previous = now;
  if (!indexed) {
    indexed = true;
    phaseIndex(base, query)
      .then((index) => scrubber.setIndex(index))
      .catch((error) => viewer.errors.push(String(error)));
  }
  if (scrubber.position === null) render();
}

function onStatus(status) {
  viewer.status = status;
  $("status").textContent = status;
  $("status").className = `status ${status.split(":")[0]}`;
  if (shown()) renderHeader($("info"), shown(), mode());
}

const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${base}/live`;
const connection = new LiveConnection(wsUrl, { spectatorToken, sideToken, onView, onStatus });
viewer.connection = connection;
connection.start();
