'use strict';
// Small helpers shared by the driver (bench.js), the server wrapper and the spectator workers.

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

// CLOCK_MONOTONIC in nanoseconds. libuv reads the system-wide monotonic clock, so stamps taken in
// different processes on this machine are directly comparable.
const now = () => process.hrtime.bigint();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Reject when `promise` has not settled after `ms` milliseconds.
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Deterministic PRNG (mulberry32) so think times are the same on every run.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Run `task(i)` for i in [0, count) with at most `width` tasks in flight.
async function inBatches(count, width, task) {
  for (let start = 0; start < count; start += width) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + width); i++) batch.push(task(i));
    await Promise.all(batch);
  }
}

// Nearest-rank percentiles of a list of numbers, rounded to whole units.
function summarize(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return {
    p50: Math.round(rank(50)),
    p90: Math.round(rank(90)),
    p99: Math.round(rank(99)),
    max: Math.round(sorted[sorted.length - 1]),
    mean: Math.round(mean),
  };
}

// An unused TCP port on 127.0.0.1 (asked from the kernel, then released).
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// CPU time (user+system, microseconds), bytes written through write(2)-family calls (sockets
// included: this counts every WebSocket frame the process sent) and resident memory of a process,
// read from /proc so it works for a server in any language.
const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ; `getconf CLK_TCK` prints 100 on this machine.
function procStats(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  const ticks = Number(fields[11]) + Number(fields[12]); // utime (14) + stime (15)
  const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
  const wchar = Number(/wchar:\s*(\d+)/.exec(io)[1]);
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s*(\d+)/.exec(status)[1]);
  return { cpuUs: (ticks * 1e6) / CLOCK_TICKS_PER_S, wchar, rssKb };
}

// CPU time the whole machine spent busy (all cores; user, nice, system, irq, softirq, steal), in
// microseconds, from /proc/stat: compared with the benchmark's own processes it shows how much
// CPU something else on the machine used during a run.
function machineBusyUs() {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = cpu; // idle and iowait left out
  return ((user + nice + system + irq + softirq + (steal || 0)) * 1e6) / CLOCK_TICKS_PER_S;
}

// Version of an installed package as seen from `fromDir` (walks node_modules folders upward, so it
// also finds nested copies such as the socket.io that boardgame.io's server really runs on).
function pkgVersion(name, fromDir = __dirname) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).version;
    if (dir === path.dirname(dir)) return null;
  }
}

// Directory of an installed package as seen from `fromDir`.
function pkgDir(name, fromDir = __dirname) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === path.dirname(dir)) return null;
  }
}

module.exports = {
  now,
  sleep,
  withTimeout,
  mulberry32,
  inBatches,
  summarize,
  freePort,
  procStats,
  machineBusyUs,
  pkgVersion,
  pkgDir,
};
