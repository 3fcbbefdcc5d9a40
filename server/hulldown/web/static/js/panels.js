// The side panels: match header, units (vitals, statuses, weapons) and the combat log.
import { statusName, unitVitals, untilText } from "./board.js";
import { weaponText } from "./statline.js";

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "onclick" || key === "onchange") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return node;
}

export const SIDE = { a: "A", b: "B" };

// What each edition calls a turn of both players (40k11 core rules: battle rounds).
const TURN_WORD = { "40k11": "battle round" };
const turnWord = (edition) => TURN_WORD[edition] || "turn";
const capital = (text) => text[0].toUpperCase() + text.slice(1);

// 40k7 Random Game Length (docs/missions.md; match/mission_flow.py RANDOM_LENGTH_40K7): after the
// mission's `turns`, a D6 of 3+ plays one more turn, then a 4+ one more.
const MISSION_TURNS = 5; // server/hulldown/missions/model.py Mission.turns, its default
const RANDOM_LENGTH = { random_40k7: { rolls: [3, 4], rule: "40k7 rulebook, Random Game Length" } };

// How long the battle lasts, from the view: the mission's length (fixed: its last turn; 40k7
// random: the turns it may still end after, and the rolls that go on), or, with no mission, the
// match's `turn_limit` (docs/match-definition.md; 0: none).
export function gameLength(view) {
  const word = turnWord(view.edition);
  const mission = view.mission;
  if (!mission) {
    const limit = view.options ? view.options.turn_limit : 0;
    return limit > 0 ? { text: `last ${word} ${limit} (the match's turn limit)`, rule: "" } : null;
  }
  const random = RANDOM_LENGTH[mission.mission.game_length];
  const turns = mission.mission.turns ?? MISSION_TURNS; // omitted from the view at its default
  const first = mission.last_turn;
  const last = random ? turns + random.rolls.length : first;
  if (first >= last) return { text: `last ${word} ${first}`, rule: "" };
  const rolls = [];
  for (let t = first; t < last; t += 1) rolls.push(`after ${word} ${t} a D6 of ${random.rolls[t - turns]}+ plays ${word} ${t + 1}`);
  return { text: `last ${word} ${first}-${last} (random: ${rolls.join(", ")})`, rule: random.rule };
}

function lengthSpan(view) {
  const length = gameLength(view);
  if (!length) return null;
  return h("span", { id: "game-length" }, length.text, length.rule ? h("span", { class: "rule" }, length.rule) : null);
}

// docs/missions.md: the mission, the score, and who holds each marker and why.
function renderMission(view) {
  const mission = view.mission;
  const vp = mission.vp || {};
  const box = h(
    "div",
    { id: "mission", class: "mission" },
    h("span", { class: "mission-name" }, `${mission.mission.name} (${mission.mission.deployment.name})`),
    h("span", { id: "score", class: "score" }, `VP ${SIDE.a} ${vp.a || 0} : ${vp.b || 0} ${SIDE.b}`),
    h("span", { id: "setup-step" }, mission.step === "battle" ? lengthSpan(view) : `set-up: ${mission.step.replace("_", " ")}`),
  );
  const list = h("ul", { id: "control", class: "control" });
  for (const [id, c] of Object.entries(mission.control || {})) {
    list.append(h("li", { "data-marker": id, "data-holder": c.holder || "" }, `${id} (${c.value}): ${c.why}`));
  }
  box.append(list);
  return box;
}

export function renderHeader(root, view, mode) {
  const parts = [
    h("span", { class: "edition" }, view.edition),
    h("span", { id: "turn" }, `${capital(turnWord(view.edition))} ${view.turn}`),
    h("span", { id: "active", class: `side-${view.active}` }, `Side ${SIDE[view.active]}`),
    h("span", { id: "phase" }, view.phase),
    h("span", { id: "seq" }, `seq ${view.seq}`),
    h("span", { id: "mode", class: `mode ${mode.kind}` }, mode.text),
  ];
  if (!view.mission && gameLength(view)) parts.splice(2, 0, lengthSpan(view));
  if (view.ended) {
    const who = view.winner ? `side ${SIDE[view.winner]} wins` : "a draw";
    parts.push(h("span", { id: "ended", class: "ended" }, `Ended: ${who} (${view.end_reason})`));
  }
  root.replaceChildren(...parts);
  if (view.takeback && view.takeback.by) {
    const by = view.takeback.by;
    const other = by === "a" ? "b" : "a";
    root.append(
      h(
        "div",
        { id: "takeback-banner", class: `pending takeback side-${by}`, "data-by": by, "data-to": view.takeback.to_seq },
        `Side ${SIDE[by]} asks to take the match back to seq ${view.takeback.to_seq}: waiting for side ${SIDE[other]} to grant or decline.`,
      ),
    );
  }
  if (view.mission) root.append(renderMission(view));
  if (view.pending) {
    const p = view.pending;
    root.append(
      h(
        "div",
        { id: "pending", class: `pending side-${p.side}` },
        p.side === mode.side ? `Your decision: ${p.prompt} [${p.options.join(" / ")}] ` : `Waiting for side ${SIDE[p.side]}: ${p.prompt} [${p.options.join(" / ")}] `,
        h("span", { class: "rule" }, p.rule),
      ),
    );
  }
}

function weaponLine(weapon, unit, edition) {
  const mount = weapon.mount.kind === "none" ? "" : ` · ${weapon.mount.kind}${weapon.mount.arc ? ` ${weapon.mount.arc}` : ""}${weapon.mount.side ? ` ${weapon.mount.side}` : ""}`;
  return `${weapon.name}: ${weaponText(weapon, unit, edition)}${mount}${weapon.destroyed ? " (destroyed)" : ""}`;
}

