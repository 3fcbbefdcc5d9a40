// The replay scrubber: a seq slider, step buttons, play/pause, "live", and jumps to turn/phase
// starts.

// Playback's pace at 1x: one event every PLAY_INTERVAL_MS (the speed select divides it).
export const PLAY_INTERVAL_MS = 800;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
  constructor({ slider, label, back, forward, playButton, speed, live, jump, onSeek }) {
    Object.assign(this, { slider, label, back, forward, playButton, speed, live, jump, onSeek });
    this.latest = 1;
    this.position = null; // null: following live
    this.connection = "live"; // the live connection's status: "live" only while it is
    this.index = [];
    this.timer = null;
    this.playing = null; // the running playback (a token), null while paused
    this.pending = Promise.resolve(); // the last seek sent: settles once it is answered
    // Anything the user does to the position pauses playback.
    slider.addEventListener("input", () => {
      this.pause();
      this.seekSoon(Number(slider.value));
    });
    back.addEventListener("click", () => {
      this.pause();
      this.seek(Math.max(1, this.current() - 1));
    });
    forward.addEventListener("click", () => {
      this.pause();
      this.seek(Math.min(this.latest, this.current() + 1));
    });
    playButton.addEventListener("click", () => (this.playing ? this.pause() : this.play()));
    live.addEventListener("click", () => {
      this.pause();
      this.seek(null);
    });
    jump.addEventListener("change", () => {
      this.pause();
      if (jump.value) this.seek(Number(jump.value));
      else this.showPhase();
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
    this.showPhase();
  }

  // The jump list shows the turn/phase the position is in: the last phase start at or before it
  // on the line it is on (a start undone at or before the position is on a line taken back), and
  // the placeholder while live.
  showPhase() {
    let at = "";
    if (this.position !== null) {
      for (const s of this.index) {
        if (s.seq <= this.position && !(s.undoneBy && s.undoneBy <= this.position)) at = String(s.seq);
      }
    }
    this.jump.value = at;
  }

  seekSoon(seq) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.seek(seq >= this.latest ? null : seq), 120);
  }

  // Returns (and keeps as `pending`) a promise settled once the seek is answered; it resolves to
  // false when the seek failed.
  seek(seq) {
    this.position = seq === null || seq >= this.latest ? null : seq;
    this.slider.value = String(this.current());
    this.updateLabel();
    this.showPhase();
    this.pending = Promise.resolve(this.onSeek(this.position));
    return this.pending;
  }

  // Playback: one event forward every PLAY_INTERVAL_MS / speed through the same seek as the step
  // buttons, each seek sent only once the one before it was answered. Started while live it
  // replays from seq 1. It stops on reaching the latest event (the viewer is then live, following
  // the match as it goes on), on a failed seek, and whenever the user moves the position.
  play() {
    if (this.playing || this.latest <= 1) return;
    clearTimeout(this.timer);
    const run = {};
    this.playing = run;
    this.updateLabel();
    this.playFrom(run);
  }

  pause() {
    if (!this.playing) return;
    this.playing = null;
    this.updateLabel();
  }

  async playFrom(run) {
    while (this.playing === run) {
      await this.pending;
      if (this.playing !== run) return;
      const sent = Date.now();
      const ok = await this.seek(this.position === null ? 1 : this.position + 1);
      if (this.playing !== run) return;
      if (ok === false || this.position === null) {
        this.pause();
        return;
      }
      const interval = PLAY_INTERVAL_MS / (Number(this.speed.value) || 1);
      await sleep(Math.max(0, interval - (Date.now() - sent)));
    }
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
    this.playButton.textContent = this.playing ? "Pause" : "Play";
    this.playButton.setAttribute("aria-pressed", String(!!this.playing));
    this.playButton.disabled = !this.playing && this.latest <= 1;
  }
}
