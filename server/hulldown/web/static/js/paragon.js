// The player's table controls of the hh3 Paragon actions (docs/table.md; docs/rules-notes.md,
// hh3 Paragon): join a friendly unit, let a joined Paragon leave, challenge an enemy unit. The
// server decides what is legal; a refusal is shown under the control, as for every action.
import { h } from "./panels.js";

const isParagonModel = (unit, model) => (model.kind || unit.kind) === "paragon";

// ``tools``: { act(section, action), message(section), friends: [unit], enemies: [unit] }.
export function paragonSections(unit, view, tools) {
  if (view.edition !== "hh3") return [];
  const sections = [];
  const living = Object.values(unit.models).filter((m) => m.alive);
  if (view.phase === "movement" && unit.kind === "paragon" && tools.friends.length) {
    let target = tools.friends[0].id;
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "join" },
        h("h4", {}, "Join a unit"),
        h("select", { id: "join-target", onchange: (e) => (target = e.target.value) }, ...tools.friends.map((u) => h("option", { value: u.id }, `${u.name} (${u.id})`))),
        h("button", { type: "button", id: "join", onclick: () => tools.act("join", { type: "join", unit: unit.id, target }) }, "Join"),
        tools.message("join"),
      ),
    );
  }
  const joined = living.filter((m) => m.kind === "paragon");
  if (view.phase === "movement" && joined.length) {
    let model = joined[0].id;
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "leave" },
        h("h4", {}, "Leave the unit"),
        h("select", { id: "leave-model", onchange: (e) => (model = e.target.value) }, ...joined.map((m) => h("option", { value: m.id }, m.id))),
        h("button", { type: "button", id: "leave", onclick: () => tools.act("leave", { type: "leave", unit: unit.id, model }) }, "Leave"),
        tools.message("leave"),
      ),
    );
  }
  const challengers = living.filter((m) => isParagonModel(unit, m));
  if (view.phase === "assault" && challengers.length && tools.enemies.length) {
    let model = challengers[0].id;
    let target = tools.enemies[0].id;
    sections.push(
      h(
        "section",
        { class: "action", "data-action": "challenge" },
        h("h4", {}, "Challenge"),
        h("select", { id: "challenge-model", onchange: (e) => (model = e.target.value) }, ...challengers.map((m) => h("option", { value: m.id }, m.id))),
        h("select", { id: "challenge-target", onchange: (e) => (target = e.target.value) }, ...tools.enemies.map((u) => h("option", { value: u.id }, `${u.name} (${u.id})`))),
        h("button", { type: "button", id: "challenge", onclick: () => tools.act("challenge", { type: "challenge", unit: unit.id, model, target }) }, "Challenge"),
        tools.message("challenge"),
      ),
    );
  }
  return sections;
}