// A unit named for a person: its name and id ("Rhino (rhino-a)"), the id alone if it is unknown.
export function unitLabel(view, id) {
  const unit = view.units[id];
  return unit && unit.name && unit.name !== id ? `${unit.name} (${id})` : id;
}

export function renderUnits(root, view, { selected, weapon, onSelectUnit, onSelectWeapon, startWounds = null }) {
  const items = [];
  for (const unit of Object.values(view.units)) {
    const vitals = unitVitals(unit, startWounds);
    // A unit arriving from reserve this turn is chipped "arriving", as its card says (docs/missions.md
    // "Reserves and arrivals"); a destroyed unit or a wreck has no live statuses, only its flag.
    const arriving = view.mission && view.mission.off_table ? view.mission.off_table[unit.id] === "arriving" : false;
    const statuses = unit.destroyed || unit.wreck
      ? []
      : Object.entries(unit.statuses).map(([name, until]) =>
          h("span", { class: "status", "data-status": name, title: untilText(until, view) }, name === "reserves" && arriving ? "arriving" : statusName(unit, name)),
        );
    const flags = [];
    if (unit.wreck) flags.push(h("span", { class: "flag wreck" }, "wreck"));
    else if (unit.destroyed) flags.push(h("span", { class: "flag destroyed" }, "destroyed"));
    if (unit.embarked_in) flags.push(h("span", { class: "flag embarked", "data-embarked-in": unit.embarked_in }, `embarked in ${unitLabel(view, unit.embarked_in)}`));
    const pips = [];
    for (let i = 0; i < vitals.max; i += 1) pips.push(h("span", { class: i < vitals.now ? "pip full" : "pip" }));
    const weapons = Object.values(unit.weapons).map((w) =>
      h(
        "li",
        { class: "weapon" },
        h(
          "label",
          {},
          h("input", {
            type: "radio",
            name: "weapon",
            value: `${unit.id}/${w.id}`,
            "data-unit": unit.id,
            "data-weapon": w.id,
            checked: selected === unit.id && weapon === w.id,
            onchange: () => onSelectWeapon(unit.id, w.id),
          }),
          weaponLine(w, unit, view.edition),
        ),
      ),
    );
    items.push(
      h(
        "li",
        {
          class: `unit-card side-${unit.side}${unit.id === selected ? " selected" : ""}`,
          "data-unit": unit.id,
        },
        h(
          "div",
          { class: "unit-title", onclick: () => onSelectUnit(unit.id) },
          h("strong", {}, unit.name),
          ` (${unit.id}, side ${SIDE[unit.side]}) `,
          h("span", { class: "vitals", "data-unit": unit.id }, `${vitals.now}/${vitals.max} ${vitals.kind}`),
          " ",
          h("span", { class: "pips" }, ...pips),
        ),
        h("div", { class: "statuses" }, ...statuses, ...flags),
        unit.id === selected && weapons.length ? h("ul", { class: "weapons" }, ...weapons) : null,
      ),
    );
  }
  root.replaceChildren(...items);
}

function rollLine(roll) {
  const parts = [`die ${roll.i}: `, h("strong", { class: "face" }, String(roll.value)), ` ${roll.purpose}`];
  if (roll.target) parts.push(` (needs ${roll.target})`);
  if (roll.outcome) parts.push(" → ", h("span", { class: `outcome ${roll.outcome.replace(/\s+/g, "-")}` }, roll.outcome));
  return h("li", { class: "roll", "data-value": roll.value, "data-purpose": roll.purpose }, ...parts);
}

// `undoneBy`: the seq of the undo or takeback that took back the action that wrote the line.
function logLine(entry, undoneBy = null) {
  return h(
      "li",
      { class: undoneBy ? "log-entry undone" : "log-entry", "data-seq": entry.seq, "data-n": entry.n, "data-undone-by": undoneBy },
      h("span", { class: "log-seq" }, `#${entry.seq}`),
      " ",
      undoneBy ? h("span", { class: "undone-mark" }, `undone at seq ${undoneBy}`) : null,
      undoneBy ? " " : null,
      h("span", { class: "log-text" }, entry.text),
      entry.rule ? h("span", { class: "rule" }, entry.rule) : null,
      entry.rolls.length ? h("ul", { class: "rolls" }, ...entry.rolls.map(rollLine)) : null,
    );
}

// The view holds the latest window of the log; `earlier` holds older lines paged in from
// GET /matches/{id}/log (loadEarlier(fromN) is called by the "older lines" button). `undone`
// ({action seq: undo seq}, from GET /matches/{id}/index) marks the lines of actions taken back.
export function renderLog(root, note, view, { earlier = [], loadEarlier = null, undone = {} } = {}) {
  const first = view.log.length ? view.log[0].n : view.log_count;
  const older = earlier.filter((e) => e.n < first);
  const atBottom = root.scrollHeight - root.scrollTop - root.clientHeight < 4;
  const line = (entry) => logLine(entry, undone[entry.seq] ?? null);
  root.replaceChildren(...older.map(line), ...view.log.map(line));
  const shownFrom = older.length ? older[0].n : first;
  const hidden = shownFrom; // log lines are numbered from 0
  note.replaceChildren();
  if (hidden > 0) {
    note.append(`${hidden} earlier lines `);
    if (loadEarlier) {
      note.append(h("button", { type: "button", id: "log-older", onclick: () => loadEarlier(Math.max(0, shownFrom - 50), shownFrom) }, "show older"));
    } else {
      note.append("(scrub back to read them)");
    }
  }
  if (atBottom || !older.length) root.scrollTop = root.scrollHeight;
}
