// The odds line of the player's table (docs/table.md, docs/odds.md): under the shoot, charge and
// fight controls, what the selected action will probably do, asked of POST /matches/{id}/odds
// (the rules core with independent dice - never the match's) before the player confirms.
//
// want(section, action, seq) is called whenever the section is drawn: a new selection (or a new
// seq: the odds are of this exact position) is asked after ODDS_DEBOUNCE_MS of quiet; an answer
// to anything but the latest selection of its section is dropped, so a slow stale answer never
// overwrites a newer one. At most one request is in flight per table (the server answers 429
// odds_busy while the side's previous odds request on the match is still being worked out:
// docs/odds.md, "What an answer may cost"): a selection due meanwhile waits, and when the one in
// flight returns the latest selection of each waiting section is asked - never a stale one.
// The line is redrawn in place (#odds-<section>). An illegal selection is
// told by POST /check first (a 200 with the rejection: the browser logs every 4xx answer as a
// console error, and a player trying targets is no error); the odds route would give the same
// rejection with a 422, which is still shown should it come (a race with the other side).
import { HttpError, checkAction, odds } from "./hulldown-client.js";
import { h } from "./panels.js";

export const ODDS_DEBOUNCE_MS = 250;
// A 429 (odds_busy: another tab of the side asking; rate_limited) is asked again after this long.
export const ODDS_RETRY_MS = 500;

const percent = (p) => `${(100 * p).toFixed(p > 0 && p < 0.1 ? 1 : 0)}%`;

// The largest standard error of a probability in the answer (a sampled answer says how sure it is).
function largestError(answer) {
  let largest = 0;
  const see = (prob) => {
    if (prob && typeof prob.se === "number") largest = Math.max(largest, prob.se);
  };
  for (const unit of answer.units) {
    for (const key of ["no_effect", "destroyed", "glancing", "penetrating", "reaches"]) see(unit[key]);
    for (const group of [unit.final, unit.damage_results || {}, unit.statuses || {}]) Object.values(group).forEach(see);
  }
  return largest;
}

export function describeMethod(answer) {
  if (answer.method === "exact") return `exact (${answer.plays} plays of the dice)`;
  return `sampled (${answer.samples} plays, standard error up to ${percent(largestError(answer))})`;
}

// The decisions the action will ask and whose they are (before its dice or in their middle:
// docs/odds.md, Decisions), e.g. "Asks: place chargers (side a) 42%"; null when it asks none.
export function describeAsks(answer) {
  const asks = (answer.decisions || []).map((d) => `${d.kind.replaceAll("_", " ")} (side ${d.side}) ${percent(d.raised.p)}`);
  return asks.length ? `Asks: ${asks.join(", ")}` : null;
}

function describeRejection(body) {
  const error = (body && body.error) || {};
  const values = Object.entries(error.values || {})
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return { code: error.code || "error", text: `${error.message || "no answer"}${error.rule ? ` [${error.rule}]` : ""}${values ? ` (${values})` : ""}` };
}

export class OddsLines {
  // matchId; token: () => the side's token; delay: the debounce in ms.
  constructor({ matchId, token, delay = ODDS_DEBOUNCE_MS }) {
    Object.assign(this, { matchId, token, delay });
    this.sections = {}; // section -> {key, generation, status, lines, asks, method, code, text, seq}
    this.generation = 0;
    this.stats = { asked: 0, answered: 0, dropped: 0 };
    this.inFlight = null; // the section whose request is in flight (one per table), or null
    this.waiting = new Set(); // sections whose selection is due while another is in flight
  }

  // The section's current selection: an action to ask about, or null (nothing selected: no
  // line), or a note (a string: why there are no odds yet, e.g. "choose a target").
  want(section, action, seq) {
    const key = JSON.stringify([seq, action]);
    const current = this.sections[section];
    if (current && current.key === key) return;
    clearTimeout(current && current.timer);
    const generation = ++this.generation;
    if (action === null || typeof action === "string") {
      this.sections[section] = { key, generation, status: action === null ? "none" : "note", text: action || "" };
      this.redraw(section);
      return;
    }
    const entry = { key, generation, status: "loading", text: "working out the odds…", seq, action, due: false };
    entry.timer = setTimeout(() => this.due(section, entry), this.delay);
    this.sections[section] = entry;
    this.redraw(section);
  }

