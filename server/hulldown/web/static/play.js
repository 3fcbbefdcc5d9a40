// The player's table (docs/table.md): the viewer's board with the controls of one side. Every
// action goes through the JS client (act with an action id, safe retries); a drag is checked
// live against the server (POST /check) and acted on release; every answer is shown where the
// player acted. Plain ES modules, no build step.
import { Board, oneShotWeapon } from "./js/board.js";
import { HulldownClient, checkAction, getLog } from "./js/hulldown-client.js";
import { OddsLines } from "./js/odds-line.js";
import { actionLabel, optionLabel } from "./js/option-label.js";
import { paragonSections } from "./js/paragon.js";
import { deepStrikeAnswer, deepStrikeControl, deepStrikeOutcome, deepStrikeOverlay, mayDeepStrike } from "./js/deep-strike.js";
import { SIDE, h, renderHeader, renderLog, renderUnits, unitLabel } from "./js/panels.js";
import { matchIndex } from "./js/replay.js";
import { statline, weaponProfile, weaponRules } from "./js/statline.js";
import { TableTools } from "./js/tools.js";

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/matches/${encodeURIComponent(matchId)}`;
const storageKey = `hulldown-token:${matchId}`;
const CHECK_INTERVAL_MS = 120;
const WHEEL_STEP_DEG = 15;

// What the statuses mean, for the unit card (the rules' own names; the log cites the sections).
const STATUS_TEXT = {
  shaken: "Crew Shaken: Snap Shots only",
  stunned: "Crew Stunned: no move, pivot or shooting except Snap Shots",
  immobilised: "Immobilised: cannot move or pivot",
  pinned: "Pinned: Snap Shots only, no move or charge",
  jink: "Jinked: cover save taken, Snap Shots only",
  snap_only: "Snap Shots only",
  falling_back: "Falling Back",
  reserves: "in Reserves",
};

// 40k11 [ONE SHOT]: the card names the fired weapon (js/board.js oneShotWeapon).
const oneShotText = (weapon) => `${weapon} fired: [ONE SHOT], it cannot be fired again this battle`;

const MOVE_KINDS = {
  "40k7": ["normal", "run", "flat_out", "tank_shock", "ram"],
  hh3: ["normal", "rush"],
  "40k11": ["normal", "advance", "fall_back", "charge"],
};

// The kinds of move a unit could ever make, as its edition's validation has them: 40k7 Vehicles
// (Run: not vehicles other than Walkers; Moving Flat Out: vehicles other than Walkers and Heavy
// vehicles; Tanks: Tank Shock and Ramming, Tanks only). A kind the server always refuses for the
// unit is not offered (the card lists it under "not now" with the refusal).
function moveKindsOf(unit) {
  const kinds = MOVE_KINDS[table.view.edition] || ["normal"];
  if (table.view.edition !== "40k7" || !unit) return kinds;
  const keywords = unit.keywords || [];
  const vehicle = isVehicle(unit);
  const walker = vehicle && (unit.kind === "walker" || keywords.includes("walker"));
  const allowed = {
    run: !vehicle || walker,
    flat_out: vehicle && !walker && !keywords.includes("heavy"),
    tank_shock: keywords.includes("tank"),
    ram: keywords.includes("tank"),
  };
  return kinds.filter((k) => allowed[k] !== false);
}

const $ = (id) => document.getElementById(id);

const table = {
  matchId,
  token: null,
  side: null,
  view: null,
  selected: null,
  moveKind: "normal",
  moveTarget: "",
  drag: null,
  lastCheck: null, // the last /check answer of the drag
  messages: {}, // section -> {text, code, ok}
  shoot: {}, // weapon id -> {on, target, snap}
  targets: {}, // target unit id -> weapon facts (of the weapon being aimed)
  forced: {}, // weapon id -> why its shots must be Snap Shots (the selected unit's ticked weapons)
  charge: { target: "" },
  fight: { target: "", weapon: "", smash: false },
  manifest: { power: "", target: "", dice: 0, snap: false }, // the 40k7 Psychic phase control
  placing: null, // disembark: {unit, positions: {model: [x, y]}, order: [model ids]}
  pick: null, // an allocation asked of this side: {decision, unit, options} (models clicked on the board)
  deepStrike: null, // 40k7 Deep Strike being aimed: {unit, aim} (the next click on the table aims)
  deepStrikeResult: null, // the last Deep Strike sent: {unit, at, seq} (its answer stays on the card)
  earlierLog: [],
  undone: {}, // action seq -> the seq of the undo or takeback that took it back (GET /index)
  steps: {}, // action seq -> {seq, parent, undoneBy}: the game actions (GET /index, then the views)
  indexSeq: 0,
  errors: [],
  concedeArmed: false,
};
window.hulldownTable = table;
// The odds of the selected shot, charge or fight, before the player confirms (docs/table.md).
table.odds = new OddsLines({ matchId, token: () => table.token });

// ---- the token ---------------------------------------------------------------------------------

function tokenFromPage() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get("token");
  if (token) {
    sessionStorage.setItem(storageKey, token);
    history.replaceState(null, "", location.pathname + location.search); // out of the address bar
    return token;
  }
  return sessionStorage.getItem(storageKey);
}

// The form's one submit listener (added once: a refused token only shows the form again, so a
// later sign-in starts one client, not one per refusal).
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = $("token-input").value.trim();
  if (!token) return;
  sessionStorage.setItem(storageKey, token);
  $("token-form").hidden = true;
  start(token);
});

function askToken() {
  $("token-form").hidden = false;
}

// ---- helpers -------------------------------------------------------------------------------------

const unitsOf = (view, pred) => Object.values(view.units).filter(pred);
// On the battlefield: not destroyed, not embarked, not off the table (in Reserve, arriving or still to
// deploy: no action may name it, docs/missions.md "Set-up, as actions").
const onTable = (u) => !u.destroyed && !u.embarked_in && !whereIs(u.id) && Object.values(u.models).some((m) => m.alive);
const leadModel = (unit) => Object.values(unit.models).find((m) => m.alive) || Object.values(unit.models)[0];
const isVehicle = (unit) => unit.kind === "vehicle" || Object.values(unit.models).some((m) => m.hull);
// While a takeback request is pending the match waits for its answer (docs/architecture.md
// section 9): the server refuses everything else but a concession (takeback_pending).
const takebackPending = () => !!(table.view && table.view.takeback && table.view.takeback.by);
const myTurn = () => table.view && table.view.active === table.side && !table.view.ended && !takebackPending();
const fmt1 = (n) => (n === null || n === undefined ? "-" : Number(n).toFixed(1));

function describeAnswer(answer) {
  if (answer.type === "ack") return { ok: true, code: "ack", text: `done (seq ${answer.seq}${answer.duplicate ? ", already applied" : ""})` };
  const values = Object.entries(answer.values || {})
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return { ok: false, code: answer.code, text: `${answer.message} [${answer.rule}]${values ? ` (${values})` : ""}` };
}

async function act(section, action) {
  table.messages[section] = { ok: true, code: "sending", text: "…" };
  renderPanels();
  let answer;
  try {
    answer = await table.client.act(action, { expect: table.client.seq });
  } catch (error) {
    table.messages[section] = { ok: false, code: "error", text: String(error) };
    renderPanels();
    return null;
  }
  table.messages[section] = describeAnswer(answer);
  render();
  return answer;
}

function message(section) {
  const m = table.messages[section];
  if (!m) return h("div", { class: "message", "data-section": section });
  return h("div", { class: `message ${m.ok ? "ok" : "rejected"}`, "data-section": section, "data-code": m.code }, m.text);
}

function check(action) {
  return checkAction("", matchId, table.token, action);
}

// ---- rendering ---------------------------------------------------------------------------------

const board = new Board($("board"), {
  onSelect: (id) => select(id),
  onModelDown: (unit, model, point, event) => modelDown(unit, model, point, event),
  onTableClick: (point) => tableClick(point),
});
const tools = new TableTools({
  board,
  root: $("tools"),
  base,
  headers: {},
  view: () => table.view,
  onError: (e) => table.errors.push(String(e)),
});
table.board = board;
board.enableZoomPan({ shouldZoom: () => !table.drag }); // the wheel turns a vehicle while dragging

function render() {
  const view = table.view;
  if (!view) return;
  document.body.dataset.seq = String(view.seq);
  document.body.dataset.side = table.side || "";
  $("title").textContent = `Match ${matchId}`;
  $("side-badge").textContent = table.side ? `you are side ${SIDE[table.side]}` : "";
  $("side-badge").className = `side-badge side-${table.side}`;
  renderInfo();
  board.selected = table.selected;
  board.side = table.side;
  board.marks = table.selectedWeapon() ? markClasses() : {};
  board.render(view);
  drawDeepStrike();
  drawHandle();
  renderUnits($("units"), view, { selected: table.selected, weapon: null, onSelectUnit: select, onSelectWeapon: () => {}, startWounds: board.startWounds });
  renderLog($("log"), $("log-note"), view, { earlier: table.earlierLog, loadEarlier, undone: table.undone });
  renderPanels();
  renderDecision();
}

// The header (turn, phase, seq, connection, pending decision): drawn with the view and again on
// every change of the connection's status, so it never says "live" while reconnecting.
function renderInfo() {
  if (!table.view || !table.client) return;
  const status = table.client.status;
  renderHeader($("info"), table.view, { kind: status === "live" ? "live" : "offline", text: status, side: table.side });
}

function renderPanels() {
  if (!table.view) return;
  renderBanner();
  renderControls();
  renderUnitPanel();
}

function renderBanner() {
  const view = table.view;
  const banner = $("banner");
  const items = [];
  const tb = view.takeback || {};
  if (tb.by === table.side) items.push(ownTakeback(tb));
  if (tb.by && tb.by !== table.side) {
    items.push(
      h(
        "div",
        { id: "takeback-ask", class: "pending takeback" },
        `Side ${SIDE[tb.by]} asks to take the match back to seq ${tb.to_seq}. `,
        h("button", { type: "button", id: "takeback-grant", onclick: () => act("banner", { type: "takeback_answer", grant: true }) }, "Grant"),
        " ",
        h("button", { type: "button", id: "takeback-decline", onclick: () => act("banner", { type: "takeback_answer", grant: false }) }, "Decline"),
      ),
    );
  }
  if (view.pending && view.pending.side !== table.side) {
    items.push(h("div", { id: "waiting", class: "pending" }, `Waiting for side ${SIDE[view.pending.side]}: ${view.pending.prompt}`));
  }
  items.push(message("banner"));
  banner.replaceChildren(...items);
}

// Your own pending takeback request: what the table waits for, and the withdrawal
// (takeback_answer with grant false, docs/architecture.md section 9).
function ownTakeback(tb) {
  const other = table.side === "a" ? "b" : "a";
  return h(
    "div",
    { id: "takeback-mine", class: "pending takeback" },
    `You asked to take the match back to seq ${tb.to_seq}: the match waits for side ${SIDE[other]} to grant or decline. `,
    h("button", { type: "button", id: "takeback-withdraw", onclick: () => act("banner", { type: "takeback_answer", grant: false }) }, "Withdraw"),
    h("span", { class: "rule" }, TAKEBACK_RULE),
  );
}

function renderControls() {
  const view = table.view;
  const mine = myTurn() && !inSetup();
  const heading = takebackPending()
    ? h("h2", {}, "Waiting for the takeback's answer")
    : inSetup()
      ? setupControls()
      : h("h2", {}, mine ? `Your ${view.phase} phase` : view.ended ? "The match is over" : `Side ${SIDE[view.active]}'s turn`);
  const refusal = undoRefusal(view);
  // replaceChildren writes a null child as the text "null": leave out the parts not shown.
  const parts = [
    heading,
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "button", id: "end-phase", disabled: !mine, onclick: () => act("controls", { type: "end_phase" }) }, "End phase"),
      h("button", { type: "button", id: "undo", disabled: !!refusal, onclick: () => act("controls", { type: "undo" }) }, "Undo"),
      h(
        "button",
        {
          type: "button",
          id: "concede",
          class: table.concedeArmed ? "armed" : "",
          disabled: view.ended,
          onclick: () => {
            if (!table.concedeArmed) {
              table.concedeArmed = true;
              renderControls();
              return;
            }
            table.concedeArmed = false;
            act("controls", { type: "concede" });
          },
        },
        table.concedeArmed ? "Really concede?" : "Concede",
      ),
    ),
    refusal ? h("div", { id: "undo-why", class: "why", "data-code": refusal.code }, `Undo: ${refusal.text} `, h("span", { class: "rule" }, refusal.rule)) : null,
    takebackControl(view),
    message("controls"),
  ];
  $("controls").replaceChildren(...parts.filter((part) => part !== null));
}

// ---- undo and takebacks (docs/architecture.md section 9) --------------------------------------------
// The table offers Undo exactly when the server would accept it (match/history.py check_undo, after
// validate's end-of-match and pending-takeback checks) and otherwise says why, with the rule.

