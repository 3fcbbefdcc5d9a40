// The spectator's websocket: hello -> welcome -> patches, with gap resume and reconnects.
import { applyPatch, PatchError } from "./jsonpatch.js";

export class LiveConnection {
  // onView(view, seq, reason) is called after every change; onStatus(text) on connection changes.
  constructor(url, { spectatorToken = null, sideToken = null, onView = () => {}, onStatus = () => {} } = {}) {
    this.url = url;
    this.spectatorToken = spectatorToken;
    this.sideToken = sideToken; // a side's link (#side_token=): watch as that side, undelayed
    this.onView = onView;
    this.onStatus = onStatus;
    this.view = null;
    this.welcome = null;
    this.seq = 0;
    this.resumeFrom = null;
    this.attempts = 0;
    this.closed = false;
    this.stats = { welcomes: 0, patches: 0, gaps: 0, resyncs: 0, connections: 0 };
    this.dropPatches = 0; // test hook: lose this many incoming patches, as a network could
  }

  start() {
    this.closed = false;
    this.open();
  }

  stop() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }

  open() {
    this.onStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      const hello = this.sideToken ? { type: "hello", token: this.sideToken } : { type: "hello", spectator: true };
      if (!this.sideToken && this.spectatorToken) hello.spectator_token = this.spectatorToken;
      if (this.view !== null) hello.resume_from = this.seq;
      ws.send(JSON.stringify(hello));
      ws.send(JSON.stringify({ type: "ping", nonce: "ready" }));
    };
    ws.onmessage = (event) => this.handle(ws, JSON.parse(event.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.onStatus("reconnecting");
      // Exponential backoff with jitter, capped at 5 s.
      const delay = Math.min(5000, 200 * 2 ** this.attempts) * (0.8 + 0.4 * Math.random());
      this.attempts += 1;
      setTimeout(() => this.open(), delay);
    };
  }

  handle(ws, message) {
    switch (message.type) {
      case "welcome":
        this.stats.welcomes += 1;
        this.welcome = { role: message.role, delayed: !!message.delayed, delay_events: message.delay_events || 0, delay_seconds: message.delay_seconds || 0 };
        this.reset(message.seq, message.view, "welcome");
        break;
      case "resync":
        this.stats.resyncs += 1;
        this.reset(message.seq, message.view, "resync");
        break;
      case "patch":
        if (this.dropPatches > 0) {
          this.dropPatches -= 1;
          break;
        }
        this.patch(ws, message);
        break;
      case "pong":
        if (message.nonce === "ready") {
          this.attempts = 0;
          this.stats.connections += 1;
          this.onStatus("live");
        }
        break;
      case "error":
        if (message.fatal) {
          this.closed = true;
          this.onStatus(`refused: ${message.code}`);
        }
        break;
      default:
        break; // SPEC: ignore message types this client does not know
    }
  }

  reset(seq, view, reason) {
    this.view = view;
    this.seq = seq;
    this.resumeFrom = null;
    this.onView(this.view, this.seq, reason);
  }

  patch(ws, message) {
    if (this.view === null || message.seq <= this.seq) return; // duplicate
    if (message.seq > this.seq + 1) {
      this.stats.gaps += 1;
      if (this.resumeFrom !== this.seq) {
        this.resumeFrom = this.seq;
        ws.send(JSON.stringify({ type: "resume", from_seq: this.seq }));
      }
      return;
    }
    try {
      this.view = applyPatch(this.view, message.ops);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      this.view = null; // start again from a fresh welcome
      ws.close();
      return;
    }
    this.seq = message.seq;
    this.resumeFrom = null;
    this.stats.patches += 1;
    this.onView(this.view, this.seq, "patch");
  }
}
