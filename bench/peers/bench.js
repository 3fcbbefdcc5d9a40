'use strict';
// One benchmark run: one peer server, 2 player clients and N spectator clients, all on 127.0.0.1.
//   node bench.js --peer boardgameio|colyseus|hulldown --variant NAME --spectators N [--moves 1000]
//                 [--warmup 100] [--think-ms 50] [--spectator-mode thin|full] [--spectator-procs 1]
//                 [--deadline-s 300] [--move-timeout-s 10] [--seed 1] [--samples-file FILE]
// Prints one JSON object on stdout; progress and server logs go to stderr.
//
// Processes: the server (spawned from the adapter's serverCommand), this driver (the two players),
// and --spectator-procs workers (spectators.js) sharing the N spectators.
// Each move: wait a random think time in [0, think-ms) ms, stamp t0, the player whose turn it is sends
// one action, then wait until both players and every spectator have seen the new state version.
// Latencies run from t0 to each client seeing the new state (its state callback; for thin spectators
// the arrival of the raw update frame), on the system-wide monotonic clock.

const { spawn, fork } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { parseArgs } = require('node:util');
const { now, sleep, withTimeout, mulberry32, summarize, freePort, procStats, machineBusyUs } = require('./lib');

const { values: argv } = parseArgs({
  options: {
    peer: { type: 'string' },
    variant: { type: 'string' },
    spectators: { type: 'string', default: '0' },
    moves: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '100' },
    'think-ms': { type: 'string', default: '50' },
    'spectator-mode': { type: 'string', default: 'thin' },
    'spectator-procs': { type: 'string', default: '1' },
    'deadline-s': { type: 'string', default: '300' },
    'move-timeout-s': { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
    // A diagnostic: one JSON line per measured action (its t0 on the monotonic clock, in ns, and
    // each latency in us), to line up with a server-side trace such as HULLDOWN_BENCH_TRACE's.
    'samples-file': { type: 'string' },
  },
});
const opt = {
  peer: argv.peer,
  variant: argv.variant,
  spectators: Number(argv.spectators),
  moves: Number(argv.moves),
  warmup: Number(argv.warmup),
  thinkMs: Number(argv['think-ms']),
  spectatorMode: argv['spectator-mode'],
  spectatorProcs: Math.max(1, Math.min(Number(argv['spectator-procs']), Number(argv.spectators) || 1)),
  deadlineS: Number(argv['deadline-s']),
  moveTimeoutS: Number(argv['move-timeout-s']),
  seed: Number(argv.seed),
};
const adapter = require(`./peer-${opt.peer}.js`);
if (!adapter.variants.includes(opt.variant)) {
  throw new Error(`--variant must be one of ${adapter.variants.join(', ')}`);
}
if (!['thin', 'full'].includes(opt.spectatorMode)) throw new Error('--spectator-mode must be thin or full');

const log = (...args) => console.error(`[${opt.peer}/${opt.variant}/N=${opt.spectators}]`, ...args);
const children = [];
const startedAt = Date.now();

function report(result) {
  process.stdout.write(
    JSON.stringify({
      peer: adapter.label,
      variant: opt.variant,
      spectators: opt.spectators,
      moves: opt.moves,
      warmup: opt.warmup,
      think_ms_max: opt.thinkMs,
      spectator_mode: opt.spectatorMode,
      spectator_procs: opt.spectatorProcs,
      versions: { node: process.version, ...adapter.versions() },
      ...result,
      wall_s: Math.round((Date.now() - startedAt) / 100) / 10,
    }) + '\n',
  );
}

function shutdown(code) {
  for (const child of children) child.kill('SIGKILL');
  process.exit(code);
}

function fail(err) {
  log('FAILED:', err);
  report({ error: String(err && err.message ? err.message : err) });
  shutdown(1);
}

// Start the server and wait for its `READY <json>` line; its other output goes to our stderr.
async function startServer(port) {
  const { cmd, args, env } = adapter.serverCommand(port, opt.variant);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  children.push(child);
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with code ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)));
      else process.stderr.write(`server: ${line}\n`);
    });
  });
  const info = await withTimeout(ready, 30_000, 'server start');
  child.removeAllListeners('exit');
  child.once('exit', (code) => fail(new Error(`server exited with code ${code} during the run`)));
  return { child, info };
}

