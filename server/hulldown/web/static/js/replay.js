// The replay scrubber: a seq slider, step buttons, "live", and jumps to turn/phase starts.

async function getJSON(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

// Turn/phase starts from the event log: seq 1 (the match's first state) and every seq whose
// event ended a phase; each is labelled from the state at that seq.
export async function phaseIndex(matchId, latestSeq) {
  const base = `/matches/${encodeURIComponent(matchId)}`;
  const events = [];
  let from = 1;
  for (;;) {
    const page = await getJSON(`${base}/events?from=${from}&limit=1000`);
    events.push(...page.events);
    if (page.events.length < 1000) break;
    from = page.events[page.events.length - 1].seq + 1;
  }
  const starts = [1, ...events.filter((e) => e.body.type === "end_phase").map((e) => e.seq)].filter(
    (seq) => seq <= latestSeq,
  );
  const labelled = [];
  const queue = [...starts];
  const worker = async () => {
    while (queue.length) {
      const seq = queue.shift();
      const { view } = await getJSON(`${base}/state?at=${seq}`);
      labelled.push({ seq, turn: view.turn, side: view.active, phase: view.phase });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return labelled.sort((x, y) => x.seq - y.seq);
}

export class Scrubber {
  constructor({ slider, label, back, forward, live, jump, onSeek }) {
    Object.assign(this, { slider, label, back, forward, live, jump, onSeek });
    this.latest = 1;
    this.position = null; // null: following live
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

  setIndex(index) {
    for (const start of index) if (!this.index.some((s) => s.seq === start.seq)) this.index.push(start);
    this.index.sort((x, y) => x.seq - y.seq);
    this.renderIndex();
  }

  renderIndex() {
    const options = [new Option("jump to turn / phase…", "")];
    for (const s of this.index) {
      const option = new Option(`Turn ${s.turn} · side ${s.side.toUpperCase()} · ${s.phase} (seq ${s.seq})`, String(s.seq));
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

  updateLabel() {
    this.label.textContent =
      this.position === null ? `live · seq ${this.latest}` : `replay · seq ${this.position} of ${this.latest}`;
    this.live.disabled = this.position === null;
  }
}