const UNDO_RULE = "docs/architecture.md, 9. Undo and takebacks: undo";
const TAKEBACK_RULE = "docs/architecture.md, 9. Undo and takebacks: takeback";
const END_RULE = "docs/architecture.md, 12. End of match";

function undoRefusal(view) {
  const refuse = (code, text, rule = UNDO_RULE) => ({ code, text, rule });
  if (view.ended) return refuse("match_ended", `the match is over (${view.end_reason})`, END_RULE);
  const tb = view.takeback || {};
  if (tb.by) return refuse("takeback_pending", `side ${tb.by} asked to take the match back to seq ${tb.to_seq}; it must be granted or declined first`, TAKEBACK_RULE);
  const last = view.line;
  if (!last) return refuse("nothing_to_undo", "there is no action to undo");
  const parent = last.parent || 0;
  if (last.by !== table.side) return refuse("not_your_action", `the last action (${actionLabel(last.action)} at seq ${last.seq}) was side ${last.by}'s; a side may only undo its own last action`);
  if (last.dice > 0) return refuse("dice_revealed", `your ${actionLabel(last.action)} at seq ${last.seq} revealed ${last.dice} dice; ask for a takeback to seq ${parent} (the opponent must agree)`);
  const opponent = table.side === "a" ? "b" : "a";
  const since = (view.acted || {})[opponent] || 0;
  if (since > last.seq) return refuse("opponent_acted", `side ${opponent} acted at seq ${since}, after your ${actionLabel(last.action)} at seq ${last.seq}; ask for a takeback to seq ${parent} (the opponent must agree)`);
  return null;
}

// The latest game action on the line of play as of `seq`: the latest action at or before it not
// yet taken back then (an undo never brings a taken-back action back).
function lineAt(seq) {
  let found = null;
  for (const step of Object.values(table.steps)) {
    const undone = step.undoneBy !== null && step.undoneBy <= seq;
    if (step.seq <= seq && !undone && (!found || step.seq > found.seq)) found = step;
  }
  return found;
}

// The states a takeback may go back to, newest first: the parent of the last action, then the
// parent of the action before it on the line, and so on (match/history.py line_targets).
function lineTargets(view) {
  const targets = [];
  let step = view.line;
  while (step && (step.parent || 0) >= 1 && !targets.includes(step.parent)) {
    targets.push(step.parent);
    step = lineAt(step.parent);
  }
  return targets;
}

function takebackControl(view) {
  const targets = view.ended || takebackPending() ? [] : lineTargets(view);
  // The first is the parent of the last action: the takeback a refused undo points to.
  const select = h("select", { id: "takeback-seq" }, ...targets.map((seq) => h("option", { value: seq }, targetLabel(seq))));
  const ask = () => act("controls", { type: "takeback_request", to_seq: Number(select.value) });
  return h(
    "div",
    { class: "buttons" },
    "Take back to ",
    select,
    h("button", { type: "button", id: "takeback-request", disabled: !targets.length, onclick: ask }, "Ask"),
  );
}

function targetLabel(seq) {
  const step = table.steps[seq];
  return step ? `seq ${seq} (after ${step.by === table.side ? "your" : `side ${SIDE[step.by]}'s`} ${actionLabel(step.action)})` : `seq ${seq}`;
}

// The game actions and the ones taken back, from GET /matches/{id}/index: read when the table
// (re)connects and after every undo or granted takeback (the log marks the lines taken back).
async function refreshIndex() {
  try {
    const index = await matchIndex(base, "", { authorization: `Bearer ${table.token}` });
    if (index.seq < table.indexSeq) return; // an older answer arriving late
    table.indexSeq = index.seq;
    table.undone = index.undone;
    for (const step of index.actions) table.steps[step.seq] = step;
    render();
  } catch (error) {
    table.errors.push(String(error));
  }
}

// A view brings its line's latest action (the table learns the actions as they come) and, after
// an undo or a granted takeback, a new `last_undo`: then the index is read again.
function noticeHistory(view, reason) {
  const line = view.line;
  if (line && !table.steps[line.seq]) table.steps[line.seq] = { seq: line.seq, by: line.by, action: line.action, parent: line.parent || 0, undoneBy: null };
  const undo = view.last_undo ? view.last_undo.seq : 0;
  if (reason !== "patch" || undo !== table.lastUndo) {
    table.lastUndo = undo;
    refreshIndex();
  }
}

function unitCard(unit) {
  const p = unit.profile;
  const edition = table.view.edition;
  // Each edition's own characteristics and weapon profile (js/statline.js): a 40k11 vehicle reads
  // M T Sv W Ld OC, never a 40k7 statline of zeros.
  const stats = statline(unit, edition);
  const rows = [h("div", { class: "profile", "data-edition": edition }, ...stats.map(([k, v]) => h("span", { class: "stat", "data-stat": k }, h("b", {}, k), ` ${v}`)))];
  if (p.armour) {
    rows.push(h("div", { class: "armour", "data-unit": unit.id }, `Armour: front ${p.armour.front} · side ${p.armour.side} · rear ${p.armour.rear}`, p.hp ? ` · ${unit.hp}/${p.hp} HP` : ""));
  }
  const weapons = Object.values(unit.weapons).map((w) =>
    h(
      "tr",
      { "data-weapon": w.id, class: w.destroyed ? "destroyed" : "" },
      h("td", {}, w.name),
      ...weaponProfile(w, unit, edition).map(([k, v]) => h("td", { "data-col": k }, k === "Range" || k === "Type" ? String(v) : `${k} ${v}`)),
      h("td", {}, w.mount.kind === "none" ? "" : `${w.mount.kind}${w.mount.arc ? ` ${w.mount.arc}` : ""}${w.mount.side ? ` ${w.mount.side}` : ""}`),
      h("td", { "data-col": "Rules" }, [...weaponRules(w, edition), w.destroyed ? "destroyed" : ""].filter(Boolean).join(", ")),
    ),
  );
  if (weapons.length) rows.push(h("table", { class: "weapon-table" }, ...weapons));
  // A unit arriving from reserve this turn is no longer simply "in Reserves": it is placed in this
  // Movement phase, or goes back (docs/missions.md "Reserves and arrivals").
  const arrivingNow = whereIs(unit.id) === "arriving";
  const statuses = Object.entries(unit.statuses).map(([name, until]) => {
    const fired = oneShotWeapon(unit, name);
    return h(
      "li",
      { class: "status-line", "data-status": name },
      name === "reserves" && arrivingNow
        ? `arriving from Reserves - placed in this Movement phase, else ${edition === "40k11" ? "it stays in Strategic Reserves" : "back into Reserve"}`
        : fired !== null
          ? oneShotText(fired)
          : `${STATUS_TEXT[name] || name} - ${until > 0 ? `until the end of player turn ${until}` : "until removed"}`,
    );
  });
  // A wrecked or destroyed unit says so instead of listing the statuses it had when it fell.
  if (unit.wreck || unit.destroyed) rows.push(h("div", { class: "fate", "data-fate": unit.wreck ? "wreck" : "destroyed" }, unit.wreck ? "Wrecked: left on the table as a wreck" : "Destroyed"));
  else if (statuses.length) rows.push(h("ul", { class: "status-list" }, ...statuses));
  if (unit.keywords.length) rows.push(h("div", { class: "keywords" }, unit.keywords.join(", ")));
  return h("div", { class: "card", "data-unit": unit.id }, h("h3", {}, `${unit.name} (${unit.id})`), ...rows);
}

function select(id) {
  if (table.selected !== id) {
    table.shoot = {};
    table.targets = {};
    table.forced = {}; // weapon id -> why its shots must be Snap Shots (of the selected unit)
    table.charge = { target: "" };
    table.fight = { target: "", weapon: "", smash: false };
    table.placing = null;
    table.deepStrike = null;
    table.deepStrikeResult = null;
    if (table.adjust) endAdjust();
    table.messages = { controls: table.messages.controls, banner: table.messages.banner, decision: table.messages.decision };
  }
  table.selected = id;
  render();
}

function renderUnitPanel() {
  const root = $("unit-panel");
  const view = table.view;
  const unit = table.selected ? view.units[table.selected] : null;
  if (!unit) {
    root.replaceChildren(h("p", { class: "note" }, "Select a unit on the board or in the list."));
    return;
  }
  const parts = [unitCard(unit)];
  if (table.deepStrikeResult && table.deepStrikeResult.unit === unit.id) parts.push(deepStrikeAnswer(view, table.deepStrikeResult));
  if (unit.side === table.side && takebackPending()) {
    parts.push(h("p", { class: "note takeback-wait" }, "A takeback request is pending: the match waits until it is granted, declined or withdrawn. ", h("span", { class: "rule" }, TAKEBACK_RULE)));
  } else if (unit.side === table.side && !unit.destroyed && (inSetup() || whereIs(unit.id))) {
    parts.push(setupSection(unit));
  } else if (unit.side === table.side && !unit.destroyed) {
    parts.push(phaseActions(unit));
    // The other side's turn, or the match over: the server refuses every action of this side
    // (not_your_turn, match_ended); the card says why under "not now" and offers none.
    if (myTurn()) parts.push(...actionSections(unit));
  }
  root.replaceChildren(...parts);
}

// ---- what the unit may do now: asked of the server (GET /options, decided by validation) ------------

const OPTION_NAMES = { manifest: "manifest a power", pivot: "pivot", shoot: "shoot", charge: "charge", fight: "fight", "fight:smash": "a Smash Attack", embark: "embark", disembark: "disembark", abandon: "abandon a member" };
const optionName = (kind) => (kind.startsWith("move:") ? (kind === "move:normal" ? "move" : kind.slice(5).replace("_", " ")) : OPTION_NAMES[kind] || kind);

// What the phase line says when no kind is open: only the side whose turn it is may end the phase.
function nothingNow() {
  const view = table.view;
  if (view.ended) return "nothing (the match is over)";
  if (view.active !== table.side) return `nothing (it is side ${SIDE[view.active]}'s turn)`;
  return "nothing (end the phase)";
}

function phaseActions(unit) {
  const key = `${unit.id}@${table.view.seq}`;
  const known = table.options && table.options.key === key ? table.options : null;
  if (!known) {
    table.options = { key, answer: null };
    fetch(`${base}/options?unit=${encodeURIComponent(unit.id)}`, { headers: { authorization: `Bearer ${table.token}` } })
      .then((r) => r.json())
      .then((answer) => {
        if (table.options && table.options.key === key) {
          table.options.answer = answer;
          renderPanels();
        }
      })
      .catch((error) => table.errors.push(String(error)));
  }
  const answer = known && known.answer;
  if (!answer || !answer.options) return h("div", { class: "phase-actions", id: "phase-actions", "data-state": "asking" }, "asking the server what this unit may do…");
  const open = answer.options.filter((o) => o.open);
  const closed = answer.options.filter((o) => !o.open);
  return h(
    "div",
    { class: "phase-actions", id: "phase-actions", "data-state": "known", "data-seq": answer.seq, "data-open": open.map((o) => o.kind).join(" ") },
    h("div", {}, `This ${answer.phase} phase: `, open.length ? open.map((o) => optionName(o.kind)).join(", ") : nothingNow()),
    closed.length
      ? h("details", {}, h("summary", {}, "not now"), h("ul", {}, ...closed.map((o) => h("li", { class: "closed-option", "data-kind": o.kind, "data-code": o.code }, `${optionName(o.kind)}: ${o.reason} [${o.rule}]`))))
      : null,
  );
}

// The kinds GET /options answered open for the unit at the current seq ([] while asking).
function openKinds(unit) {
  const known = table.options;
  const answer = known && known.key === `${unit.id}@${table.view.seq}` ? known.answer : null;
  return answer && answer.options ? answer.options.filter((o) => o.open).map((o) => o.kind) : [];
}

function enemySelect(id, value, onchange, filter = onTable) {
  const enemies = unitsOf(table.view, (u) => u.side !== table.side && filter(u));
  return h(
    "select",
    { id, onchange: (e) => onchange(e.target.value) },
    h("option", { value: "" }, "target…"),
    ...enemies.map((u) => h("option", { value: u.id, selected: u.id === value }, `${u.name} (${u.id})`)),
  );
}

