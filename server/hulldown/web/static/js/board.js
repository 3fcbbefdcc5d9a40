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

// startWounds: model id -> wounds at the start of the match (GET /state?at=1), so a model whose
// profile says W1 but which started with 8 wounds shows 4/8, not 4/4.
export function unitVitals(unit, startWounds = null) {
  // Hull Points for vehicles (and 40k7/hh3 walkers); wounds for everything else.
  if (unit.profile.hp > 0) return { kind: "HP", now: unit.hp, max: unit.profile.hp };
  const models = Object.values(unit.models);
  const now = models.filter((m) => m.alive).reduce((sum, m) => sum + m.wounds, 0);
  const max = models.reduce((sum, m) => sum + Math.max(unit.profile.w, m.wounds, (startWounds && startWounds[m.id]) || 0), 0);
  return { kind: "W", now, max: Math.max(now, max) };
}

// Labels are placed where they do not overlap one already placed: tried below, above, then
// further out (sizes in table inches; text width estimated from its length).
const LABEL_CHAR_WIDTH = 0.55;
const LABEL_HEIGHT = 1.1;

function labelBox(x, y, text, size) {
  const w = text.length * LABEL_CHAR_WIDTH * size;
  return { x0: x - w / 2, x1: x + w / 2, y0: y - LABEL_HEIGHT * size * 0.85, y1: y + LABEL_HEIGHT * size * 0.35 };
}

function overlapsAny(box, boxes) {
  return boxes.some((b) => box.x0 < b.x1 && b.x0 < box.x1 && box.y0 < b.y1 && b.y0 < box.y1);
}

export function placeLabel(boxes, x, candidates, text, size) {
  for (const y of candidates) {
    const box = labelBox(x, y, text, size);
    if (!overlapsAny(box, boxes)) {
      boxes.push(box);
      return y;
    }
  }
  const y = candidates[candidates.length - 1];
  boxes.push(labelBox(x, y, text, size));
  return y;
}

// When a timed status ends, as a player reads it: statuses store the player turn at whose end
// they expire (docs/rules-notes.md, All editions: Timed effects); player turns alternate sides.
export function untilText(until, view) {
  if (!(until > 0)) return "until removed";
  const now = view.player_turn;
  const other = view.active === "a" ? "b" : "a";
  const side = (until - now) % 2 === 0 ? view.active : other;
  const name = side.toUpperCase();
  if (until <= now) return `until the end of this turn (side ${name}'s)`;
  if (until - now <= 2) return `until the end of side ${name}'s next turn`;
  return `until the end of side ${name}'s turn in game turn ${Math.ceil(until / 2)}`;
}

// 40k11 [ONE SHOT] keeps a fired weapon as the status `one_shot:<weapon id>` (docs/rules-notes.md,
// 40k11 Weapon abilities): the fired weapon's name for such a status, else null.
export function oneShotWeapon(unit, name) {
  if (!name.startsWith("one_shot:")) return null;
  const id = name.slice("one_shot:".length);
  return (unit.weapons[id] || {}).name || id;
}

// A status's short name as the chips and board labels show it: a spent One Shot weapon reads
// "<weapon> fired (One Shot)"; other statuses read their name.
export function statusName(unit, name) {
  const fired = oneShotWeapon(unit, name);
  return fired !== null ? `${fired} fired (One Shot)` : name.replace(/_/g, " ");
}

