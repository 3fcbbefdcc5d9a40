// 40k7 Deep Strike at the player's table (docs/table.md; docs/missions.md "Reserves and
// arrivals"): a unit arriving from reserve with the `deep_strike` rule may be aimed at a point of
// the battlefield instead of moving on from its table edge. The server rolls the scatter die, the
// scatter and any Mishap; the page shows its log lines for that action and draws the aim and the
// landing. hh3 and 40k11 model no Deep Strike (the server refuses the action there as
// unsupported), so the control is offered in 40k7 only.
import { h } from "./panels.js";

export const DEEP_STRIKE_RULE = "40k7 rulebook, Deep Strike";
const EDITIONS = ["40k7"];
export const SCATTER_REACH_IN = 12; // the furthest the scatter carries the first model: 2D6"
const AT = /at \((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)/;

// May this unit be offered Deep Strike now: 40k7, the rule, arriving this turn (the server judges
// the rest: the phase, the point).
export function mayDeepStrike(unit, view, where, mine) {
  return EDITIONS.includes(view.edition) && unit.keywords.includes("deep_strike") && where === "arriving" && mine;
}

// The control under "Arrive from reserve": arm the board (the next click aims), or cancel.
// ``tools``: { armed, arm(), cancel() }.
export function deepStrikeControl(unit, tools) {
  if (!tools.armed) {
    return h("button", { type: "button", id: "deep-strike", onclick: () => tools.arm() }, "Deep Strike");
  }
  return h(
    "div",
    { id: "deep-strike-armed", class: "note" },
    `Click the point of the battlefield to aim ${unit.name} at: it scatters up to ${SCATTER_REACH_IN}" unless the scatter die shows a hit; off the table, on impassable terrain, on a friend or within 1" of an enemy is a Mishap [${DEEP_STRIKE_RULE}]. `,
    h("button", { type: "button", id: "deep-strike-cancel", onclick: () => tools.cancel() }, "Cancel (Esc)"),
  );
}

// The server's answer to a Deep Strike: its log lines at the action's seq (each with its dice),
// where it landed and whether it was a Mishap. Null until the view has reached that seq.
export function deepStrikeOutcome(view, result) {
  const entries = view.log.filter((e) => e.seq === result.seq);
  if (!entries.length) return null;
  const text = entries.map((e) => e.text).join(" ");
  const found = entries.map((e) => AT.exec(e.text)).find(Boolean);
  const landing = found ? [Number(found[1]), Number(found[2])] : null;
  const outcome = !text.includes("Mishap") ? "landed" : text.includes("is destroyed") ? "destroyed" : "reserve";
  return { entries, landing, outcome };
}

function rollText(roll) {
  return `${roll.purpose} ${roll.value}${roll.outcome ? ` → ${roll.outcome}` : ""}`;
}

const OUTCOME_TEXT = {
  landed: "landed",
  destroyed: "Mishap: destroyed",
  reserve: "Mishap: back to Ongoing Reserves",
};

// The answer shown on the unit's card, as every answer is shown where the player acted.
export function deepStrikeAnswer(view, result) {
  const known = deepStrikeOutcome(view, result);
  if (!known) return h("div", { id: "deep-strike-result", class: "message ok", "data-state": "waiting" }, "…");
  const { entries, landing, outcome } = known;
  const scattered = landing ? Math.hypot(landing[0] - result.at[0], landing[1] - result.at[1]) : null;
  const summary =
    `Deep Strike aimed at (${result.at[0].toFixed(1)}, ${result.at[1].toFixed(1)})` +
    (landing ? (scattered < 0.05 ? ": a hit, no scatter" : `: scattered ${scattered.toFixed(1)}" to (${landing[0].toFixed(1)}, ${landing[1].toFixed(1)})`) : "") +
    ` - ${OUTCOME_TEXT[outcome]}`;
  return h(
    "div",
    { id: "deep-strike-result", class: `message ${outcome === "landed" ? "ok" : "rejected"}`, "data-state": outcome, "data-seq": result.seq },
    h("p", { class: "summary" }, summary),
    h(
      "ul",
      { class: "deep-strike-log" },
      ...entries.map((e) =>
        h("li", { "data-n": e.n }, e.text, e.rule ? h("span", { class: "rule" }, e.rule) : null, e.rolls.length ? h("span", { class: "rolls" }, ` (${e.rolls.map(rollText).join("; ")})`) : null),
      ),
    ),
  );
}

// The board's drawing: the point aimed at with the reach of a scatter round it (while aiming),
// then the line to where the unit came down.
export function deepStrikeOverlay(at, { state = "", landing = null, text = "" } = {}) {
  return { kind: "deep-strike", deepStrike: true, pos: at, reach: SCATTER_REACH_IN, landing, state, text };
}