function actionSections(unit) {
  const view = table.view;
  const phase = view.phase;
  const sections = [];
  const kinds = moveKindsOf(unit);
  if (!kinds.includes(table.moveKind)) table.moveKind = "normal";
  if (unit.embarked_in) {
    sections.push(disembarkSection(unit));
    return sections;
  }
  // The answer to a disembark outlives the re-render that puts the unit on the table.
  if (table.messages.disembark) sections.push(h("section", { class: "action", "data-action": "disembarked" }, h("h4", {}, "Disembark"), message("disembark")));
  // Move: drag on the board; the kind and a target (Tank Shock, Ram, 40k11 charge) chosen here.
  const kindSelect = h(
    "select",
    { id: "move-kind", onchange: (e) => ((table.moveKind = e.target.value), renderPanels()) },
    ...kinds.map((k) => h("option", { value: k, selected: k === table.moveKind }, k.replace("_", " "))),
  );
  const needsTarget = ["tank_shock", "ram", "charge"].includes(table.moveKind);
  const advance = view.edition === "40k11" && phase === "movement" ? advanceControl(unit) : null;
  const heading = h("input", { id: "pivot-heading", type: "number", step: 5, value: Math.round(leadModel(unit).heading), size: 5 });
  sections.push(
    h(
      "section",
      { class: "action", "data-action": "move" },
      h("h4", {}, "Move"),
      table.adjust && table.adjust.unit === unit.id ? adjustSection() : null,
      "Drag a model (Alt+release to adjust single models). Kind ",
      kindSelect,
      needsTarget ? enemySelect("move-target", table.moveTarget, (v) => (table.moveTarget = v)) : null,
      advance,
      isVehicle(unit)
        ? h("div", {}, "Pivot to heading ", heading, "° ", h("button", { type: "button", id: "pivot", onclick: () => act("move", { type: "pivot", unit: unit.id, heading: Number(heading.value) }) }, "Pivot"))
        : null,
      message("move"),
    ),
  );
  if (phase === "psychic" && Object.values(unit.weapons).some(isPower)) sections.push(manifestSection(unit));
  if (Object.keys(unit.weapons).length && phase === "shooting") sections.push(shootSection(unit));
  if (phase === "assault" || phase === "charge") {
    const target = table.charge.target;
    table.odds.want("charge", target ? { type: "charge", unit: unit.id, target } : null, view.seq);
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "charge" },
        h("h4", {}, "Charge"),
        enemySelect("charge-target", target, (v) => ((table.charge.target = v), renderPanels())),
        h("button", { type: "button", id: "charge", onclick: () => act("charge", { type: "charge", unit: unit.id, target }).then((answer) => answer && answer.type === "ack" && ((table.charge = { target: "" }), render())) }, "Charge"),
        table.odds.element("charge"),
        message("charge"),
      ),
    );
  }
  if (phase === "assault" || phase === "fight") {
    // 40k7 Special Rules, Smash: offered when the server lists it open for the unit (GET /options).
    const smashOpen = openKinds(unit).includes("fight:smash");
    const { target, weapon } = table.fight;
    const smash = smashOpen && table.fight.smash;
    const fightAction = { type: "fight", unit: unit.id, target, ...(weapon ? { weapon } : {}), ...(smash ? { smash: true } : {}) };
    table.odds.want("fight", target ? fightAction : null, view.seq);
    const melee = Object.values(unit.weapons).filter((w) => w.type === "melee" && usable(unit, w));
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "fight" },
        h("h4", {}, "Fight"),
        enemySelect("fight-target", target, (v) => ((table.fight.target = v), renderPanels())),
        melee.length
          ? h("select", { id: "fight-weapon", onchange: (e) => ((table.fight.weapon = e.target.value), renderPanels()) }, h("option", { value: "" }, "close combat"), ...melee.map((w) => h("option", { value: w.id, selected: w.id === weapon }, w.name)))
          : null,
        smashOpen
          ? h(
              "label",
              { class: "smash", title: "40k7 Special Rules, Smash: one attack per model at double Strength (at most 10), AP2, re-rolling armour penetration" },
              h("input", { type: "checkbox", id: "fight-smash", checked: smash, onchange: (e) => ((table.fight.smash = e.target.checked), renderPanels()) }),
              " Smash Attack",
            )
          : null,
        h("button", { type: "button", id: "fight", onclick: () => act("fight", fightAction).then((answer) => answer && answer.type === "ack" && ((table.fight = { target: "", weapon: "", smash: false }), render())) }, "Fight"),
        table.odds.element("fight"),
        message("fight"),
      ),
    );
  }
  const transports = unitsOf(view, (u) => u.side === table.side && u.id !== unit.id && u.profile.capacity > 0 && onTable(u));
  if (transports.length && !isVehicle(unit) && !NO_EMBARK_EDITIONS.includes(view.edition)) {
    let transport = transports[0].id;
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "embark" },
        h("h4", {}, "Embark"),
        h("select", { id: "embark-transport", onchange: (e) => (transport = e.target.value) }, ...transports.map((t) => h("option", { value: t.id }, t.name))),
        h("button", { type: "button", id: "embark", onclick: () => act("embark", { type: "embark", unit: unit.id, transport }) }, "Embark"),
        message("embark"),
      ),
    );
  }
  // 40k7 Vehicle Squadrons: a squadron abandons an Immobilised member in the Movement phase.
  if (unit.squadron && phase === "movement" && ABANDON_EDITIONS.includes(view.edition)) {
    let model = Object.keys(unit.models)[0];
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "abandon" },
        h("h4", {}, "Abandon a squadron member"),
        h("select", { id: "abandon-model", onchange: (e) => (model = e.target.value) }, ...Object.values(unit.models).filter((m) => m.alive).map((m) => h("option", { value: m.id }, m.id))),
        h("button", { type: "button", id: "abandon", onclick: () => act("abandon", { type: "abandon", unit: unit.id, model }) }, "Abandon"),
        message("abandon"),
      ),
    );
  }
  const friends = unitsOf(view, (u) => u.side === table.side && u.id !== unit.id && onTable(u));
  const enemies = unitsOf(view, (u) => u.side !== table.side && onTable(u));
  sections.push(...paragonSections(unit, view, { act, message, friends, enemies }));
  return sections;
}

// ---- the 40k7 Psychic phase: manifest a power (docs/psychic.md) -------------------------------------
// A Psyker's powers are its weapons with the rule `witchfire:X` (X: the power's Warp Charge). The
// player picks the power, its target and the Warp Charge dice to expend from the side's pool (the
// phase flag `warp:<side>:<points>`); the server judges the action and a refusal is shown here.

const isPower = (w) => (w.rules || []).some((r) => r.startsWith("witchfire:"));
const warpCharge = (w) => Number(((w.rules || []).find((r) => r.startsWith("witchfire:")) || "witchfire:1").split(":")[1]);

function warpPool(side) {
  const flag = (table.view.phase_flags || []).find((f) => f.startsWith(`warp:${side}:`));
  return flag ? Number(flag.split(":")[2]) : 0;
}

function manifestSection(unit) {
  const m = table.manifest;
  const powers = Object.values(unit.weapons).filter(isPower);
  if (!powers.some((w) => w.id === m.power)) m.power = powers[0].id;
  const power = powers.find((w) => w.id === m.power);
  const pool = warpPool(table.side);
  if (!m.dice) m.dice = Math.max(1, Math.min(warpCharge(power), pool || 1));
  const action = () => ({ type: "manifest", unit: unit.id, power: m.power, target: m.target, dice: m.dice, ...(m.snap ? { snap: true } : {}) });
  const reset = () => (table.manifest = { power: "", target: "", dice: 0, snap: false });
  return h(
    "section",
    { class: "action", "data-action": "manifest" },
    h("h4", {}, "Manifest a psychic power"),
    h("div", { class: "warp-pool", id: "warp-pool", "data-points": pool }, `Warp Charge: ${pool} point${pool === 1 ? "" : "s"} left in your pool.`),
    h("select", { id: "manifest-power", onchange: (e) => ((m.power = e.target.value), (m.dice = 0), renderPanels()) }, ...powers.map((w) => h("option", { value: w.id, selected: w.id === m.power }, `${w.name} (Warp Charge ${warpCharge(w)}, ${w.range}")`))),
    " at ",
    enemySelect("manifest-target", m.target, (v) => (m.target = v)),
    h("label", {}, " dice ", h("input", { id: "manifest-dice", type: "number", min: 1, max: Math.max(1, pool), step: 1, value: m.dice, size: 3, onchange: (e) => (m.dice = Number(e.target.value)) })),
    h("label", {}, h("input", { id: "manifest-snap", type: "checkbox", checked: m.snap, onchange: (e) => (m.snap = e.target.checked) }), " snap shots"),
    h("button", { type: "button", id: "manifest", onclick: () => act("manifest", action()).then((answer) => answer && answer.type === "ack" && (reset(), render())) }, "Manifest"),
    message("manifest"),
  );
}

// ---- shooting ------------------------------------------------------------------------------------

table.selectedWeapon = () => Object.keys(table.shoot).find((w) => table.shoot[w].on) || null;

function markClasses() {
  const marks = {};
  for (const [target, facts] of Object.entries(table.targets)) {
    marks[target] = !facts.in_range ? "out-of-range" : !facts.in_arc ? "out-of-arc" : !facts.visible ? "no-los" : "in-range";
  }
  return marks;
}

async function aim(unit, weaponId) {
  // Measure this weapon against every enemy on the table (validation only: nothing happens).
  const enemies = unitsOf(table.view, (u) => u.side !== table.side && onTable(u));
  const results = await Promise.all(
    enemies.map((e) => check({ type: "shoot", unit: unit.id, fire: [{ weapon: weaponId, target: e.id }] }).then((r) => [e.id, r])),
  );
  if (table.selected !== unit.id) return; // another unit was selected meanwhile
  table.targets = {};
  // Only this weapon's forced Snap Shots are measured again: the other ticked weapons keep theirs
  // (the map is cleared when another unit is selected).
  const forced = { ...table.forced };
  delete forced[weaponId];
  for (const [target, result] of results) {
    if (result.facts.weapons.length) table.targets[target] = { ...result.facts.weapons[0], code: result.rejected ? result.rejected.code : "ok" };
    if (result.rejected && result.rejected.code === "must_snap") forced[weaponId] = result.rejected.values.reason || "forced";
  }
  table.forced = forced;
  render();
}

function targetLine(targetId) {
  const f = table.targets[targetId];
  const target = table.view.units[targetId];
  if (!f || !target) return null;
  const mark = markClasses()[targetId];
  // Just past the range: two decimals, never "24.0 in of 24 · out of range".
  const near = f.distance !== null && f.distance !== undefined && Number(fmt1(f.distance)) === Number(f.range) && f.distance !== f.range;
  const parts = [`${target.name}: ${near ? Number(f.distance).toFixed(2) : fmt1(f.distance)} in of ${f.range}`, mark.replace(/-/g, " ")];
  if (f.facing) {
    const choice = f.facings && f.facings.length > 1 ? ` or ${f.facings.filter((x) => x !== f.facing).join(", ")} (the owner chooses)` : "";
    parts.push(`hits ${f.facing} (armour ${f.armour})${choice}`, `hidden ${Math.round((f.hidden_share || 0) * 100)}%${f.obscured ? " · obscured (cover save)" : ""}`);
  }
  return h("li", { class: `target ${mark}`, "data-target": targetId, "data-mark": mark, "data-facing": f.facing || "", "data-armour": f.armour ?? "", "data-hidden": f.hidden_share ?? "" }, parts.join(" · "));
}

// A weapon its carrier can use: not destroyed, its model (where it names one) still alive - the
// rules refuse a weapon of a removed model (40k11 `no_firer`).
const usable = (unit, w) => !w.destroyed && !(w.model && unit.models[w.model] && !unit.models[w.model].alive);

// 40k11 Advance (docs/rules-notes.md, Movement, Advance, Fall Back): the Advance is declared first -
// the server rolls the D6 - then the unit is dragged with the kind "advance" up to M + the roll.
function advanceControl(unit) {
  const flags = unit.turn_flags || [];
  const roll = flags.find((f) => f.startsWith("advance_roll="));
  if (flags.includes("advanced")) {
    const n = roll ? Number(roll.split("=")[1]) : 0;
    return h("div", { id: "advanced", "data-roll": n }, `Advanced: rolled ${n}, may move up to ${unit.profile.m + n}" (drag with the kind advance).`);
  }
  const declare = () =>
    act("move", { type: "move", unit: unit.id, kind: "advance" }).then((answer) => {
      if (answer && answer.type === "ack") {
        table.moveKind = "advance";
        render();
      }
    });
  return h("div", {}, h("button", { type: "button", id: "advance", onclick: declare }, "Advance (roll a D6)"));
}

