// The replay scrubber: a seq slider, step buttons, "live", and jumps to turn/phase starts.

async function getJSON(url, headers = {}) {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

// GET /matches/{id}/index: the seq it stands at, the turn/phase starts, and the actions taken
// back ({action seq: seq of the undo or takeback}). Undone branches are marked, not hidden.
export async function matchIndex(base, query, headers = {}) {
  const index = await getJSON(`${base}/index${query}`, headers);
  const phases = index.phases.map((p) => ({ seq: p.seq, turn: p.turn, side: p.side, phase: p.phase, undoneBy: p.undone_by }));
  const undone = {};
  for (const action of index.actions) if (action.undone_by !== null) undone[action.seq] = action.undone_by;
  const actions = index.actions.map((a) => ({ seq: a.seq, by: a.by, action: a.action, parent: a.parent, undoneBy: a.undone_by }));
  return { seq: index.seq, phases, undone, actions };
}

// The first undo or takeback that took back the state as of `seq` (an undone action at or before
// it, undone after it), or null when that state is on the line of play.
export function undoneAt(undone, seq) {
  let by = null;
  for (const [action, undo] of Object.entries(undone)) {
    if (Number(action) <= seq && seq < undo && (by === null || undo < by)) by = undo;
  }
  return by;
}

export class Scrubber {
  constructor({ slider, label, back, forward, live, jump, onSeek }) {
    Object.assign(this, { slider, label, back, forward, live, jump, onSeek });
    this.latest = 1;
    this.position = null; // null: following live
    this.connection = "live"; // the live connection's status: "live" only while it is
    this.index = [];
    this.timer = null;
    slider.addEventListener("input", () => this.seekSoon(Number(slider.value)));
    back.addEventListener("click", () => this.seek(Math.max(1, this.current() - 1)));
    forward.addEventListener("click", () => this.seek(Math.min(this.latest, this.current() + 1)));
    live.addEventListener("click", () => this.seek(null));
    jump.addEventListener("change", () => {
      if (jump.value) this.seek(Number(jump.value));
    });
  }

  current() {
    return this.position ?? this.latest;
  }

  setLatest(seq) {
    this.latest = seq;
    this.slider.max = String(seq);
    if (this.position === null) this.slider.value = String(seq);
    this.updateLabel();
  }

  addPhaseStart(start) {
    if (this.index.some((s) => s.seq === start.seq)) return;
    this.index.push(start);
    this.index.sort((x, y) => x.seq - y.seq);
    this.renderIndex();
  }

  setIndex(index, upto) {
    // The server's index wins: starts this page noticed itself are kept only past its seq.
    this.index = [...index, ...this.index.filter((s) => s.seq > upto)];
    this.index.sort((x, y) => x.seq - y.seq);
    this.renderIndex();
  }

  renderIndex() {
    const options = [new Option("jump to turn / phase…", "")];
    for (const s of this.index) {
      const undone = s.undoneBy ? ` (undone at seq ${s.undoneBy})` : "";
      const option = new Option(`Turn ${s.turn} · side ${s.side.toUpperCase()} · ${s.phase} (seq ${s.seq})${undone}`, String(s.seq));
      option.dataset.turn = s.turn;
      option.dataset.phase = s.phase;
      options.push(option);
    }
    this.jump.replaceChildren(...options);
  }

  seekSoon(seq) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.seek(seq >= this.latest ? null : seq), 120);
  }

  seek(seq) {
    this.position = seq === null || seq >= this.latest ? null : seq;
    this.slider.value = String(this.current());
    this.updateLabel();
    this.onSeek(this.position);
  }

  setConnection(status) {
    this.connection = status;
    this.updateLabel();
  }

  updateLabel() {
    const following = this.connection === "live" ? "live" : `${this.connection} (last seq seen)`;
    this.label.textContent =
      this.position === null ? `${following} · seq ${this.latest}` : `replay · seq ${this.position} of ${this.latest}`;
    this.label.dataset.connection = this.connection;
    this.live.disabled = this.position === null;
  }
}
