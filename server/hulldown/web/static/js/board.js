// The battlefield as SVG. Table coordinates are inches with y up and headings in degrees
// counter-clockwise from +x; the "world" group flips y so the drawing matches the table, and
// text is drawn in an unflipped layer at (x, height - y).

const NS = "http://www.w3.org/2000/svg";
const MM_PER_INCH = 25.4;
const DEFAULT_BASE_MM = 25;

export function el(name, attrs = {}, children = []) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  for (const child of children) node.appendChild(child);
  return node;
}

const fmt = (n) => Number(n.toFixed(3));

export function unitVitals(unit) {
  // Hull Points for vehicles (and 40k7/hh3 walkers); wounds for everything else.
  if (unit.profile.hp > 0) return { kind: "HP", now: unit.hp, max: unit.profile.hp };
  const models = Object.values(unit.models);
  const now = models.filter((m) => m.alive).reduce((sum, m) => sum + m.wounds, 0);
  return { kind: "W", now, max: Math.max(now, unit.profile.w * models.length) };
}

function statusText(unit, view) {
  return Object.entries(unit.statuses)
    .map(([name, until]) => (until > 0 ? `${name} (to player turn ${until})` : name))
    .join(", ");
}

function hull(model) {
  const L = model.hull.length;
  const W = model.hull.width;
  const x0 = -L / 2;
  const y0 = -W / 2;
  const nose = Math.min(0.8, L / 4);
  return [
    el("rect", { class: "hull", x: fmt(x0), y: fmt(y0), width: fmt(L), height: fmt(W) }),
    // The facing diagonals: corner to corner through the centre (front/side/rear zones).
    el("line", { class: "diagonal", x1: fmt(x0), y1: fmt(y0), x2: fmt(-x0), y2: fmt(-y0) }),
    el("line", { class: "diagonal", x1: fmt(x0), y1: fmt(-y0), x2: fmt(-x0), y2: fmt(y0) }),
    el("line", { class: "front-edge", x1: fmt(-x0), y1: fmt(y0), x2: fmt(-x0), y2: fmt(-y0) }),
    el("polygon", {
      class: "nose",
      points: `${fmt(-x0)},0 ${fmt(-x0 - nose)},${fmt(nose / 2)} ${fmt(-x0 - nose)},${fmt(-nose / 2)}`,
    }),
  ];
}

function base(model) {
  const r = (model.base_mm || DEFAULT_BASE_MM) / MM_PER_INCH / 2;
  return [
    el("circle", { class: "base", cx: 0, cy: 0, r: fmt(r) }),
    el("line", { class: "base-facing", x1: 0, y1: 0, x2: fmt(r), y2: 0 }),
  ];
}

function drawModel(model) {
  const shape = model.hull ? hull(model) : base(model);
  return el(
    "g",
    {
      class: `model${model.alive ? "" : " dead"}`,
      "data-model": model.id,
      "data-x": model.pos[0],
      "data-y": model.pos[1],
      "data-heading": model.heading,
      transform: `translate(${fmt(model.pos[0])} ${fmt(model.pos[1])}) rotate(${fmt(model.heading)})`,
    },
    shape,
  );
}

function unitClass(unit, selected) {
  const parts = ["unit", `side-${unit.side}`, unit.kind];
  if (unit.wreck) parts.push("wreck");
  else if (unit.destroyed) parts.push("destroyed");
  if (unit.id === selected) parts.push("selected");
  return parts.join(" ");
}

// docs/missions.md: deployment zones (which side holds each) and objective markers, labelled
// with who controls them.
function drawMission(view, world, labels, height) {
  const mission = view.mission;
  const sideOf = {};
  for (const [side, zone] of Object.entries(mission.zones || {})) sideOf[zone] = side;
  const zones = el("g", { id: "board-zones" });
  for (const zone of mission.mission.deployment.zones) {
    const side = sideOf[zone.id];
    const points = zone.points.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(" ");
    zones.append(
      el("polygon", { class: `zone${side ? ` side-${side}` : ""}`, "data-zone": zone.id, "data-side": side || "", points }),
    );
  }
  world.append(zones);
  const markers = el("g", { id: "board-markers" });
  for (const marker of mission.mission.objectives) {
    const control = (mission.control || {})[marker.id];
    const holder = control && control.holder ? control.holder : "";
    const value = control ? control.value : marker.value;
    if (mission.mission.scoring && mission.mission.scoring.window_of_opportunity && value === 0) continue;
    const [x, y] = marker.pos;
    markers.append(
      el("circle", {
        class: `marker${holder ? ` side-${holder}` : ""}`,
        "data-marker": marker.id,
        "data-holder": holder,
        cx: fmt(x),
        cy: fmt(y),
        r: 0.63,
      }),
      el("circle", { class: "marker-range", cx: fmt(x), cy: fmt(y), r: 3 }),
    );
    labels.append(
      el("text", { class: "marker-label", "data-marker": marker.id, x: fmt(x), y: fmt(height - y - 1) }, [
        document.createTextNode(`${marker.id} (${value})${holder ? ` ${holder.toUpperCase()}` : ""}`),
      ]),
    );
  }
  world.append(markers);
}