function shootSection(unit) {
  const snapShots = !NO_SNAP_EDITIONS.includes(table.view.edition);
  const rows = Object.values(unit.weapons)
    // A casualty fires nothing (every edition refuses its weapons: model_dead / no_firer).
    .filter((w) => w.type !== "melee" && w.range > 0 && usable(unit, w))
    .map((w) => {
      const state = table.shoot[w.id] || { on: false, target: "", snap: false };
      const forced = table.forced && table.forced[w.id];
      return h(
        "div",
        { class: "weapon-row", "data-weapon": w.id },
        h(
          "label",
          {},
          h("input", {
            type: "checkbox",
            class: "fire-weapon",
            "data-weapon": w.id,
            checked: state.on,
            onchange: (e) => {
              table.shoot[w.id] = { ...state, on: e.target.checked };
              if (e.target.checked) aim(unit, w.id);
              else render();
            },
          }),
          ` ${w.name} (${w.range}")`,
        ),
        " ",
        enemySelect(`fire-target-${w.id}`, state.target, (v) => {
          table.shoot[w.id] = { ...(table.shoot[w.id] || state), target: v };
          renderPanels();
        }),
        !snapShots ? null : h("label", {}, h("input", { type: "checkbox", class: "fire-snap", "data-weapon": w.id, checked: state.snap || !!forced, onchange: (e) => ((table.shoot[w.id] = { ...(table.shoot[w.id] || state), snap: e.target.checked }), renderPanels()) }), " snap"),
        forced ? h("span", { class: "forced" }, ` Snap Shots forced: ${forced}`) : null,
      );
    });
  const targets = Object.keys(table.targets).map(targetLine).filter(Boolean);
  const chosen = Object.entries(table.shoot).filter(([, s]) => s.on);
  const action = { type: "shoot", unit: unit.id, fire: chosen.map(([weapon, s]) => (s.snap || (table.forced && table.forced[weapon]) ? { weapon, target: s.target, snap: true } : { weapon, target: s.target })) };
  const untargeted = chosen.find(([, s]) => !s.target);
  table.odds.want("shoot", !chosen.length ? null : untargeted ? `choose a target for ${unit.weapons[untargeted[0]].name}` : action, table.view.seq);
  const fire = () => {
    act("shoot", action).then((answer) => {
      if (answer && answer.type === "ack") {
        table.shoot = {};
        table.targets = {};
        table.forced = {};
        render();
      }
    });
  };
  return h(
    "section",
    { class: "action", "data-action": "shoot" },
    h("h4", {}, "Shoot"),
    ...rows,
    targets.length ? h("ul", { class: "targets" }, ...targets) : null,
    h("button", { type: "button", id: "fire", onclick: fire }, "Fire"),
    table.odds.element("shoot"),
    message("shoot"),
  );
}

// ---- disembarking: click the table to place each model, then confirm ------------------------------

// Editions with squadrons that may abandon an Immobilised member (40k7 Vehicle Squadrons).
const ABANDON_EDITIONS = ["40k7"];

// Editions whose core has no Embark in the battle: none now (40k11 has Transports too:
// docs/rules-notes.md, 40k11 Transports).
const NO_EMBARK_EDITIONS = [];

// Editions without Snap Shots (40k11: a shot is never a Snap Shot; `snap` is not part of its rules).
const NO_SNAP_EDITIONS = ["40k11"];

// Editions whose disembarking unit may leave out a model that cannot be placed (hh3 Transport
// sub-type, Embarking / Disembarking: it is a casualty).
const LEAVE_OUT_EDITIONS = ["hh3"];

function disembarkSection(unit) {
  const placing = table.placing && table.placing.unit === unit.id ? table.placing : null;
  const models = Object.values(unit.models).filter((m) => m.alive);
  const next = placing ? models.find((m) => !placing.positions[m.id]) : null;
  return h(
    "section",
    { class: "action", "data-action": "disembark" },
    h("h4", {}, `Disembark from ${unitLabel(table.view, unit.embarked_in)}`),
    placing
      ? h("div", { id: "disembark-next" }, next ? `click the table to place ${next.id}` : "every model placed")
      : h("button", { type: "button", id: "disembark-place", onclick: () => startPlacing(unit) }, "Place the models"),
    placing && !next ? h("button", { type: "button", id: "disembark", onclick: () => sendDisembark(unit, placing) }, "Disembark") : null,
    // hh3: a model with no room to stand is left out and lost; the rules refuse to leave out one
    // that could be placed (docs/table.md, Disembark). 40k7 places every model.
    placing && next && LEAVE_OUT_EDITIONS.includes(table.view.edition) && Object.keys(placing.positions).length
      ? h(
          "button",
          { type: "button", id: "disembark-partial", title: "models left out are lost: only those with no room to be placed may be", onclick: () => sendDisembark(unit, placing) },
          `Disembark, leaving ${models.filter((m) => !placing.positions[m.id]).length} out`,
        )
      : null,
    placing ? h("button", { type: "button", id: "disembark-cancel", onclick: () => ((table.placing = null), drawPlacing(), renderPanels()) }, "Cancel") : null,
    message("disembark"),
  );
}

// Refused, the placements stay: the player places the models left out, or moves on with Cancel.
async function sendDisembark(unit, placing) {
  const answer = await act("disembark", { type: "disembark", unit: unit.id, positions: { ...placing.positions } });
  if (answer && answer.type === "ack" && table.placing === placing) {
    table.placing = null;
    drawPlacing();
  }
}

function drawPlacing() {
  board.overlay = board.overlay.filter((o) => !o.placing);
  const placing = table.placing;
  if (placing) {
    const unit = table.view.units[placing.unit];
    if (placing.area) board.overlay.push({ kind: "area", placing: true, polygons: placing.area });
    for (const [id, pos] of Object.entries(placing.positions)) {
      board.overlay.push({ kind: "ghost", placing: true, model: unit.models[id], pos, heading: unit.models[id].heading, state: "ok" });
    }
  }
  board.renderOverlay();
}

// The legal area comes from the server (the facts of a check of this disembark, measured with
// the edition's own rule: docs/table.md).
async function startPlacing(unit) {
  table.placing = { unit: unit.id, positions: {}, area: null };
  renderPanels();
  try {
    const result = await check({ type: "disembark", unit: unit.id, positions: {} });
    if (table.placing && table.placing.unit === unit.id) {
      table.placing.area = result.facts.area;
      drawPlacing();
    }
  } catch (error) {
    table.errors.push(String(error));
  }
}

