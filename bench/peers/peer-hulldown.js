'use strict';
// Peer adapter: hulldown (this repository), a Python server.
// Server: hulldown_server.py, which runs what `hulldown serve` runs (embedded Redis with AOF on a unix
// socket, uvicorn + the Starlette app on 127.0.0.1:port) in its own process, creates one 40k7 match
// through POST /matches (examples/duel-40k7.json, turn_limit 1,000,000) and prints READY.
// Clients: there is no hulldown JavaScript client library, so the clients here speak the protocol
// (client-protocol/) directly over the `ws` package (the WebSocket library colyseus.js uses in Node):
// hello -> welcome (full view) -> patch messages (RFC 6902 ops). A full client (players, and
// spectators in `full` mode) JSON-decodes every message and applies the patch to its copy of the view,
// as a library client would.
//
// The action: the side to act sends {"type":"act","action_id":..,"action":{"type":"end_phase"}}; the
// server validates it (this side's token, its turn, no pending decision), appends the event to the
// Redis stream (the action is persisted before anyone sees it), folds it and pushes one patch to every
// client. The mover also gets an `ack` after its patch. The counter n is the match `seq` minus the seq
// at match creation, so it starts at 0 and adds 1 per action, as in the other peers.
//
// Turns: in 40k7 a player turn has three phases (movement, shooting, assault), so a side acts three
// times in a row before the other side's turn. A player client therefore exposes myTurn() (from its
// own copy of the view: `active`), and bench.js lets the player whose turn it is act; the mover is
// always the client that sent the action. See README.md, "Adding a peer".
//
// Adapter interface (see README.md): label, versions(), variants, serverCommand(), setup(), connect().

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { pkgVersion } = require('./lib');

const REPO = path.resolve(__dirname, '..', '..');
const TRACE = Boolean(process.env.HULLDOWN_BENCH_TRACE);

const variants = {
  // The server's defaults (websocket per-message deflate off), HULLDOWN_RATE lifted.
  default: { env: {} },
};

// Which Python runs the server: HULLDOWN_BENCH_PYTHON (e.g. `python3` from PATH, which must then
// import hulldown), else the repository's virtualenv.
function python() {
  if (process.env.HULLDOWN_BENCH_PYTHON) return process.env.HULLDOWN_BENCH_PYTHON;
  const venv = path.join(REPO, '.venv', 'bin', 'python');
  return fs.existsSync(venv) ? venv : 'python3';
}