  // The selection has been quiet for the debounce: ask now, or once the request in flight returns.
  due(section, entry, delay = 0) {
    if (this.sections[section] !== entry) return;
    if (delay) {
      entry.timer = setTimeout(() => this.due(section, entry), delay);
      return;
    }
    entry.due = true;
    this.waiting.add(section);
    this.next();
  }

  // Send the next waiting section's latest selection, unless a request is in flight.
  next() {
    if (this.inFlight !== null) return;
    for (const section of this.waiting) {
      this.waiting.delete(section);
      const entry = this.sections[section];
      if (!entry || !entry.due || entry.status !== "loading") continue; // replaced meanwhile
      this.inFlight = section;
      this.ask(section, entry, entry.action).finally(() => {
        this.inFlight = null;
        this.next();
      });
      return;
    }
  }

  async ask(section, entry, action) {
    this.stats.asked += 1;
    let next;
    try {
      const checked = await checkAction("", this.matchId, this.token(), action);
      if (this.sections[section] !== entry) {
        this.stats.dropped += 1;
        return;
      }
      if (!checked.ok) {
        const { code, text } = describeRejection({ error: checked.rejected });
        Object.assign(entry, { status: "rejected", code, text });
        this.stats.answered += 1;
        this.redraw(section);
        return;
      }
      const answer = await odds("", this.matchId, this.token(), action);
      next = { status: "ok", lines: answer.summary, asks: describeAsks(answer), method: answer.method, text: describeMethod(answer), seq: answer.seq };
    } catch (error) {
      if (error instanceof HttpError && error.status === 429 && this.sections[section] === entry) {
        this.due(section, entry, ODDS_RETRY_MS); // busy or rate limited: the line stays "loading"
        return;
      }
      if (error instanceof HttpError && error.status === 422) {
        const { code, text } = describeRejection(error.body);
        next = { status: code === "odds_not_applicable" ? "not-applicable" : "rejected", code, text };
      } else {
        next = { status: "error", code: "error", text: error instanceof HttpError ? describeRejection(error.body).text : String(error) };
      }
    }
    if (this.sections[section] !== entry) {
      this.stats.dropped += 1; // the selection changed while this was asked: a newer one wins
      return;
    }
    this.stats.answered += 1;
    Object.assign(entry, next);
    this.redraw(section);
  }

  element(section) {
    const entry = this.sections[section];
    const attrs = { class: "odds", id: `odds-${section}`, "data-section": section };
    if (!entry || entry.status === "none") return h("div", { ...attrs, hidden: true, "data-state": "none" });
    attrs["data-state"] = entry.status;
    if (entry.seq !== undefined) attrs["data-seq"] = String(entry.seq);
    if (entry.status !== "ok") {
      if (entry.code) attrs["data-code"] = entry.code;
      const lead = { rejected: "Not allowed: ", "not-applicable": "No odds: ", error: "No odds: ", note: "Odds: " }[entry.status] || "";
      return h("div", attrs, h("span", { class: "odds-text" }, `${lead}${entry.text}`));
    }
    attrs["data-method"] = entry.method;
    const asks = entry.asks ? [h("div", { class: "odds-asks" }, entry.asks)] : [];
    return h(
      "div",
      attrs,
      ...entry.lines.map((line) => h("div", { class: "odds-summary" }, line)),
      ...asks,
      h("div", { class: "odds-method" }, `Odds ${entry.text}, before any die is rolled`),
    );
  }

  redraw(section) {
    const shown = document.getElementById(`odds-${section}`);
    if (shown) shown.replaceWith(this.element(section));
  }
}