function insidePolygon([x, y], ring) {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

// A click just outside the legal area (an hh3 area is a strip 0.05 in wide, finer than a screen
// pixel) is moved onto the nearest point of the area, a hair inside its edge.
const SNAP_INSIDE = 0.02;
const SNAP_REACH = 1.0;

function snapInto(point, rings, { inside = (q) => rings.some((r) => insidePolygon(q, r)), reach = SNAP_REACH } = {}) {
  if (!rings || !rings.length || inside(point)) return point;
  let best = null;
  for (const ring of rings) {
    for (let i = 0; i < ring.length; i += 1) {
      const [ax, ay] = ring[i];
      const [bx, by] = ring[(i + 1) % ring.length];
      const dx = bx - ax;
      const dy = by - ay;
      const t = Math.max(0, Math.min(1, ((point[0] - ax) * dx + (point[1] - ay) * dy) / (dx * dx + dy * dy || 1)));
      const q = [ax + t * dx, ay + t * dy];
      const d = Math.hypot(q[0] - point[0], q[1] - point[1]);
      if (!best || d < best.d) best = { q, d };
    }
  }
  if (!best || best.d > reach) return point;
  const ux = (best.q[0] - point[0]) / (best.d || 1);
  const uy = (best.q[1] - point[1]) / (best.d || 1);
  return [Number((best.q[0] + ux * SNAP_INSIDE).toFixed(3)), Number((best.q[1] + uy * SNAP_INSIDE).toFixed(3))];
}

function tableClick(point) {
  if (table.deepStrike) {
    deepStrikeAt(point);
    return;
  }
  if (placingMarkerNow()) {
    act("setup", { type: "place_marker", at: point });
    return;
  }
  const placing = table.placing;
  if (!placing) return;
  const unit = table.view.units[placing.unit];
  const next = Object.values(unit.models).find((m) => m.alive && !placing.positions[m.id]);
  if (!next) return;
  placing.positions[next.id] = snapInto(point, placing.area);
  drawPlacing();
  renderPanels();
}

// ---- moving by drag, checked live ------------------------------------------------------------------

function modelDown(unitId, modelId, point, event) {
  if (tools.modelDown(unitId, modelId, point, event)) return;
  if (pickModel(unitId, modelId, event)) return; // an allocation: the model clicked is the choice
  if (table.placing) return; // placing disembarking models: a drag from the transport places one
  if (table.adjust) return; // adjusting a placed unit: its ghosts are dragged, not its models
  const unit = table.view && table.view.units[unitId];
  if (!unit || unit.side !== table.side || !myTurn() || table.drag) return;
  if (inSetup() && !toPlace(unit)) return; // set-up: only a unit still to deploy is dragged
  if (table.selected !== unitId) {
    table.selected = unitId;
    render();
  }
  event.preventDefault();
  if (toPlace(unit)) {
    startDeployDrag(unit, modelId, point, event);
    return;
  }
  const lead = leadModel(unit);
  // Every model moves by the displacement of the one dragged; the path is the lead model's.
  // Ctrl (or Cmd) + drag moves only the pressed model (the others stay: `positions`).
  const single = event.ctrlKey || event.metaKey ? modelId : null;
  const held = single ? unit.models[modelId] : lead;
  table.drag = {
    unit: unitId,
    single,
    offset: [held.pos[0] - point[0], held.pos[1] - point[1]],
    waypoints: [],
    current: [held.pos[0], held.pos[1]],
    heading: held.heading,
    turned: false,
    pointer: event.pointerId,
    checkedKey: null,
    inflight: false,
  };
  board.svg.setPointerCapture && board.svg.setPointerCapture(event.pointerId);
  updateDrag(point);
}

function leadPoint(point) {
  const d = table.drag;
  return [Number((point[0] + d.offset[0]).toFixed(2)), Number((point[1] + d.offset[1]).toFixed(2))];
}

function draggedModel(unit) {
  const d = table.drag;
  return d.single ? unit.models[d.single] : leadModel(unit);
}

function dragAction() {
  const d = table.drag;
  const unit = table.view.units[d.unit];
  if (d.deploy) return deployAction(d, unit);
  if (isVehicle(unit) && !d.single && !d.waypoints.length && d.turned && stayed(d, unit)) {
    // Turned without moving: the same gesture is a pivot (drag the handle, or the wheel).
    return { type: "pivot", unit: d.unit, heading: Number((((d.heading % 360) + 360) % 360).toFixed(1)) };
  }
  const action = { type: "move", unit: d.unit };
  if (table.adjust && table.adjust.unit === d.unit) {
    // Adjusting single models of a placed unit: every model's end point, in ONE move.
    action.positions = { ...table.adjust.positions };
    if (d.adjustModel) action.positions[d.adjustModel] = d.current;
    if (table.adjust.heading !== undefined) action.heading = table.adjust.heading;
    if (table.moveKind !== "normal") action.kind = table.moveKind;
    if (["tank_shock", "ram"].includes(table.moveKind) && table.moveTarget) action.target = table.moveTarget;
    return action;
  }
  if (d.single) {
    action.positions = {};
    for (const m of Object.values(unit.models).filter((m) => m.alive)) action.positions[m.id] = m.id === d.single ? d.current : m.pos;
  } else {
    action.path = [...d.waypoints, d.current];
  }
  if (isVehicle(unit)) {
    // A vehicle faces along its last leg unless the wheel turned it.
    const from = d.waypoints.length && !d.single ? d.waypoints[d.waypoints.length - 1] : draggedModel(unit).pos;
    const dx = d.current[0] - from[0];
    const dy = d.current[1] - from[1];
    const along = Math.hypot(dx, dy) > 0.05 ? (Math.atan2(dy, dx) * 180) / Math.PI : draggedModel(unit).heading;
    action.heading = Number(((((d.turned ? d.heading : along) % 360) + 360) % 360).toFixed(1));
  }
  if (table.moveKind !== "normal") action.kind = table.moveKind;
  if (["tank_shock", "ram"].includes(table.moveKind) && table.moveTarget) action.target = table.moveTarget;
  return action;
}

function drawDrag(state, text, stop = null) {
  const d = table.drag;
  if (!d) return;
  const unit = table.view.units[d.unit];
  const lead = draggedModel(unit);
  const action = dragAction();
  const dx = d.current[0] - lead.pos[0];
  const dy = d.current[1] - lead.pos[1];
  const heading = action.heading ?? lead.heading;
  if (table.adjust && table.adjust.unit === d.unit) {
    drawAdjust(state, text, action.positions);
    return;
  }
  if (d.deploy) {
    drawDeploy(d, unit, action, state, text);
    return;
  }
  board.overlay = board.overlay.filter((o) => o.kind !== "path" && o.kind !== "handle" && !(o.kind === "ghost" && o.drag));
  board.overlay.push({ kind: "path", points: [lead.pos, ...d.waypoints, d.current], state, text });
  if (d.rotating) board.overlay.push(handleItem(unit, d.current, heading));
  for (const m of Object.values(unit.models).filter((m) => m.alive && (!d.single || m.id === d.single))) {
    board.overlay.push({ kind: "ghost", drag: true, model: m, pos: [m.pos[0] + dx, m.pos[1] + dy], heading: m.hull ? heading : m.heading, state });
  }
  if (stop) {
    // A Tank Shock or Ram that stops short: a second ghost where the Tank will halt.
    board.overlay.push({ kind: "ghost", drag: true, halt: true, model: lead, pos: stop, heading, state: `${state} halt` });
  }
  board.renderOverlay();
}

// The check's answer as the drag draws it: refused (red), legal (green), or legal but stopping
// short of where it was dragged (amber: a 40k7 Tank Shock or Ram halted without a die).
function checkState(result) {
  if (!result.ok) return "rejected";
  return result.facts.stops_at ? "warn" : "ok";
}

function drawChecked(result) {
  drawDrag(checkState(result), describeCheck(result), result.ok ? result.facts.stops_at : null);
}

// 40k7 Vehicles, Tanks: what the check cannot foresee - the dice may stop the Tank sooner.
const HALT_DICE = {
  tank_shock: "a Death or Glory may stop it sooner [40k7 Vehicles, Tanks: Tank Shock]",
  ram: "a Ram or a Death or Glory may stop it sooner [40k7 Vehicles, Tanks: Ramming]",
};

function describeHalt(f) {
  if (!f.stops_at) return "";
  const kind = table.drag ? dragAction().kind : null;
  const dice = HALT_DICE[kind] || HALT_DICE.tank_shock;
  return `stops at ${fmt1(f.stops_after)} in: 1" short of ${f.stops_because} (${dice})`;
}

function describeCheck(result) {
  const f = result.facts;
  const used = f.distance !== null ? `${fmt1(f.distance)} / ${fmt1(f.allowance)} in · ${(f.speed_band || "").replace("_", " ")}` : "";
  if (result.ok && f.stops_at) return `${describeHalt(f)} · ${used}`;
  return result.ok ? used : `${result.rejected.message}${used ? ` (${used})` : ""}`;
}

function setMoveStatus(result) {
  const el = $("move-status");
  if (!result) {
    el.textContent = "";
    el.className = "move-status";
    return;
  }
  const state = checkState(result);
  el.className = `move-status ${state}`;
  el.dataset.code = result.ok ? "ok" : result.rejected.code;
  el.dataset.distance = result.facts.distance ?? "";
  el.dataset.allowance = result.facts.allowance ?? "";
  el.dataset.band = result.facts.speed_band ?? "";
  el.dataset.stopsAfter = result.ok ? (result.facts.stops_after ?? "") : "";
  const verdict = { ok: "legal", warn: "legal, stops short", rejected: "refused" }[state];
  el.textContent = `${verdict}: ${describeCheck(result)}${result.ok ? "" : ` [${result.rejected.rule}]`}`;
}

async function liveCheck() {
  const d = table.drag;
  if (!d || d.inflight) return;
  const action = dragAction();
  const key = JSON.stringify(action);
  if (key === d.checkedKey) return;
  d.inflight = true;
  d.checkedKey = key;
  try {
    const result = await check(action);
    if (table.drag !== d) return;
    table.lastCheck = { key, result };
    if (JSON.stringify(dragAction()) === key) {
      drawChecked(result);
      setMoveStatus(result);
    }
  } catch (error) {
    table.errors.push(String(error));
  } finally {
    d.inflight = false;
  }
}

function updateDrag(point) {
  const d = table.drag;
  if (d.aim) {
    updateAimDrag(point);
    return;
  }
  if (d.place) {
    updatePlaceDrag(point);
    return;
  }
  if (d.rotating) d.heading = headingTowards(draggedModel(table.view.units[d.unit]).pos, point);
  else d.current = leadPoint(point);
  const key = JSON.stringify(dragAction());
  const known = table.lastCheck && table.lastCheck.key === key ? table.lastCheck.result : null;
  if (known) drawChecked(known);
  else drawDrag("checking", "");
  const now = performance.now();
  if (!d.lastCheckAt || now - d.lastCheckAt > CHECK_INTERVAL_MS) {
    d.lastCheckAt = now;
    liveCheck();
  } else {
    clearTimeout(d.checkTimer);
    d.checkTimer = setTimeout(liveCheck, CHECK_INTERVAL_MS);
  }
}

async function finishDrag(point, addWaypoint, addAdjust = false) {
  const d = table.drag;
  if (d.aim) {
    finishAimDrag(point);
    return;
  }
  if (d.place) {
    finishPlaceDrag(point);
    return;
  }
  if (d.rotating) d.heading = headingTowards(draggedModel(table.view.units[d.unit]).pos, point);
  else d.current = leadPoint(point);
  if (d.deploy) {
    clearTimeout(d.checkTimer);
    finishDeploy(d);
    return;
  }
  if (addWaypoint && !d.single) {
    d.waypoints.push(d.current);
    d.released = true; // keep following the pointer; the next click ends the move
    updateDrag(point);
    return;
  }
  clearTimeout(d.checkTimer);
  if (d.adjustModel) {
    table.adjust.positions[d.adjustModel] = d.current; // adjusted; the move is sent with Enter
    table.drag = null;
    refreshAdjust();
    return;
  }
  if (addAdjust && !d.single && !d.rotating && unitModels(d.unit).length > 1) {
    startAdjust(d);
    return;
  }
  const action = dragAction();
  const lead = draggedModel(table.view.units[d.unit]);
  if (!d.waypoints.length && Math.hypot(d.current[0] - lead.pos[0], d.current[1] - lead.pos[1]) < 0.1 && !d.turned) {
    cancelDrag(); // a click, not a move
    return;
  }
  const answer = await act("move", action);
  const key = JSON.stringify(action);
  if (answer && answer.type === "ack") {
    cancelDrag();
    return;
  }
  // Refused: the path stays, red, with the server's reason where the player let go.
  const reason = answer ? describeAnswer(answer).text : "not sent";
  drawDrag("rejected", reason);
  const result = table.lastCheck && table.lastCheck.key === key ? table.lastCheck.result : null;
  if (result) setMoveStatus(result);
  table.drag = null;
}

function cancelDrag() {
  if (table.drag && table.drag.aim && table.aim) {
    table.aim.point = table.drag.from; // Esc: back where it was
    table.drag = null;
    drawAim();
    return;
  }
  if (table.drag && table.drag.place && table.placement) {
    table.placement.positions[table.drag.placeModel] = table.drag.from; // Esc: back where it was
    table.drag = null;
    drawPlacement();
    return;
  }
  if (table.drag) clearTimeout(table.drag.checkTimer);
  table.drag = null;
  board.overlay = board.overlay.filter((o) => o.kind !== "path" && !(o.kind === "ghost" && o.drag));
  drawHandle();
  setMoveStatus(null);
}

// ---- squadrons and infantry: drag the unit, adjust single models, send ONE move ------------------
// Alt+release ends the unit's drag without acting: its models stay as ghosts where the drag put
// them; dragging a ghost adjusts that model alone; Enter (or "Send the move") sends one Move with
// every model's end point (`positions`), Esc drops it. Each step is checked live like a drag.

const unitModels = (unitId) => Object.values(table.view.units[unitId].models).filter((m) => m.alive);

function startAdjust(d) {
  const unit = table.view.units[d.unit];
  const lead = draggedModel(unit);
  const dx = d.current[0] - lead.pos[0];
  const dy = d.current[1] - lead.pos[1];
  const positions = {};
  for (const m of unitModels(d.unit)) positions[m.id] = [Number((m.pos[0] + dx).toFixed(2)), Number((m.pos[1] + dy).toFixed(2))];
  const heading = isVehicle(unit) ? dragAction().heading : undefined;
  table.adjust = { unit: d.unit, positions, heading };
  table.drag = null;
  refreshAdjust();
}

function adjustAction() {
  const a = table.adjust;
  const action = { type: "move", unit: a.unit, positions: { ...a.positions } };
  if (a.heading !== undefined) action.heading = a.heading;
  if (table.moveKind !== "normal") action.kind = table.moveKind;
  if (["tank_shock", "ram"].includes(table.moveKind) && table.moveTarget) action.target = table.moveTarget;
  return action;
}

function drawAdjust(state, text, positions) {
  const a = table.adjust;
  const unit = table.view.units[a.unit];
  board.overlay = board.overlay.filter((o) => o.kind !== "path" && o.kind !== "handle" && !(o.kind === "ghost" && o.drag));
  for (const m of unitModels(a.unit)) {
    const pos = positions[m.id] || m.pos;
    board.overlay.push({ kind: "path", points: [m.pos, pos], state, text: m.id === leadModel(unit).id ? text : "" });
    board.overlay.push({ kind: "ghost", drag: true, model: m, pos, heading: m.hull && a.heading !== undefined ? a.heading : m.heading, state });
  }
  board.renderOverlay();
  document.body.dataset.adjusting = a.unit;
}

async function refreshAdjust() {
  const a = table.adjust;
  if (!a) return;
  const action = adjustAction();
  drawAdjust("checking", "", action.positions);
  renderPanels();
  try {
    const result = await check(action);
    if (table.adjust !== a || JSON.stringify(adjustAction()) !== JSON.stringify(action)) return;
    table.lastCheck = { key: JSON.stringify(action), result };
    drawAdjust(result.ok ? "ok" : "rejected", describeCheck(result), action.positions);
    setMoveStatus(result);
  } catch (error) {
    table.errors.push(String(error));
  }
}

async function sendAdjust() {
  const a = table.adjust;
  if (!a) return;
  const answer = await act("move", adjustAction());
  if (answer && answer.type === "ack") endAdjust();
  else if (table.adjust === a) drawAdjust("rejected", answer ? describeAnswer(answer).text : "not sent", a.positions);
}

function endAdjust() {
  table.adjust = null;
  delete document.body.dataset.adjusting;
  cancelDrag();
  renderPanels();
}

function adjustSection() {
  const a = table.adjust;
  return h(
    "div",
    { id: "adjusting" },
    `Adjusting ${Object.keys(a.positions).length} models: drag one to move it alone. `,
    h("button", { type: "button", id: "adjust-send", onclick: sendAdjust }, "Send the move"),
    " ",
    h("button", { type: "button", id: "adjust-cancel", onclick: endAdjust }, "Cancel"),
  );
}

board.svg.addEventListener(
  "pointerdown",
  (event) => {
    if (!grabPlaced(event) && !grabAim(event)) return;
    event.preventDefault();
    event.stopPropagation();
  },
  { capture: true },
);

// A press on a ghost while adjusting grabs that model (the ghosts take no pointer events: the
// nearest ghost within its base or hull is found here, before the board's own handlers).
board.svg.addEventListener(
  "pointerdown",
  (event) => {
    const a = table.adjust;
    if (!a || table.drag || event.button !== 0) return;
    const point = board.toTable(event.clientX, event.clientY);
    let best = null;
    for (const m of unitModels(a.unit)) {
      const pos = a.positions[m.id];
      const reach = m.hull ? Math.max(m.hull.length, m.hull.width) / 2 : ((m.base_mm || 32) / 25.4) / 2 + 0.1;
      const d = Math.hypot(pos[0] - point[0], pos[1] - point[1]);
      if (d <= reach && (!best || d < best.d)) best = { m, d, pos };
    }
    if (!best) return;
    event.preventDefault();
    event.stopPropagation();
    table.drag = { unit: a.unit, single: null, adjustModel: best.m.id, offset: [best.pos[0] - point[0], best.pos[1] - point[1]], waypoints: [], current: [...best.pos], heading: best.m.heading, turned: false, pointer: event.pointerId, checkedKey: null, inflight: false };
    board.svg.setPointerCapture && board.svg.setPointerCapture(event.pointerId);
    updateDrag(point);
  },
  { capture: true },
);

// ---- the rotate handle: drag it to turn the selected vehicle (a pivot when it does not move) -----

const HANDLE_REACH_IN = 1.5; // the knob sits this far ahead of the hull's front

const stayed = (d, unit) => Math.hypot(d.current[0] - draggedModel(unit).pos[0], d.current[1] - draggedModel(unit).pos[1]) < 0.05;
const headingTowards = (from, to) => Number(((((Math.atan2(to[1] - from[1], to[0] - from[0]) * 180) / Math.PI) % 360 + 360) % 360).toFixed(1));

function handleItem(unit, pos, heading) {
  const m = leadModel(unit);
  const reach = (m.hull ? m.hull.length / 2 : 1) + HANDLE_REACH_IN;
  const rad = (heading * Math.PI) / 180;
  return { kind: "handle", unit: unit.id, from: pos, pos: [pos[0] + reach * Math.cos(rad), pos[1] + reach * Math.sin(rad)] };
}

function drawHandle() {
  board.overlay = board.overlay.filter((o) => o.kind !== "handle");
  const unit = table.view && table.selected ? table.view.units[table.selected] : null;
  const movable = inSetup() ? unit && toPlace(unit) && !offTableModel(leadModel(unit)) : unit && onTable(unit) && !whereIs(unit.id);
  if (unit && movable && unit.side === table.side && myTurn() && isVehicle(unit) && !table.drag && !table.adjust) {
    const m = leadModel(unit);
    board.overlay.push(handleItem(unit, m.pos, m.heading));
  }
  board.renderOverlay();
}

board.svg.addEventListener("pointerdown", (event) => {
  const knob = event.target.closest && event.target.closest(".rotate-handle");
  if (!knob || table.drag || !myTurn()) return;
  const unit = table.view.units[knob.dataset.unit];
  if (!unit) return;
  event.preventDefault();
  event.stopPropagation();
  if (toPlace(unit)) {
    startDeployDrag(unit, leadModel(unit).id, board.toTable(event.clientX, event.clientY), event, { rotating: true });
    return;
  }
  const lead = leadModel(unit);
  table.drag = { unit: unit.id, single: null, rotating: true, offset: [0, 0], waypoints: [], current: [lead.pos[0], lead.pos[1]], heading: lead.heading, turned: true, pointer: event.pointerId, checkedKey: null, inflight: false };
  board.svg.setPointerCapture && board.svg.setPointerCapture(event.pointerId);
  updateDrag(board.toTable(event.clientX, event.clientY));
});

board.svg.addEventListener("pointermove", (event) => {
  if (!table.drag) return;
  updateDrag(board.toTable(event.clientX, event.clientY));
});
board.svg.addEventListener("pointerup", (event) => {
  if (!table.drag) return;
  if (table.drag.released && !event.shiftKey && !table.drag.downAgain) return;
  table.drag.downAgain = false;
  finishDrag(board.toTable(event.clientX, event.clientY), event.shiftKey, event.altKey);
});
board.svg.addEventListener("pointerdown", (event) => {
  if (table.drag && table.drag.released) table.drag.downAgain = true;
});
board.svg.addEventListener(
  "wheel",
  (event) => {
    if (!table.drag || table.drag.place) return;
    event.preventDefault();
    const d = table.drag;
    if (!d.turned) d.heading = dragAction().heading ?? d.heading;
    d.turned = true;
    d.heading = (((d.heading + (event.deltaY < 0 ? WHEEL_STEP_DEG : -WHEEL_STEP_DEG)) % 360) + 360) % 360;
    updateDrag(board.toTable(event.clientX, event.clientY));
  },
  { passive: false },
);
// The kind of move can be changed inside the gesture: a key while dragging (the check follows).
const KIND_KEYS = { n: "normal", r: "run", f: "flat_out", t: "tank_shock", x: "ram", u: "rush", a: "advance", b: "fall_back", c: "charge" };

window.addEventListener("keydown", (event) => {
  if (table.deepStrike && !table.drag && event.key === "Escape") {
    cancelDeepStrike();
    return;
  }
  if (table.adjust && !table.drag) {
    if (event.key === "Enter") sendAdjust();
    if (event.key === "Escape") endAdjust();
    return;
  }
  if (!table.drag) return;
  if (event.key === "Escape") {
    cancelDrag();
    return;
  }
  if (table.drag.place) return;
  const kind = KIND_KEYS[event.key.toLowerCase()];
  if (kind && moveKindsOf(table.view.units[table.drag.unit]).includes(kind)) {
    table.moveKind = kind;
    const select = $("move-kind");
    if (select) select.value = kind;
    const d = table.drag;
    updateDrag([d.current[0] - d.offset[0], d.current[1] - d.offset[1]]);
  }
});

// ---- set-up: the roll-off, deploying by drag, reserves (docs/missions.md) -------------------------
// During set-up the deploying side drags each of its units into its zone (or presses "Place" and
// clicks where it goes): every model moves with the one held, the wheel (or the rotate handle)
// turns a vehicle, each step is checked live (POST /check answers exactly what the deploy would)
// and the release sends it. A unit arriving from reserve in the battle is placed the same way.
// Roll-offs and Seize the Initiative are decisions (the dialog below).

const OFF_TABLE_BELOW = -100; // a model at the server's off-table point (match/placing.py) waits off the table
const FORMATION_GAP_IN = 0.25; // a unit placed from off the table starts in a row, this far apart

const setupStep = () => (table.view && table.view.mission ? table.view.mission.step : "battle");
const inSetup = () => setupStep() !== "battle";
const whereIs = (unitId) => (table.view.mission && table.view.mission.off_table ? table.view.mission.off_table[unitId] : undefined);
const offTableModel = (m) => m.pos[0] < OFF_TABLE_BELOW || m.pos[1] < OFF_TABLE_BELOW;
// Objective markers the players place in turn before deployment: a click on the table places one.
const placingMarkerNow = () => setupStep() === "markers" && table.view.mission.deploying === table.side && !table.view.ended && !takebackPending();
const deployingNow = () => ["deploy", "infiltrate"].includes(setupStep()) && table.view.mission.deploying === table.side && !table.view.ended && !takebackPending();
// 40k7 Scout: the unit whose redeployment the set-up waits for (its owner said "redeploy").
const scoutingNow = (unit) => setupStep() === "scout" && table.view.mission.scouting === unit.id && !table.view.pending && unit.side === table.side;

// A unit this side may place now: still to deploy while it deploys, or arriving from reserve.
function toPlace(unit) {
  const where = whereIs(unit.id);
  if (unit.side !== table.side || unit.embarked_in) return false;
  if (scoutingNow(unit)) return true;
  // Units arrive from reserve in their side's Movement phase only (match/arrivals.py).
  return (where === "undeployed" && deployingNow()) || (where === "arriving" && myTurn() && !inSetup() && table.view.phase === "movement");
}

// Each model's offset from the held one: as they stand, or a row when they wait off the table.
function formation(unit, heldId) {
  const models = unitModels(unit.id);
  const held = unit.models[heldId];
  const offsets = {};
  if (!models.some(offTableModel)) {
    for (const m of models) offsets[m.id] = [m.pos[0] - held.pos[0], m.pos[1] - held.pos[1]];
    return offsets;
  }
  let x = 0;
  models.forEach((m, i) => {
    const size = m.hull ? m.hull.width : (m.base_mm || 25) / 25.4;
    if (i > 0) x += size + FORMATION_GAP_IN;
    offsets[m.id] = [x, 0];
  });
  const shift = offsets[heldId][0];
  for (const id of Object.keys(offsets)) offsets[id] = [offsets[id][0] - shift, 0];
  return offsets;
}

function zoneCentre() {
  const mission = table.view.mission;
  const id = (mission.zones || {})[table.side] || (table.side === "a" ? "A" : "B");
  const zone = mission.mission.deployment.zones.find((z) => z.id === id);
  if (!zone) return [table.view.battlefield.width / 2, table.view.battlefield.height / 2];
  const n = zone.points.length;
  return [zone.points.reduce((s, p) => s + p[0], 0) / n, zone.points.reduce((s, p) => s + p[1], 0) / n];
}

function startDeployDrag(unit, modelId, point, event, { rotating = false, released = false, heading } = {}) {
  const held = unit.models[modelId];
  const start = offTableModel(held) ? point : held.pos;
  table.drag = {
    unit: unit.id,
    deploy: true,
    held: modelId,
    offsets: formation(unit, modelId),
    single: null,
    rotating,
    released, // "Place": the models follow the pointer; the next click drops them
    offset: released || offTableModel(held) ? [0, 0] : [held.pos[0] - point[0], held.pos[1] - point[1]],
    waypoints: [],
    current: [start[0], start[1]],
    heading: heading ?? held.heading,
    turned: rotating || heading !== undefined,
    pointer: event ? event.pointerId : null,
    checkedKey: null,
    inflight: false,
  };
  if (event && board.svg.setPointerCapture && event.pointerId !== undefined) board.svg.setPointerCapture(event.pointerId);
  updateDrag(rotating ? point : [start[0] - table.drag.offset[0], start[1] - table.drag.offset[1]]);
}

function startPlace(unit) {
  select(unit.id);
  const lead = leadModel(unit);
  const field = $("place-heading");
  if (field && field.value !== "") setPlaceHeading(unit, field.value);
  startDeployDrag(unit, lead.id, zoneCentre(), null, { released: true, heading: isVehicle(unit) ? placeHeading(unit) : undefined });
}

// The heading a vehicle is placed at with "Place" (the field beside it): what the player typed,
// else the heading it has now. Typed while its models follow the pointer, it turns them at once.
const normalHeading = (deg) => Number((((deg % 360) + 360) % 360).toFixed(1));
function placeHeading(unit) {
  const typed = table.placeHeading && table.placeHeading.unit === unit.id ? table.placeHeading.heading : null;
  return typed ?? normalHeading(leadModel(unit).heading);
}

function setPlaceHeading(unit, value) {
  const deg = Number(value);
  if (value === "" || !Number.isFinite(deg)) return;
  table.placeHeading = { unit: unit.id, heading: normalHeading(deg) };
  const d = table.drag;
  if (d && d.deploy && d.released && d.unit === unit.id) {
    d.heading = table.placeHeading.heading;
    d.turned = true;
    updateDrag([d.current[0] - d.offset[0], d.current[1] - d.offset[1]]);
  }
}

function placeHeadingField(unit) {
  return h(
    "label",
    { class: "place-heading" },
    " heading ",
    h("input", { id: "place-heading", type: "number", step: 5, size: 5, value: placeHeading(unit), onchange: (e) => setPlaceHeading(unit, e.target.value), title: "degrees counter-clockwise from +x (docs/geometry.md)" }),
    "°",
  );
}

// Set-up: the side's transports still to deploy that a unit of it may start embarked in, asked of
// the server (POST /check of the embark: docs/missions.md "Set-up, as actions"). Only those it
// accepts are offered; the answer is kept per unit and sequence number.
function embarkCandidates(unit) {
  return unitsOf(table.view, (t) => t.side === unit.side && t.id !== unit.id && t.profile.capacity > 0 && !t.embarked_in && whereIs(t.id) === "undeployed");
}

function startEmbarkedControl(unit) {
  if (unit.passengers && unit.passengers.length) return null;
  const candidates = embarkCandidates(unit);
  if (!candidates.length) return null;
  const key = `${unit.id}@${table.view.seq}`;
  if (!table.embarkChecks || table.embarkChecks.key !== key) {
    table.embarkChecks = { key, answers: null };
    Promise.all(candidates.map((t) => check({ type: "embark", unit: unit.id, transport: t.id }).then((r) => [t.id, r])))
      .then((answers) => {
        if (table.embarkChecks && table.embarkChecks.key === key) {
          table.embarkChecks.answers = Object.fromEntries(answers);
          renderPanels();
        }
      })
      .catch((error) => table.errors.push(String(error)));
  }
  const answers = table.embarkChecks.answers;
  if (!answers) return h("div", { id: "start-embarked", "data-state": "asking" }, "asking the server which transports could take it…");
  const open = candidates.filter((t) => answers[t.id] && answers[t.id].ok);
  return h(
    "div",
    { id: "start-embarked", "data-state": "known" },
    ...open.map((t) =>
      h("button", { type: "button", class: "start-embarked", "data-transport": t.id, onclick: () => act("setup", { type: "embark", unit: unit.id, transport: t.id }) }, `Start embarked in ${t.name}`),
    ),
  );
}

function deployAction(d, unit) {
  const positions = {};
  for (const [id, [dx, dy]] of Object.entries(d.offsets)) positions[id] = [Number((d.current[0] + dx).toFixed(2)), Number((d.current[1] + dy).toFixed(2))];
  const action = { type: "deploy", unit: unit.id, positions };
  if (isVehicle(unit)) action.heading = Number((((d.heading % 360) + 360) % 360).toFixed(1));
  return action;
}

function drawDeploy(d, unit, action, state, text) {
  board.overlay = board.overlay.filter((o) => o.kind !== "path" && o.kind !== "handle" && !(o.kind === "ghost" && o.drag));
  const held = unit.models[d.held];
  const from = offTableModel(held) ? d.current : held.pos;
  board.overlay.push({ kind: "path", points: [from, d.current], state, text });
  if (d.rotating) board.overlay.push(handleItem(unit, d.current, action.heading ?? held.heading));
  for (const m of unitModels(unit.id)) {
    board.overlay.push({ kind: "ghost", drag: true, model: m, pos: action.positions[m.id], heading: m.hull && action.heading !== undefined ? action.heading : m.heading, state });
  }
  board.renderOverlay();
}

async function finishDeploy(d) {
  const unit = table.view.units[d.unit];
  const held = unit.models[d.held];
  if (!d.rotating && !d.released && !offTableModel(held) && Math.hypot(d.current[0] - held.pos[0], d.current[1] - held.pos[1]) < 0.1 && !d.turned) {
    cancelDrag(); // a click on the unit selects it
    return;
  }
  const action = dragAction();
  const key = JSON.stringify(action);
  const answer = await act("setup", action);
  if (answer && answer.type === "ack") {
    cancelDrag();
    return;
  }
  // Refused: the ghosts stay, red, with the server's reason where the player let go.
  const reason = answer ? describeAnswer(answer).text : "not sent";
  drawDrag("rejected", reason);
  const result = table.lastCheck && table.lastCheck.key === key ? table.lastCheck.result : null;
  setMoveStatus(result || { ok: false, rejected: { code: answer ? answer.code : "error", message: reason, rule: answer ? answer.rule : "" }, facts: {} });
  table.drag = null;
}

function setupControls() {
  const view = table.view;
  const mission = view.mission;
  const step = mission.step;
  const parts = [];
  const zone = (mission.zones || {})[table.side];
  if (step === "markers") {
    const left = mission.markers_left;
    const p = mission.mission.placement || {};
    parts.push(
      h(
        "h2",
        { id: "placing-markers", "data-side": mission.deploying, "data-left": left },
        placingMarkerNow() ? `Set-up: place an objective marker (${left} left)` : `Set-up: side ${SIDE[mission.deploying]} places an objective marker (${left} left)`,
      ),
    );
    if (placingMarkerNow()) parts.push(h("p", { class: "note" }, `Click the table: at least ${p.edge_gap ?? 6}" from every edge and ${p.spacing ?? 12}" from every other marker.`));
  } else if (step === "roll_off") {
    parts.push(h("h2", {}, "Set-up: the roll-off for deployment"));
    parts.push(h("div", { class: "buttons" }, h("button", { type: "button", id: "roll-off", onclick: () => act("setup", { type: "roll_off" }) }, "Roll off")));
  } else if (step === "deploy" || step === "infiltrate") {
    const mine = deployingNow();
    const what = step === "infiltrate" ? "set up an Infiltrator (anywhere far enough from the enemy)" : "deploy";
    parts.push(h("h2", { id: "deploying", "data-side": mission.deploying }, mine ? `Set-up: you ${what}${step === "deploy" ? ` (zone ${zone})` : ""}` : `Set-up: side ${SIDE[mission.deploying]} ${step === "infiltrate" ? "sets up an Infiltrator" : "deploys"}`));
    if (mine) parts.push(h("p", { class: "note" }, "Drag each unit into your zone (the wheel turns a vehicle), or press Place (a vehicle at the heading beside it) and click where it goes; or hold it in reserve, or start it embarked in a transport from its card."));
  } else {
    parts.push(h("h2", {}, `Set-up: ${step.replace("_", " ")}`));
  }
  const mineLeft = unitsOf(view, (u) => u.side === table.side && whereIs(u.id) && !u.embarked_in);
  // Units starting embarked are listed too: they are deployed (or held in reserve) with their transport.
  const aboard = unitsOf(view, (u) => u.side === table.side && whereIs(u.id) && u.embarked_in);
  if (mineLeft.length || aboard.length) {
    parts.push(
      h(
        "ul",
        { id: "to-deploy", class: "setup-list" },
        ...mineLeft.map((u) =>
          h(
            "li",
            { "data-unit": u.id, "data-where": whereIs(u.id) },
            h("a", { href: "#", onclick: (e) => (e.preventDefault(), select(u.id)) }, `${u.name} (${u.id})`),
            `: ${whereIs(u.id)}`,
            u.passengers && u.passengers.length ? ` with ${u.passengers.map((p) => `${view.units[p].name} (${p})`).join(", ")} embarked` : "",
          ),
        ),
        ...aboard.map((u) =>
          h(
            "li",
            { "data-unit": u.id, "data-where": whereIs(u.id), "data-embarked-in": u.embarked_in, class: "embarked" },
            h("a", { href: "#", onclick: (e) => (e.preventDefault(), select(u.id)) }, `${u.name} (${u.id})`),
            `: embarked in ${view.units[u.embarked_in].name} (${u.embarked_in})`,
          ),
        ),
      ),
    );
  }
  parts.push(message("setup"));
  return h("div", { id: "setup", "data-step": step }, ...parts);
}

// Where an arriving unit is placed (docs/missions.md "Reserves and arrivals").
const ARRIVAL_TEXT = {
  "40k7": "from your table edge (within 6\" of it, not within 1\" of an enemy)",
  hh3: "from your table edge (within 6\" of it, not within 2\" of an enemy)",
  "40k11": "within 6\" of a table edge your zone touches, more than 9\" from every enemy (Strategic Reserves)",
};

function arrivalText(unit) {
  const mission = table.view.mission;
  const edges = (mission.arrival_edges || {})[unit.id];
  if (edges) return `from the ${edges.join(" or ")} edge its Outflank roll gave`;
  const own = ARRIVAL_TEXT[table.view.edition] || ARRIVAL_TEXT["40k7"];
  if (table.view.edition === "hh3" && unit.keywords.includes("outflank")) return `${own}, or from any battlefield edge (Outflank: not in the enemy zone, 7\" from every enemy)`;
  return own;
}

function setupSection(unit) {
  const where = whereIs(unit.id);
  const placeable = toPlace(unit);
  const deepStriker = placeable && mayDeepStrike(unit, table.view, where, myTurn());
  return h(
    "section",
    { class: "action", "data-action": "setup", "data-where": where || "deployed" },
    h("h4", {}, where === "arriving" ? "Arrive from reserve" : scoutingNow(unit) ? "Scout redeploy" : "Deploy"),
    h(
      "div",
      {},
      scoutingNow(unit)
        ? `${unit.name} redeploys (Scout): drag it.`
        : unit.embarked_in
          ? `${unit.name} starts embarked in ${table.view.units[unit.embarked_in].name}: it is deployed with it${where === "undeployed" ? " (undo to take it out)" : ""}.`
          : where
          ? `${unit.name} is ${where === "undeployed" ? "still to deploy" : where === "reserve" ? "in reserve" : `arriving: place it ${arrivalText(unit)}${deepStriker ? ", or Deep Strike" : ""}`}.`
          : `${unit.name} is deployed (undo to place it again).`,
    ),
    placeable && !table.deepStrike ? h("button", { type: "button", id: "place", onclick: () => startPlace(unit) }, "Place") : null,
    placeable && !table.deepStrike && isVehicle(unit) ? placeHeadingField(unit) : null,
    deepStriker ? deepStrikeControl(unit, { armed: !!table.deepStrike, arm: () => armDeepStrike(unit), cancel: cancelDeepStrike }) : null,
    placeable && where === "undeployed" && table.view.mission.mission.reserves !== false
      ? h("button", { type: "button", id: "reserve", onclick: () => act("setup", { type: "reserve", unit: unit.id }) }, "Hold in reserve")
      : null,
    placeable && where === "undeployed" && setupStep() === "deploy" && !isVehicle(unit) ? startEmbarkedControl(unit) : null,
    message("setup"),
  );
}

// ---- 40k7 Deep Strike (js/deep-strike.js; docs/missions.md "Reserves and arrivals") ---------------
// "Deep Strike" arms the board: the scatter's reach follows the pointer and the next click on the
// table sends `deep_strike {unit, at}`. A refusal stays on the card (the board stays armed); the
// server's answer - its log lines with the scatter and Mishap dice - is shown on the unit's card
// and the landing drawn from the point aimed at.

function armDeepStrike(unit) {
  if (table.drag) cancelDrag();
  table.deepStrike = { unit: unit.id, aim: null, refused: "" };
  table.deepStrikeResult = null;
  delete table.messages.setup;
  render();
}

function cancelDeepStrike() {
  table.deepStrike = null;
  render();
}

async function deepStrikeAt(point) {
  const ds = table.deepStrike;
  const at = [Number(point[0].toFixed(2)), Number(point[1].toFixed(2))];
  ds.aim = at;
  ds.refused = "";
  drawDeepStrike();
  const answer = await act("setup", { type: "deep_strike", unit: ds.unit, at });
  if (table.deepStrike !== ds) return;
  if (!answer || answer.type !== "ack") {
    ds.refused = answer ? describeAnswer(answer).text : "not sent";
    drawDeepStrike();
    return;
  }
  table.deepStrike = null;
  table.deepStrikeResult = { unit: ds.unit, at, seq: answer.seq };
  render();
}

function drawDeepStrike() {
  board.overlay = board.overlay.filter((o) => !o.deepStrike);
  const ds = table.deepStrike;
  const done = table.deepStrikeResult;
  if (ds && ds.aim) {
    board.overlay.push(deepStrikeOverlay(ds.aim, { state: ds.refused ? "rejected" : "checking", text: ds.refused ? "refused" : "Deep Strike" }));
  } else if (!ds && done && table.view && table.selected === done.unit) {
    const known = deepStrikeOutcome(table.view, done);
    const outcome = known ? known.outcome : "";
    board.overlay.push(deepStrikeOverlay(done.at, { state: outcome === "landed" ? "landed" : outcome ? "mishap" : "", landing: known && known.landing, text: known ? "aimed here" : "" }));
  }
  board.renderOverlay();
}

board.svg.addEventListener("pointermove", (event) => {
  const ds = table.deepStrike;
  if (!ds || table.drag) return;
  ds.aim = board.toTable(event.clientX, event.clientY);
  ds.refused = "";
  drawDeepStrike();
});

// ---- decisions -----------------------------------------------------------------------------------

function renderDecision() {
  const dialog = $("decision");
  const pending = table.view.pending;
  const mine = pending && pending.side === table.side && !table.view.ended && !takebackPending();
  syncPlacement(mine ? pending : null);
  syncAim(mine ? pending : null);
  syncPick(mine ? pending : null);
  if (!mine) {
    if (dialog.open) dialog.close();
    dialog.dataset.decision = "";
    return;
  }
  const fresh = dialog.dataset.decision !== pending.id;
  if (fresh) delete table.messages.decision;
  dialog.dataset.decision = pending.id;
  // A placement decision (docs/decisions.md): the models are dragged on the board, so the dialog
  // is not modal; "Place" sends where they stand, "Take the proposal" the server's placement.
  // An aiming decision likewise: the marker (or the template) is dragged; "Aim" sends its point.
  // An allocation (docs/decisions.md): the legal models are highlighted and clicked on the board,
  // so the dialog is not modal either; the list of ids stays for a click in the dialog.
  const onBoard = !!(pending.placement || pending.aim) || !!table.pick;
  dialog.classList.toggle("placing", onBoard);
  const send = (option) =>
    act(
      "decision",
      option === "place"
        ? { type: "decide", decision: pending.id, choice: "place", place: placedPositions() }
        : option === "aim"
          ? { type: "decide", decision: pending.id, choice: "aim", aim: [...table.aim.point] }
          : { type: "decide", decision: pending.id, choice: option },
    );
  dialog.replaceChildren(
    h("h3", {}, "Your decision"),
    h("p", { class: "prompt" }, pending.prompt),
    h("p", { class: "rule" }, pending.rule),
    ...(pending.placement ? placementLines(pending.placement) : []),
    ...(pending.aim ? aimLines() : []),
    ...(table.pick ? [h("p", { class: "pick-hint" }, `Click a highlighted model on the board (${pending.options.join(", ")}), or choose below.`)] : []),
    h(
      "div",
      { class: "options" },
      ...pending.options.map((option) => h("button", { type: "button", class: "option", "data-choice": option, onclick: () => send(option) }, optionLabel(option, table.view.units, pending.side))),
    ),
    message("decision"),
  );
  const modal = onBoard ? "no" : "yes";
  if (dialog.open && dialog.dataset.modal !== modal) dialog.close(); // reopened the other way
  dialog.dataset.modal = modal;
  if (!dialog.open) {
    if (onBoard) dialog.show();
    else dialog.showModal();
  }
  // Not modal: it stands at the top of the side column (below the board in a narrow window);
  // a new decision brings it into view.
  if (fresh && onBoard) dialog.scrollIntoView({ block: "nearest" });
}

// The decision stays answerable: Esc (the dialog's cancel) does not close it while the decision
// is pending, and should the browser close it anyway (a second Esc without a click between is
// not cancelable in Chromium), it is opened again.
const decisionPending = () => {
  const pending = table.view && table.view.pending;
  return !!(pending && pending.side === table.side && !table.view.ended && !takebackPending());
};
$("decision").addEventListener("cancel", (event) => {
  if (decisionPending()) event.preventDefault();
});
$("decision").addEventListener("close", () => {
  if (decisionPending() && !$("decision").open) renderDecision();
});

// ---- choosing a model on the board for an allocation (allocate_wound, docs/decisions.md) ----------
// The models the owner may choose are ringed on the board; a press on a model of the target unit
// sends it as the choice (the server judges it: a model that may not take the wound is refused,
// and the refusal is shown in the dialog).

const PICK_KIND = "allocate_wound";

function syncPick(pending) {
  const unit = pending && pending.kind === PICK_KIND && pending.context && pending.context.unit;
  table.pick = unit ? { decision: pending.id, unit, options: pending.options } : null;
  board.overlay = board.overlay.filter((o) => !o.pick);
  if (table.pick) {
    for (const id of table.pick.options) {
      // An option is a model of the unit, or (40k7 squadrons) a member vehicle: its lead model.
      const member = table.view.units[id];
      const model = modelOf(unit, id) || (member && Object.values(member.models).find((m) => m.alive));
      if (model) board.overlay.push({ kind: "pick", pick: true, model, pos: model.pos, option: id });
    }
  }
  board.renderOverlay();
}

function pickModel(unitId, modelId, event) {
  const pick = table.pick;
  const member = pick && pick.options.includes(unitId); // a squadron's member chosen whole
  if (!pick || (unitId !== pick.unit && !member) || event.button !== 0) return false;
  event.preventDefault();
  act("decision", { type: "decide", decision: pick.decision, choice: member ? unitId : modelId });
  return true;
}

// ---- placing models for a decision: drag each within its legal area (docs/decisions.md) -----------
// The area of each model (polygons, each its exterior ring then its holes) is drawn even-odd; the
// models start at the server's proposal and are dragged one at a time (green inside the model's
// area, red outside); the server judges the answer, and a refusal is shown in the dialog.

const PLACE_SNAP_REACH = 0.3; // a release this close outside a thin area lands just inside it

const areaRings = (shapes) => (shapes || []).flat();
// Even-odd: inside when an odd number of rings (exterior rings and holes) hold the point.
const insideArea = (point, shapes) => areaRings(shapes).filter((ring) => insidePolygon(point, ring)).length % 2 === 1;

function syncPlacement(pending) {
  const placement = pending && pending.placement;
  if (!placement) {
    if (table.placement) {
      table.placement = null;
      drawPlacement();
    }
    return;
  }
  if (!table.placement || table.placement.decision !== pending.id) {
    const positions = {};
    for (const [id, pos] of Object.entries(placement.proposal)) positions[id] = [pos[0], pos[1]];
    table.placement = { decision: pending.id, unit: placement.unit, models: placement.models, area: placement.area, positions, active: null };
  }
  drawPlacement();
}

// What "Place" sends: every model with a position (one the proposal left out stays out until dragged).
const placedPositions = () => ({ ...table.placement.positions });

function placementLines(placement) {
  const p = table.placement;
  const left = placement.models.filter((id) => !p.positions[id]);
  // A model still at the server's proposal may lie beyond its drawn area (a Walker's area is the
  // circle round its hull, smaller than the truth: docs/decisions.md); the proposal is always
  // accepted, so it is not called "outside" as if it were refused.
  const atProposal = (id) => {
    const at = placement.proposal[id];
    return !!at && p.positions[id][0] === at[0] && p.positions[id][1] === at[1];
  };
  const beyond = placement.models.filter((id) => p.positions[id] && !insideArea(p.positions[id], p.area[id]));
  const outside = beyond.filter((id) => !atProposal(id));
  const kept = beyond.filter(atProposal);
  return [
    h("p", { class: "placement" }, `Proposal: ${Object.keys(placement.proposal).length} of ${placement.models.length} models placed.`),
    h(
      "p",
      { class: "placement-hint", "data-outside": outside.join(" "), "data-at-proposal": kept.join(" ") },
      "Drag the models within their areas on the board, then Place.",
      outside.length ? ` Outside its area: ${outside.join(", ")}.` : "",
      kept.length ? ` At the proposal, beyond the drawn area (Take the proposal puts it there): ${kept.join(", ")}.` : "",
      left.length ? ` Not placed (a casualty): ${left.join(", ")}.` : "",
    ),
  ];
}

function modelOf(unitId, modelId) {
  const unit = table.view.units[unitId];
  return unit && unit.models[modelId];
}

function drawPlacement(held = null, text = "") {
  board.overlay = board.overlay.filter((o) => !o.decided);
  const p = table.placement;
  if (p) {
    for (const id of p.models) board.overlay.push({ kind: "area", decided: true, evenodd: true, model: id, active: id === (held || p.active), polygons: areaRings(p.area[id]) });
    for (const [id, pos] of Object.entries(p.positions)) {
      const model = modelOf(p.unit, id);
      if (!model) continue;
      const state = insideArea(pos, p.area[id]) ? "ok" : "rejected";
      board.overlay.push({ kind: "ghost", decided: true, model, pos, heading: model.heading, state, text: id === held ? text : "" });
    }
  }
  board.renderOverlay();
}

// A press on a placed model grabs it (the ghosts take no pointer events: the nearest within its
// base is found here, before the board's own handlers); the drag itself is the table's drag.
function grabPlaced(event) {
  const p = table.placement;
  if (!p || table.drag || event.button !== 0) return false;
  const point = board.toTable(event.clientX, event.clientY);
  let best = null;
  for (const [id, pos] of Object.entries(p.positions)) {
    const m = modelOf(p.unit, id);
    const reach = m && m.hull ? Math.max(m.hull.length, m.hull.width) / 2 : ((m && m.base_mm) || 32) / 25.4 / 2 + 0.1;
    const d = Math.hypot(pos[0] - point[0], pos[1] - point[1]);
    if (d <= reach && (!best || d < best.d)) best = { id, d, pos };
  }
  if (!best) return false;
  p.active = best.id;
  table.drag = { place: true, unit: p.unit, placeModel: best.id, from: [...best.pos], offset: [best.pos[0] - point[0], best.pos[1] - point[1]], waypoints: [], current: [...best.pos], heading: 0, turned: false, pointer: event.pointerId };
  board.svg.setPointerCapture && board.svg.setPointerCapture(event.pointerId);
  updatePlaceDrag(point);
  return true;
}

function updatePlaceDrag(point) {
  const d = table.drag;
  d.current = leadPoint(point);
  table.placement.positions[d.placeModel] = d.current;
  const inside = insideArea(d.current, table.placement.area[d.placeModel]);
  drawPlacement(d.placeModel, inside ? "inside its area" : "outside its area");
}

function finishPlaceDrag(point) {
  const d = table.drag;
  const p = table.placement;
  d.current = leadPoint(point);
  const shapes = p.area[d.placeModel];
  const snapped = snapInto(d.current, areaRings(shapes), { inside: (q) => insideArea(q, shapes), reach: PLACE_SNAP_REACH });
  p.positions[d.placeModel] = [Number(snapped[0].toFixed(2)), Number(snapped[1].toFixed(2))];
  table.drag = null;
  drawPlacement();
  renderDecisionLines();
}

// The dialog's hint follows the drags (which models stand outside their areas).
function renderDecisionLines() {
  const dialog = $("decision");
  const pending = table.view.pending;
  if (pending && pending.aim) {
    const hint = dialog.querySelector("p.aim-hint");
    if (hint) hint.replaceWith(aimLines()[0]);
    return;
  }
  const old = dialog.querySelectorAll("p.placement, p.placement-hint");
  if (!pending || !pending.placement || !old.length) return;
  const lines = placementLines(pending.placement);
  old.forEach((node, i) => node.replaceWith(lines[i]));
}

// ---- aiming a blast marker or a template for a decision (docs/decisions.md) -------------------------
// A blast: the legal area of the hole is drawn even-odd with the marker at the server's proposal;
// the firer drags the marker (green while its hole is inside the area, red outside). A template:
// the wedges of its legal directions are drawn with the template pointing at the proposal; the
// firer drags the knob at its wide end to turn it round its narrow end (green in a legal
// direction). The server judges the answer; a refusal is shown in the dialog.

const TEMPLATE_ROUND_END_STEPS = 8; // as rules/wh40k7/blasts.py draws it
const AIM_GRAB_REACH = 1.0; // a press this close to the hole (or the knob) grabs it, in inches

function syncAim(pending) {
  const aim = pending && pending.aim;
  if (!aim) {
    if (table.aim) {
      table.aim = null;
      drawAim();
    }
    return;
  }
  if (!table.aim || table.aim.decision !== pending.id) {
    table.aim = { decision: pending.id, ...aim, point: [aim.proposal[0], aim.proposal[1]] };
  }
  drawAim();
}

const aimAngle = (a, point) => ((Math.atan2(point[1] - a.origin[1], point[0] - a.origin[0]) * 180) / Math.PI + 360) % 360;

function aimLegal(a, point) {
  if (a.shape === "blast") return insideArea(point, a.area);
  const angle = aimAngle(a, point);
  return (a.directions || []).some(([lo, hi]) => (lo <= angle && angle <= hi) || (lo <= angle + 360 && angle + 360 <= hi));
}

// The template's teardrop pointing from its narrow end toward ``point`` (rules/wh40k7/blasts.py).
function templatePolygon(a, point) {
  const [ox, oy] = a.origin;
  const length = a.limits.length;
  const narrow = a.limits.narrow;
  const half = a.limits.wide / 2;
  const n = Math.hypot(point[0] - ox, point[1] - oy) || 1;
  const ux = (point[0] - ox) / n;
  const uy = (point[1] - oy) / n;
  const nx = -uy;
  const ny = ux;
  const body = Math.max(0.1, length - half);
  const cx = ox + ux * body;
  const cy = oy + uy * body;
  const pts = [
    [ox + (nx * narrow) / 2, oy + (ny * narrow) / 2],
    [cx + nx * half, cy + ny * half],
  ];
  const base = Math.atan2(ny, nx);
  for (let k = 1; k < TEMPLATE_ROUND_END_STEPS; k += 1) {
    const t = base - (Math.PI * k) / TEMPLATE_ROUND_END_STEPS;
    pts.push([cx + half * Math.cos(t), cy + half * Math.sin(t)]);
  }
  pts.push([cx - nx * half, cy - ny * half], [ox - (nx * narrow) / 2, oy - (ny * narrow) / 2]);
  return pts;
}

function drawAim(text = "") {
  board.overlay = board.overlay.filter((o) => !o.aiming);
  const a = table.aim;
  if (a) {
    board.overlay.push({ kind: "area", aiming: true, evenodd: true, model: "aim", active: true, polygons: areaRings(a.area) });
    const state = aimLegal(a, a.point) ? "ok" : "rejected";
    if (a.shape === "blast") board.overlay.push({ kind: "marker", aiming: true, pos: a.point, radius: a.limits.radius, state, text });
    else board.overlay.push({ kind: "template", aiming: true, pos: a.point, polygon: templatePolygon(a, a.point), angle: aimAngle(a, a.point), state, text });
  }
  board.renderOverlay();
}

function aimLines() {
  const a = table.aim;
  const legal = aimLegal(a, a.point);
  const how = a.shape === "blast" ? "Drag the marker's hole within the area on the board, then Aim." : "Drag the knob at the template's wide end to turn it, then Aim.";
  return [
    h("p", { class: "aim-hint", "data-state": legal ? "ok" : "rejected" }, how, legal ? "" : " The aim shown is outside what the rule allows.", ` Aim: (${a.point[0].toFixed(2)}, ${a.point[1].toFixed(2)}).`),
  ];
}

function grabAim(event) {
  const a = table.aim;
  if (!a || table.drag || event.button !== 0) return false;
  const point = board.toTable(event.clientX, event.clientY);
  if (Math.hypot(a.point[0] - point[0], a.point[1] - point[1]) > AIM_GRAB_REACH) return false;
  table.drag = { aim: true, place: true, unit: null, from: [...a.point], offset: [a.point[0] - point[0], a.point[1] - point[1]], waypoints: [], current: [...a.point], heading: 0, turned: false, pointer: event.pointerId };
  board.svg.setPointerCapture && board.svg.setPointerCapture(event.pointerId);
  updateAimDrag(point);
  return true;
}

function updateAimDrag(point) {
  const d = table.drag;
  d.current = leadPoint(point);
  table.aim.point = d.current;
  drawAim(aimLegal(table.aim, d.current) ? "legal aim" : "not allowed");
}

function finishAimDrag(point) {
  const d = table.drag;
  d.current = leadPoint(point);
  table.aim.point = [Number(d.current[0].toFixed(2)), Number(d.current[1].toFixed(2))];
  table.drag = null;
  drawAim();
  renderDecisionLines();
}

// ---- the log and the wound maxima ----------------------------------------------------------------

async function loadEarlier(from, before) {
  try {
    const page = await getLog("", matchId, { from, limit: before - from, token: table.token });
    const known = new Set(table.earlierLog.map((e) => e.n));
    table.earlierLog = [...page.entries.filter((e) => !known.has(e.n)), ...table.earlierLog].sort((x, y) => x.n - y.n);
    render();
  } catch (error) {
    table.errors.push(String(error));
  }
}

async function loadStartWounds() {
  try {
    const response = await fetch(`${base}/state?at=1`, { headers: { authorization: `Bearer ${table.token}` } });
    if (!response.ok) return;
    const { view } = await response.json();
    const wounds = {};
    for (const unit of Object.values(view.units)) for (const m of Object.values(unit.models)) wounds[m.id] = m.wounds;
    board.startWounds = wounds;
    render();
  } catch (error) {
    table.errors.push(String(error));
  }
}

// ---- start -----------------------------------------------------------------------------------------

function start(token) {
  table.token = token;
  tools.headers = { authorization: `Bearer ${token}` };
  const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${base}/live`;
  const client = new HulldownClient(wsUrl, { token });
  // One client per tab: a previous one (a refused token, or one signed in again) is closed, and
  // what it still reports is ignored.
  const previous = table.client;
  table.client = client;
  if (previous) previous.close();
  client.on("view", (view, seq, reason) => {
    if (table.client !== client) return;
    table.view = view;
    table.side = client.role;
    noticeHistory(view, reason);
    render();
  });
  client.on("status", (status) => {
    if (table.client !== client) return;
    $("status").textContent = status;
    $("status").className = `status ${status.split(":")[0]}`;
    renderInfo();
    if (status.startsWith("refused")) {
      sessionStorage.removeItem(storageKey);
      askToken();
    }
  });
  client
    .connect()
    .then(loadStartWounds)
    .catch((error) => table.errors.push(String(error)));
}

const token = tokenFromPage();
if (token) start(token);
else askToken();
