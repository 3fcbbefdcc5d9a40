// The side panels: match header, units (vitals, statuses, weapons) and the combat log.
import { unitVitals } from "./board.js";

function h(tag, attrs = {}, ...children) {
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

const SIDE = { a: "A", b: "B" };

// docs/missions.md: the mission, the score, and who holds each marker and why.
function renderMission(mission) {
  const vp = mission.vp || {};
  const box = h(
    "div",
    { id: "mission", class: "mission" },
    h("span", { class: "mission-name" }, `${mission.mission.name} (${mission.mission.deployment.name})`),
    h("span", { id: "score", class: "score" }, `VP ${SIDE.a} ${vp.a || 0} : ${vp.b || 0} ${SIDE.b}`),
    h("span", { id: "setup-step" }, mission.step === "battle" ? `last turn ${mission.last_turn}` : `set-up: ${mission.step.replace("_", " ")}`),
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
    h("span", { id: "turn" }, `Turn ${view.turn}`),
    h("span", { id: "active", class: `side-${view.active}` }, `Side ${SIDE[view.active]}`),
    h("span", { id: "phase" }, view.phase),
    h("span", { id: "seq" }, `seq ${view.seq}`),
    h("span", { id: "mode", class: `mode ${mode.kind}` }, mode.text),
  ];
  if (view.ended) {
    const who = view.winner ? `side ${SIDE[view.winner]} wins` : "a draw";
    parts.push(h("span", { id: "ended", class: "ended" }, `Ended: ${who} (${view.end_reason})`));
  }
  root.replaceChildren(...parts);
  if (view.mission) root.append(renderMission(view.mission));
  if (view.pending) {
    const p = view.pending;
    root.append(
      h(
        "div",
        { id: "pending", class: `pending side-${p.side}` },
        `Waiting for side ${SIDE[p.side]}: ${p.prompt} [${p.options.join(" / ")}] `,
        h("span", { class: "rule" }, p.rule),
      ),
    );
  }
}

function weaponLine(weapon) {
  const ap = weapon.ap === null || weapon.ap === undefined ? "-" : weapon.ap;
  const mount = weapon.mount.kind === "none" ? "" : ` · ${weapon.mount.kind}${weapon.mount.arc ? ` ${weapon.mount.arc}` : ""}${weapon.mount.side ? ` ${weapon.mount.side}` : ""}`;
  return `${weapon.name}: ${weapon.range}" S${weapon.strength} AP${ap} ${weapon.type}${mount}${weapon.destroyed ? " (destroyed)" : ""}`;
}

export function renderUnits(root, view, { selected, weapon, onSelectUnit, onSelectWeapon }) {
  const items = [];
  for (const unit of Object.values(view.units)) {
    const vitals = unitVitals(unit);
    const statuses = Object.entries(unit.statuses).map(([name, until]) =>
      h("span", { class: "status", title: until > 0 ? `until the end of player turn ${until}` : "until removed" }, name),
    );
    const flags = [];
    if (unit.wreck) flags.push(h("span", { class: "flag wreck" }, "wreck"));
    else if (unit.destroyed) flags.push(h("span", { class: "flag destroyed" }, "destroyed"));
    if (unit.embarked_in) flags.push(h("span", { class: "flag" }, `embarked in ${unit.embarked_in}`));
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
          weaponLine(w),
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

export function renderLog(root, note, view) {
  const entries = view.log.map((entry) =>
    h(
      "li",
      { class: "log-entry", "data-seq": entry.seq, "data-n": entry.n },
      h("span", { class: "log-seq" }, `#${entry.seq}`),
      " ",
      h("span", { class: "log-text" }, entry.text),
      entry.rule ? h("span", { class: "rule" }, entry.rule) : null,
      entry.rolls.length ? h("ul", { class: "rolls" }, ...entry.rolls.map(rollLine)) : null,
    ),
  );
  root.replaceChildren(...entries);
  const hidden = view.log_count - view.log.length;
  note.textContent = hidden > 0 ? `${hidden} earlier lines: scrub back to read them` : "";
  root.scrollTop = root.scrollHeight;
}
