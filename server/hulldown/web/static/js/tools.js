// Table tools for everyone (players and spectators): a ruler and a line-of-sight check between
// two models, measured by the server's own geometry (GET /matches/{id}/ruler and /sight), drawn
// on the board and written out in #tool-result.
import { h } from "./panels.js";

export class TableTools {
  constructor({ board, root, base, headers = {}, view, onError = () => {} }) {
    Object.assign(this, { board, root, base, headers, view, onError });
    this.mode = null; // null | "ruler" | "sight"
    this.first = null; // {unit, model}
    this.result = null;
    this.render();
  }

  render() {
    if (!this.root) return;
    const button = (mode, label) =>
      h("button", { type: "button", id: `tool-${mode}`, class: this.mode === mode ? "active" : "", onclick: () => this.toggle(mode) }, label);
    const hint = this.mode ? (this.first ? `now click the second model (from ${this.first.model})` : "click the first model") : "";
    const out = h("div", { id: "tool-result", class: "tool-result" });
    if (this.result) {
      for (const [key, value] of Object.entries(this.result)) out.dataset[key.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = String(value);
      out.textContent = this.describe(this.result);
    }
    this.root.replaceChildren(button("ruler", "Ruler"), button("sight", "Line of sight"), h("span", { class: "tool-hint" }, hint), out);
  }

  describe(r) {
    const distance = `${r.distance.toFixed(1)} in`;
    if (this.resultKind === "ruler") return `${r.from_model} → ${r.to_model}: ${distance}`;
    const parts = [`${r.from_model} → ${r.to_model}: ${r.visible ? "visible" : "no line of sight"}`, distance];
    if (r.facing) {
      const choice = r.facings && r.facings.length > 1 ? ` - or ${r.facings.filter((f) => f !== r.facing).join(", ")}: the owner chooses` : "";
      parts.push(`hits ${r.facing} (AV${r.armour})${choice}`, `hidden ${Math.round(r.hidden_share * 100)}%${r.obscured ? " · obscured" : ""}`);
    }
    return parts.join(" · ");
  }

  toggle(mode) {
    this.mode = this.mode === mode ? null : mode;
    this.first = null;
    if (!this.mode) this.clear();
    this.render();
  }

  clear() {
    this.board.overlay = this.board.overlay.filter((item) => item.kind !== "ruler");
    this.board.renderOverlay();
  }

  // Called by the board's pointerdown on a model; true when a tool took the click.
  modelDown(unitId, modelId, point, event) {
    if (!this.mode) return false;
    event.stopPropagation();
    if (!this.first) {
      this.first = { unit: unitId, model: modelId, point };
      this.render();
      return true;
    }
    const from = this.first;
    this.first = null;
    this.measure(this.mode, from, { unit: unitId, model: modelId, point });
    return true;
  }

  async measure(mode, from, to) {
    const view = this.view();
    const query = new URLSearchParams({ from: from.model, to: to.model });
    if (view) query.set("at", String(view.seq));
    try {
      const response = await fetch(`${this.base}/${mode}?${query}`, { headers: this.headers });
      const body = await response.json();
      if (!response.ok) throw new Error(`${mode}: ${body.error ? body.error.message : response.status}`);
      this.result = body;
      this.resultKind = mode;
      const modelPos = (id) => {
        for (const unit of Object.values(view.units)) if (unit.models[id]) return unit.models[id].pos;
        return null;
      };
      const a = mode === "sight" ? body.origin : modelPos(from.model);
      const b = modelPos(to.model);
      this.clear();
      this.board.overlay.push({ kind: "ruler", points: [a, b], state: mode === "sight" ? (body.visible ? "visible" : "blocked") : "measure", text: this.describe(body) });
      this.board.renderOverlay();
    } catch (error) {
      this.onError(error);
      this.result = null;
    }
    this.render();
  }
}