function statusText(unit, view) {
  return Object.entries(unit.statuses)
    .map(([name, until]) => (until > 0 ? `${statusName(unit, name)} ${untilText(until, view)}` : statusName(unit, name)))
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
// ``mine``: the side at this table (its zone is marked ``mine`` and labelled "your zone").
function drawMission(view, world, labels, height, mine) {
  const mission = view.mission;
  const sideOf = {};
  for (const [side, zone] of Object.entries(mission.zones || {})) sideOf[zone] = side;
  const zones = el("g", { id: "board-zones" });
  for (const zone of mission.mission.deployment.zones) {
    const side = sideOf[zone.id];
    const points = zone.points.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(" ");
    const own = mine && side === mine;
    zones.append(
      el("polygon", { class: `zone${side ? ` side-${side}` : ""}${own ? " mine" : ""}`, "data-zone": zone.id, "data-side": side || "", points }),
    );
    if (own) {
      const cx = zone.points.reduce((s, p) => s + p[0], 0) / zone.points.length;
      const cy = zone.points.reduce((s, p) => s + p[1], 0) / zone.points.length;
      labels.append(el("text", { class: "zone-label", "data-zone": zone.id, x: fmt(cx), y: fmt(height - cy) }, [document.createTextNode(`your zone (${zone.id})`)]));
    }
  }
  world.append(zones);
  const markers = el("g", { id: "board-markers" });
  for (const marker of mission.mission.objectives || []) {
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
  constructor(svg, { onSelect = () => {}, onModelDown = null, onTableClick = null } = {}) {
    this.svg = svg;
    this.onSelect = onSelect;
    this.onModelDown = onModelDown; // (unitId, modelId, [x, y], event) on pointerdown on a model
    this.onTableClick = onTableClick; // ([x, y], event) on a click on the table
    this.selected = null;
    this.side = null; // the side at this table: its deployment zone is marked (docs/missions.md)
    this.arc = null; // {unit, weapon, polygons}
    this.marks = {}; // unit id -> a mark class (in-range, out-of-range, out-of-arc, no-los...)
    this.overlay = []; // drawings over the board: paths, rulers, ghost models (renderOverlay)
    this.startWounds = null;
    this.height = 48;
    if (onTableClick) {
      svg.addEventListener("click", (event) => {
        if (event.target.closest && event.target.closest("g.unit")) return;
        this.onTableClick(this.toTable(event.clientX, event.clientY), event);
      });
    }
  }

  // Zoom (the wheel, about the pointer) and pan (drag the empty table, or the middle button):
  // only the viewBox changes, so every coordinate conversion keeps working.
  enableZoomPan({ shouldZoom = () => true } = {}) {
    const svg = this.svg;
    svg.addEventListener(
      "wheel",
      (event) => {
        if (!shouldZoom(event) || !this.box) return;
        event.preventDefault();
        const factor = event.deltaY < 0 ? 0.85 : 1 / 0.85;
        const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
        const [x, y, w, h] = this.box;
        const nw = Math.min(this.fullBox[2], Math.max(6, w * factor));
        const nh = (nw / w) * h;
        this.setBox([p.x - ((p.x - x) * nw) / w, p.y - ((p.y - y) * nh) / h, nw, nh]);
      },
      { passive: false },
    );
    svg.addEventListener("pointerdown", (event) => {
      const onEmpty = !(event.target.closest && event.target.closest("g.unit"));
      if (!(event.button === 1 || (event.button === 0 && onEmpty && event.altKey)) || !this.box) return;
      event.preventDefault();
      const start = [event.clientX, event.clientY, ...this.box];
      const scale = this.box[2] / svg.getBoundingClientRect().width;
      const move = (e) => this.setBox([start[2] - (e.clientX - start[0]) * scale, start[3] - (e.clientY - start[1]) * scale, start[4], start[5]]);
      const up = () => {
        window.removeEventListener("pointermove", move);
        window.removeEventListener("pointerup", up);
      };
      window.addEventListener("pointermove", move);
      window.addEventListener("pointerup", up);
    });
    svg.addEventListener("dblclick", () => this.fullBox && this.setBox([...this.fullBox]));
  }

  setBox(box) {
    this.box = box.map((v) => Number(v.toFixed(3)));
    this.svg.setAttribute("viewBox", this.box.join(" "));
  }

  // Screen (client) coordinates -> table inches (x right, y up).
  toTable(clientX, clientY) {
    const world = this.svg.querySelector("#board-world");
    const matrix = (world || this.svg).getScreenCTM().inverse();
    const point = new DOMPoint(clientX, clientY).matrixTransform(matrix);
    return [Number(point.x.toFixed(2)), Number(point.y.toFixed(2))];
  }

  // Table inches -> screen (client) coordinates.
  toScreen(x, y) {
    const world = this.svg.querySelector("#board-world");
    const point = new DOMPoint(x, y).matrixTransform(world.getScreenCTM());
    return [point.x, point.y];
  }

  renderOverlay() {
    const layer = this.svg.querySelector("#board-overlay");
    const text = this.svg.querySelector("#board-overlay-labels");
    if (!layer || !text) return;
    layer.replaceChildren();
    text.replaceChildren();
    for (const item of this.overlay) {
      if (item.kind === "path" || item.kind === "ruler") {
        const points = item.points.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(" ");
        layer.append(el("polyline", { class: `${item.kind} ${item.state || ""}`, points, "data-state": item.state || "" }));
        for (const [x, y] of item.points.slice(1, -1)) layer.append(el("circle", { class: "waypoint", cx: fmt(x), cy: fmt(y), r: 0.3 }));
      } else if (item.kind === "ghost") {
        const ghost = drawModel({ ...item.model, pos: item.pos, heading: item.heading, alive: true });
        ghost.setAttribute("class", `ghost ${item.state || ""}`);
        layer.append(ghost);
      } else if (item.kind === "pick") {
        // A model the deciding player may choose (an allocation): a ring round its base or hull.
        const m = item.model;
        const r = m.hull ? Math.hypot(m.hull.length, m.hull.width) / 2 + 0.2 : (m.base_mm || DEFAULT_BASE_MM) / MM_PER_INCH / 2 + 0.25;
        layer.append(el("circle", { class: "pick-target", "data-model": m.id, "data-option": item.option || m.id, cx: fmt(item.pos[0]), cy: fmt(item.pos[1]), r: fmt(r) }));
      } else if (item.kind === "handle") {
        // A rotate handle (the table's): a stem from the model's centre to a knob to drag.
        layer.append(el("line", { class: "handle-stem", x1: fmt(item.from[0]), y1: fmt(item.from[1]), x2: fmt(item.pos[0]), y2: fmt(item.pos[1]) }));
        layer.append(el("circle", { class: "rotate-handle", "data-unit": item.unit, cx: fmt(item.pos[0]), cy: fmt(item.pos[1]), r: 0.6 }));
      } else if (item.kind === "marker") {
        // An aiming decision's blast marker (docs/decisions.md): the marker and its hole.
        const g = el("g", { class: `aim-marker ${item.state || ""}`, "data-x": item.pos[0], "data-y": item.pos[1] });
        g.append(el("circle", { class: "marker", cx: fmt(item.pos[0]), cy: fmt(item.pos[1]), r: item.radius }));
        g.append(el("circle", { class: "hole", cx: fmt(item.pos[0]), cy: fmt(item.pos[1]), r: 0.15 }));
        layer.append(g);
      } else if (item.kind === "template") {
        // An aiming decision's template: the teardrop and the knob its wide end is turned by.
        const g = el("g", { class: `aim-template ${item.state || ""}`, "data-angle": item.angle.toFixed(1), "data-x": item.pos[0], "data-y": item.pos[1] });
        g.append(el("polygon", { class: "template", points: item.polygon.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(" ") }));
        g.append(el("circle", { class: "aim-knob", cx: fmt(item.pos[0]), cy: fmt(item.pos[1]), r: 0.4 }));
        layer.append(g);
      } else if (item.kind === "deep-strike") {
        // 40k7 Deep Strike: the point aimed at, the reach of a scatter round it and, once the
        // server has answered, the line to where the first model came down.
        const [x, y] = item.pos;
        const g = el("g", { class: `deep-strike ${item.state || ""}`, "data-x": x, "data-y": y });
        g.append(el("circle", { class: "scatter-reach", cx: fmt(x), cy: fmt(y), r: item.reach }));
        g.append(el("path", { class: "aim-cross", d: `M${fmt(x - 0.6)},${fmt(y)}H${fmt(x + 0.6)}M${fmt(x)},${fmt(y - 0.6)}V${fmt(y + 0.6)}` }));
        if (item.landing) {
          const [lx, ly] = item.landing;
          g.setAttribute("data-landing", `${lx},${ly}`);
          g.append(el("line", { class: "scatter-line", x1: fmt(x), y1: fmt(y), x2: fmt(lx), y2: fmt(ly) }));
          g.append(el("circle", { class: "landing", cx: fmt(lx), cy: fmt(ly), r: 0.35 }));
        }
        layer.append(g);
      } else if (item.kind === "area" && item.evenodd) {
        // One path of every ring (exterior rings and holes), filled even-odd: a placement's area.
        const d = item.polygons.map((ring) => `M${ring.map(([x, y]) => `${x},${y}`).join("L")}Z`).join("");
        layer.append(el("path", { class: `legal-area${item.active ? " active" : ""}`, "fill-rule": "evenodd", "data-model": item.model || "", d }));
      } else if (item.kind === "area") {
        for (const ring of item.polygons) {
          layer.append(el("path", { class: "legal-area", d: `M${ring.map(([x, y]) => `${x},${y}`).join("L")}Z` }));
        }
      }
      if (item.text) {
        const [x, y] = item.points ? item.points[item.points.length - 1] : item.pos;
        text.append(
          el("text", { class: `overlay-label ${item.state || ""}`, "data-kind": item.kind, x: fmt(x + 0.6), y: fmt(this.height - y - 0.8) }, [document.createTextNode(item.text)]),
        );
      }
    }
  }

  render(view) {
    const { width, height } = view.battlefield;
    this.height = height;
    const svg = this.svg;
    const full = [-1, -1, width + 2, height + 2];
    if (!this.fullBox || this.fullBox.join() !== full.join()) {
      this.fullBox = full;
      this.box = [...full];
    }
    svg.setAttribute("viewBox", this.box.join(" "));
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
    // Inch labels along the bottom and left edges, every 6 in.
    for (let x = 6; x < width; x += 6) labels.append(el("text", { class: "grid-label", x, y: height + 0.8 }, [document.createTextNode(`${x}"`)]));
    for (let y = 6; y < height; y += 6) labels.append(el("text", { class: "grid-label", x: -0.5, y: height - y }, [document.createTextNode(`${y}"`)]));

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
    if (view.mission) drawMission(view, world, labels, height, this.side);

    const arcs = el("g", { id: "board-arcs", "clip-path": "url(#table-clip)" });
    if (this.arc && this.arc.seq === view.seq) {
      for (const ring of this.arc.polygons) {
        const d = `M${ring.map(([x, y]) => `${x},${y}`).join("L")}Z`;
        arcs.append(el("path", { class: "arc", d, "data-unit": this.arc.unit, "data-weapon": this.arc.weapon }));
      }
    }
    world.append(arcs);

    const units = el("g", { id: "board-units" });
    const placed = [];
    const offTable = (view.mission && view.mission.off_table) || {};
    for (const unit of Object.values(view.units)) {
      if (unit.embarked_in) continue;
      if (offTable[unit.id] && offTable[unit.id] !== "undeployed") continue; // in reserve
      if (unit.destroyed && !unit.wreck) continue; // removed as a casualty: nothing left on the table
      const vitals = unitVitals(unit, this.startWounds);
      const state = unit.wreck ? " wreck" : unit.destroyed ? " destroyed" : "";
      const group = el(
        "g",
        {
          class: unitClass(unit, this.selected) + (this.marks[unit.id] ? ` mark ${this.marks[unit.id]}` : "") + (offTable[unit.id] === "undeployed" ? " undeployed" : ""),
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
      const hover = [`${unit.name} (${unit.id}, side ${unit.side.toUpperCase()})`, `${vitals.now}/${vitals.max} ${vitals.kind}${state}`];
      if (unit.profile.armour) hover.push(`armour ${unit.profile.armour.front}/${unit.profile.armour.side}/${unit.profile.armour.rear}`);
      const weaponNames = Object.values(unit.weapons).map((w) => `${w.name} ${w.range}"`);
      if (weaponNames.length) hover.push(weaponNames.join(", "));
      const statusLine = statusText(unit, view);
      if (statusLine) hover.push(statusLine);
      group.prepend(el("title", { class: "hover-card" }, [document.createTextNode(hover.join("\n"))]));
      group.addEventListener("click", () => this.onSelect(unit.id));
      if (this.onModelDown) {
        for (const node of group.querySelectorAll("g.model")) {
          node.addEventListener("pointerdown", (event) => this.onModelDown(unit.id, node.dataset.model, this.toTable(event.clientX, event.clientY), event));
        }
      }
      units.append(group);
      const lead = Object.values(unit.models).find((m) => m.alive) || Object.values(unit.models)[0];
      const reach = lead.hull ? lead.hull.width / 2 + 0.9 : 1.2;
      const text = `${unit.name} ${vitals.now}/${vitals.max} ${vitals.kind}${state}`;
      const x = lead.pos[0];
      const top = height - lead.pos[1] - reach;
      const y = placeLabel(placed, x, [top, height - lead.pos[1] + reach + 0.9, top - 1.2, top + 2 * reach + 2.4, top - 2.4], text, 1);
      const label = el("text", { class: `unit-label side-${unit.side}`, "data-unit": unit.id, x: fmt(x), y: fmt(y) });
      label.append(document.createTextNode(text));
      labels.append(label);
      const statuses = statusText(unit, view);
      if (statuses) {
        const below = height - lead.pos[1] + reach + 0.6;
        const sy = placeLabel(placed, x, [below, below + 1.0, y - 1.1, below + 2.0], statuses, 0.8);
        labels.append(
          el("text", { class: "status-label", "data-unit": unit.id, x: fmt(x), y: fmt(sy) }, [document.createTextNode(statuses)]),
        );
      }
    }
    world.append(units);
    world.append(el("g", { id: "board-overlay" }));
    svg.append(el("g", { id: "board-overlay-labels" }));
    this.renderOverlay();
  }
}
