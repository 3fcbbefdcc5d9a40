// The match viewer: a spectator connection, the battlefield, the units, the log and the replay
// scrubber. Plain ES modules, no build step.
import { Board } from "./js/board.js";
import { LiveConnection } from "./js/live.js";
import { renderHeader, renderLog, renderUnits } from "./js/panels.js";
import { Scrubber, phaseIndex } from "./js/replay.js";

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
// Tokens come in the URL fragment (#spectator_token=... for a private match, #side_token=... for a
// side's link from the new-match page): a fragment is never sent to the server, so no access log
// records it. An old link with the token in the query string still opens; the token is moved into
// the fragment at once. A side's token makes the HTTP reads and the websocket those of that side
// (the match as it is, undelayed).
const fragment = new URLSearchParams(location.hash.slice(1));
const search = new URLSearchParams(location.search);
const sideToken = fragment.get("side_token");
const spectatorToken =
  fragment.get("spectator_token") ||
  fragment.get("token") ||
  search.get("spectator_token") ||
  search.get("token") ||
  sideToken;
if (search.has("spectator_token") || search.has("token")) {
  search.delete("spectator_token");
  search.delete("token");
  const rest = search.toString();
  const hash = spectatorToken ? `#spectator_token=${encodeURIComponent(spectatorToken)}` : "";
  history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${hash}`);
}
const base = `/matches/${encodeURIComponent(matchId)}`;
// HTTP reads carry the spectator token of a private match in the Authorization header (the same
// access as the websocket's hello), never in the URL.
const authHeaders = spectatorToken ? { Authorization: `Bearer ${spectatorToken}` } : {};
const withQuery = (path, params) => `${path}?${new URLSearchParams(params)}`;
const fetchAuthorised = (url) => fetch(url, { headers: authHeaders });

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
    const response = await fetchAuthorised(url);
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
    const response = await fetchAuthorised(withQuery(`${base}/state`, { at: seq }));
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
    phaseIndex(base, authHeaders)
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