let cachedVersions = null;
function versions() {
  if (cachedVersions) return cachedVersions;
  let py = {};
  try {
    const out = execFileSync(
      python(),
      [
        '-c',
        'import json, sys\n' +
          'from importlib.metadata import version\n' +
          'v = {"python": sys.version.split()[0]}\n' +
          'for p in ("hulldown", "uvicorn", "starlette", "websockets", "redis", "msgspec"):\n' +
          '    v[p] = version(p)\n' +
          'print(json.dumps(v))',
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    py = JSON.parse(out);
  } catch (err) {
    py = { error: String(err.message || err) };
  }
  let commit = null;
  try {
    commit = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {}
  cachedVersions = { ...py, 'hulldown commit': commit, 'ws (client)': pkgVersion('ws') };
  return cachedVersions;
}

function serverCommand(port, variant) {
  if (!(variant in variants)) throw new Error(`unknown hulldown variant ${variant}`);
  return {
    cmd: python(),
    args: [path.join(__dirname, 'hulldown_server.py'), String(port), variant],
    env: { HULLDOWN_RATE: '1000000', PYTHONUNBUFFERED: '1', ...variants[variant].env },
  };
}

// Runs in the driver: the server created the match at start-up.
async function setup(port, serverInfo) {
  return {
    matchId: serverInfo.match_id,
    tokens: serverInfo.tokens,
    baseSeq: serverInfo.base_seq,
  };
}

// ---- a minimal RFC 6902 applier (add / remove / replace / move / copy / test) --------------------

function unescape(token) {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parent(doc, pointer) {
  const tokens = pointer.split('/').slice(1).map(unescape);
  const last = tokens.pop();
  let node = doc;
  for (const t of tokens) node = Array.isArray(node) ? node[Number(t)] : node[t];
  if (node === undefined || node === null) throw new Error(`patch path ${pointer} not found`);
  return [node, last];
}

function getAt(doc, pointer) {
  if (pointer === '') return doc;
  const [node, key] = parent(doc, pointer);
  return Array.isArray(node) ? node[Number(key)] : node[key];
}

function applyPatch(doc, ops) {
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'replace' || op.op === 'add') doc = op.value;
      continue;
    }
    switch (op.op) {
      case 'add':
      case 'replace': {
        const [node, key] = parent(doc, op.path);
        if (Array.isArray(node)) {
          if (key === '-') node.push(op.value);
          else if (op.op === 'add') node.splice(Number(key), 0, op.value);
          else node[Number(key)] = op.value;
        } else node[key] = op.value;
        break;
      }
      case 'remove': {
        const [node, key] = parent(doc, op.path);
        if (Array.isArray(node)) node.splice(Number(key), 1);
        else delete node[key];
        break;
      }
      case 'move':
      case 'copy': {
        const value = getAt(doc, op.from);
        const copy = op.op === 'copy' ? structuredClone(value) : value;
        if (op.op === 'move') applyPatch(doc, [{ op: 'remove', path: op.from }]);
        doc = applyPatch(doc, [{ op: 'add', path: op.path, value: copy }]);
        break;
      }
      case 'test':
        break;
      default:
        throw new Error(`unknown patch op ${op.op}`);
    }
  }
  return doc;
}

// ---- clients --------------------------------------------------------------------------------------

const PATCH_PREFIX = Buffer.from('{"type":"patch"');
const SIDES = ['a', 'b'];

// Connect one client. seat: 0 (side a) or 1 (side b) for a player, null for a spectator.
// onState(n) is called with seq - baseSeq whenever the client's view changes; onBytes(len) (optional)
// with the payload size of every WebSocket message received (players also receive an `ack` per own
// action, so their bytes include it).
// thin: after the welcome, count frames that start with {"type":"patch" without decoding them.
// Resolves once the client holds the full view (welcome); act() sends end_phase for this seat's side.
async function connect({ port, match, seat, onState, onBytes, thin = false }) {
  const WebSocket = require('ws');
  const ws = new WebSocket(`ws://127.0.0.1:${port}/matches/${match.matchId}/live`, { maxPayload: 1 << 26 });
  const side = seat === null ? null : SIDES[seat];
  let view = null;
  let actions = 0;
  let welcomed;
  let failed;
  const ready = new Promise((resolve, reject) => {
    welcomed = resolve;
    failed = reject;
  });
  ws.on('error', (err) => failed(err));
  ws.on('close', (code) => failed(new Error(`websocket closed (${code}) before the welcome`)));

  let counted = null; // thin mode: seq of the last counted patch frame
  ws.on('message', (data, isBinary) => {
    if (onBytes) onBytes(data.length);
    if (counted !== null) {
      if (!isBinary && data.length > PATCH_PREFIX.length && PATCH_PREFIX.equals(data.subarray(0, PATCH_PREFIX.length))) {
        counted += 1;
        onState(counted - match.baseSeq);
        return;
      }
    }
    const message = JSON.parse(data.toString('utf8'));
    switch (message.type) {
      case 'welcome':
      case 'resync':
        view = message.view;
        onState(message.seq - match.baseSeq);
        if (message.type === 'welcome') {
          if (thin) counted = message.seq;
          welcomed();
        } else if (counted !== null) counted = message.seq;
        break;
      case 'patch':
        if (view === null) break;
        if (message.seq !== view.seq + 1) {
          console.error(`hulldown client: patch seq ${message.seq} after view seq ${view.seq}`);
        }
        view = applyPatch(view, message.ops);
        onState(message.seq - match.baseSeq);
        break;
      case 'ack':
        break;
      case 'rejected':
      case 'error':
        console.error(`hulldown client (${side || 'spectator'}): ${data.toString('utf8')}`);
        break;
      default:
        break;
    }
  });
  ws.on('open', () => {
    ws.send(JSON.stringify(side === null ? { type: 'hello', spectator: true } : { type: 'hello', token: match.tokens[side] }));
  });
  await ready;
  ws.removeAllListeners('close');
  ws.removeAllListeners('error');
  ws.on('error', (err) => console.error(`hulldown client (${side || 'spectator'}): ${err}`));

  return {
    // Is it this player's turn, by its own copy of the view? (bench.js: the player whose turn it is acts.)
    myTurn: side === null ? undefined : () => view.active === side && !view.ended && !view.pending,
    act: () => {
      actions += 1;
      // With HULLDOWN_BENCH_TRACE (a diagnostic, see hulldown_trace.py) the action_id carries the send time.
      const stamp = TRACE ? `-${process.hrtime.bigint()}` : '';
      ws.send(`{"type":"act","action_id":"bench-${side}-${actions}${stamp}","action":{"type":"end_phase"}}`);
    },
    close: () => ws.close(),
  };
}

module.exports = {
  label: 'hulldown',
  versions,
  variants: Object.keys(variants),
  serverCommand,
  setup,
  connect,
};