export class Board {
  constructor(svg, { onSelect = () => {} } = {}) {
    this.svg = svg;
    this.onSelect = onSelect;
    this.selected = null;
    this.arc = null; // {unit, weapon, polygons}
  }

  render(view) {
    const { width, height } = view.battlefield;
    const svg = this.svg;
    svg.setAttribute("viewBox", `-1 -1 ${width + 2} ${height + 2}`);
    svg.setAttribute("data-seq", view.seq);
    svg.replaceChildren();
    const world = el("g", { id: "board-world", transform: `translate(0 ${height}) scale(1 -1)` });
    const labels = el("g", { id: "board-labels" });
    const clip = el("clipPath", { id: "table-clip" }, [el("rect", { x: 0, y: 0, width, height })]);
    svg.append(el("defs", {}, [clip]), el("rect", { class: "table", x: 0, y: 0, width, height }), world, labels);

    const grid = el("g", { class: "grid" });
    for (let x = 6; x < width; x += 6) grid.append(el("line", { x1: x, y1: 0, x2: x, y2: height }));
    for (let y = 6; y < height; y += 6) grid.append(el("line", { x1: 0, y1: y, x2: width, y2: y }));
    world.append(grid);

    const terrain = el("g", { id: "board-terrain" });
    for (const piece of Object.values(view.terrain)) {
      const points = piece.points.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(" ");
      terrain.append(
        el("polygon", {
          class: ["terrain", ...piece.kinds].join(" "),
          "data-terrain": piece.id,
          points,
        }),
      );
      const cx = piece.points.reduce((s, p) => s + p[0], 0) / piece.points.length;
      const cy = piece.points.reduce((s, p) => s + p[1], 0) / piece.points.length;
      labels.append(
        el("text", { class: "terrain-label", x: fmt(cx), y: fmt(height - cy) }, [
          document.createTextNode(piece.name || piece.id),
        ]),
      );
    }
    world.append(terrain);
    if (view.mission) drawMission(view, world, labels, height);

    const arcs = el("g", { id: "board-arcs", "clip-path": "url(#table-clip)" });
    if (this.arc && this.arc.seq === view.seq) {
      for (const ring of this.arc.polygons) {
        const d = `M${ring.map(([x, y]) => `${x},${y}`).join("L")}Z`;
        arcs.append(el("path", { class: "arc", d, "data-unit": this.arc.unit, "data-weapon": this.arc.weapon }));
      }
    }
    world.append(arcs);

    const units = el("g", { id: "board-units" });
    const offTable = (view.mission && view.mission.off_table) || {};
    for (const unit of Object.values(view.units)) {
      if (unit.embarked_in) continue;
      if (offTable[unit.id] && offTable[unit.id] !== "undeployed") continue; // in reserve
      const vitals = unitVitals(unit);
      const group = el(
        "g",
        {
          class: unitClass(unit, this.selected),
          "data-unit": unit.id,
          "data-side": unit.side,
          "data-hp": unit.hp,
          "data-vitals": `${vitals.now}/${vitals.max}`,
          "data-statuses": Object.keys(unit.statuses).join(" "),
        },
        Object.values(unit.models)
          .filter((m) => m.alive || unit.wreck)
          .map(drawModel),
      );
      group.addEventListener("click", () => this.onSelect(unit.id));
      units.append(group);
      const lead = Object.values(unit.models)[0];
      const reach = lead.hull ? lead.hull.width / 2 + 0.9 : 1.2;
      const label = el("text", {
        class: `unit-label side-${unit.side}`,
        "data-unit": unit.id,
        x: fmt(lead.pos[0]),
        y: fmt(height - lead.pos[1] - reach),
      });
      const state = unit.wreck ? " wreck" : unit.destroyed ? " destroyed" : "";
      label.append(document.createTextNode(`${unit.name} ${vitals.now}/${vitals.max} ${vitals.kind}${state}`));
      labels.append(label);
      const statuses = statusText(unit, view);
      if (statuses) {
        labels.append(
          el("text", { class: "status-label", "data-unit": unit.id, x: fmt(lead.pos[0]), y: fmt(height - lead.pos[1] + reach + 0.6) }, [
            document.createTextNode(statuses),
          ]),
        );
      }
    }
    world.append(units);
  }
}