async function main() {
  setTimeout(() => fail(new Error(`deadline of ${opt.deadlineS} s reached`)), opt.deadlineS * 1000);

  const port = await freePort();
  const server = await startServer(port);
  const match = await adapter.setup(port, server.info);

  // The move currently in flight: what has been seen of it so far.
  let pending = null;
  const settleIfDone = () => {
    const p = pending;
    if (p && p.players[0] !== null && p.players[1] !== null && p.workersLeft === 0) {
      pending = null;
      p.resolve(p);
    }
  };

  // Players, in this process. Player 0 moves first in both games; turns alternate.
  const playerBytes = [0, 0];
  const players = [];
  for (const seat of [0, 1]) {
    let lastN = -1;
    players.push(
      await withTimeout(
        adapter.connect({
          port,
          match,
          variant: opt.variant,
          seat,
          onState: (n) => {
            if (n <= lastN) return;
            lastN = n;
            if (pending && n === pending.n) {
              pending.players[seat] = now();
              settleIfDone();
            }
          },
          onBytes: (len) => (playerBytes[seat] += len),
        }),
        30_000,
        `player ${seat} connect`,
      ),
    );
  }

  // Spectators, in worker processes.
  const setupStart = Date.now();
  let spectatorProbeBytes = 0;
  const workers = [];
  let spectatorsLeft = opt.spectators;
  for (let w = 0; w < opt.spectatorProcs && opt.spectators > 0; w++) {
    const count = Math.ceil(spectatorsLeft / (opt.spectatorProcs - w));
    spectatorsLeft -= count;
    const worker = fork(
      path.join(__dirname, 'spectators.js'),
      [opt.peer, opt.variant, String(port), String(count), JSON.stringify(match), opt.spectatorMode],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    children.push(worker);
    worker.ready = new Promise((resolve, reject) => {
      worker.on('message', (msg) => {
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'error') reject(new Error(`spectator worker: ${msg.message}`));
        else if (msg.type === 'seen') {
          if (w === 0) spectatorProbeBytes = msg.probeBytes;
          if (pending && msg.n === pending.n) {
            const first = BigInt(msg.first);
            const last = BigInt(msg.last);
            if (pending.specFirst === null || first < pending.specFirst) pending.specFirst = first;
            if (pending.specLast === null || last > pending.specLast) pending.specLast = last;
            pending.workersLeft -= 1;
            settleIfDone();
          }
        }
      });
      worker.once('exit', (code) => reject(new Error(`spectator worker exited with code ${code}`)));
    });
    workers.push(worker);
  }
  await withTimeout(Promise.all(workers.map((w) => w.ready)), 180_000, 'spectators connect');
  for (const worker of workers) {
    worker.removeAllListeners('exit');
    worker.once('exit', (code) => fail(new Error(`spectator worker exited with code ${code} during the run`)));
  }
  log(`connected 2 players + ${opt.spectators} spectators (${Date.now() - setupStart} ms for spectators)`);

  // The measured loop.
  const random = mulberry32(opt.seed);
  const samples = { mover: [], opponent: [], firstSpectator: [], lastSpectator: [] };
  const samplesOut = argv['samples-file'] ? [] : null;
  let before = null;
  // Helper processes of the server that it names in its READY json (`aux_pids`: name -> pid), e.g.
  // hulldown's embedded Redis; reported beside the server process, not added to it.
  const auxPids = Object.entries((server.info && server.info.aux_pids) || {});
  const snapshot = () => ({
    server: procStats(server.child.pid),
    aux: auxPids.map(([, pid]) => procStats(pid)),
    workers: workers.map((w) => procStats(w.pid)),
    driverCpuUs: (({ user, system }) => user + system)(process.cpuUsage()),
    playerBytes: playerBytes[0] + playerBytes[1],
    spectatorProbeBytes,
    machineBusyUs: machineBusyUs(),
    t: now(),
  });
  const total = opt.warmup + opt.moves;
  const turnByState = players.every((p) => typeof p.myTurn === 'function');
  const moverCounts = [0, 0];
  for (let i = 0; i < total; i++) {
    if (i === opt.warmup) before = snapshot();
    await sleep(random() * opt.thinkMs);
    // The player whose turn it is acts. Both Node peers flip the turn on every action (seat i % 2);
    // an adapter whose turns span several actions (hulldown: three phases per player turn) exposes
    // myTurn() on its player clients, read from each client's own copy of the state.
    const seat = turnByState ? players.findIndex((p) => p.myTurn()) : i % 2;
    if (seat < 0 || (turnByState && players[1 - seat].myTurn())) throw new Error(`move ${i + 1}: no single player to act`);
    const done = new Promise((resolve) => {
      pending = {
        n: i + 1, // every adapter's counter starts at n = 0 and adds 1 per action
        players: [null, null],
        workersLeft: workers.length,
        specFirst: null,
        specLast: null,
        resolve,
      };
    });
    const t0 = now();
    players[seat].act();
    const p = await withTimeout(done, opt.moveTimeoutS * 1000, `move ${i + 1}`);
    if (i < opt.warmup) continue;
    moverCounts[seat] += 1;
    const us = (t) => Number(t - t0) / 1000;
    samples.mover.push(us(p.players[seat]));
    samples.opponent.push(us(p.players[1 - seat]));
    if (p.specFirst !== null) {
      samples.firstSpectator.push(us(p.specFirst));
      samples.lastSpectator.push(us(p.specLast));
    }
    if (samplesOut !== null) {
      const row = { i, t0: String(t0), mover: us(p.players[seat]), opponent: us(p.players[1 - seat]) };
      if (p.specFirst !== null) Object.assign(row, { first_spectator: us(p.specFirst), last_spectator: us(p.specLast) });
      samplesOut.push(JSON.stringify(row));
    }
  }
  const after = snapshot();
  // Written after the figures were read, so the driver's CPU does not include it.
  if (samplesOut !== null) require('node:fs').writeFileSync(argv['samples-file'], samplesOut.join('\n') + '\n');

  const perMove = (x) => Math.round(x / opt.moves);
  const workerCpuUs = after.workers.reduce((s, w, k) => s + w.cpuUs - before.workers[k].cpuUs, 0);
  report({
    latency_us: {
      mover: summarize(samples.mover),
      opponent: summarize(samples.opponent),
      first_spectator: summarize(samples.firstSpectator),
      last_spectator: summarize(samples.lastSpectator),
    },
    update_message_bytes: {
      // WebSocket payload bytes a client received per move (one state update each).
      player: Math.round((after.playerBytes - before.playerBytes) / (2 * opt.moves)),
      spectator: opt.spectators > 0 ? perMove(after.spectatorProbeBytes - before.spectatorProbeBytes) : null,
    },
    server: {
      cpu_us_per_move: perMove(after.server.cpuUs - before.server.cpuUs),
      // All bytes the server process wrote per move (every recipient, WebSocket framing included).
      // null when the process wrote its sockets with send(2)/sendmsg(2) (e.g. Python's asyncio),
      // which /proc/PID/io's wchar does not count.
      bytes_written_per_move: after.server.wchar > before.server.wchar ? perMove(after.server.wchar - before.server.wchar) : null,
      rss_mb: Math.round(after.server.rssKb / 1024),
      ...(auxPids.length > 0
        ? {
            aux: Object.fromEntries(
              auxPids.map(([name], k) => [
                name,
                {
                  cpu_us_per_move: perMove(after.aux[k].cpuUs - before.aux[k].cpuUs),
                  bytes_written_per_move: perMove(after.aux[k].wchar - before.aux[k].wchar),
                  rss_mb: Math.round(after.aux[k].rssKb / 1024),
                },
              ]),
            ),
          }
        : {}),
    },
    clients_cpu_us_per_move: {
      players_driver: perMove(after.driverCpuUs - before.driverCpuUs),
      spectator_workers: opt.spectators > 0 ? perMove(workerCpuUs) : null,
    },
    // CPU of everything else on the machine during the measured window (busy CPU from /proc/stat
    // minus the server, its helpers, the driver and the spectator workers), in cores: other work
    // competing with this run.
    other_cpu_cores: (() => {
      const seconds = Number(after.t - before.t) / 1e9;
      const ours =
        after.server.cpuUs - before.server.cpuUs +
        after.aux.reduce((s, a, k) => s + a.cpuUs - before.aux[k].cpuUs, 0) +
        workerCpuUs +
        (after.driverCpuUs - before.driverCpuUs);
      return Math.round(((after.machineBusyUs - before.machineBusyUs - ours) / 1e6 / seconds) * 100) / 100;
    })(),
    mover_rule: turnByState ? 'myTurn() of the player clients' : 'alternate (i % 2)',
    moves_by_seat: moverCounts,
    measured_s: Math.round(Number(after.t - before.t) / 1e8) / 10,
  });

  // Close the clients politely, then make sure every process is gone.
  for (const player of players) {
    try {
      player.close();
    } catch {}
  }
  await sleep(100);
  shutdown(0);
}

main().catch(fail);
