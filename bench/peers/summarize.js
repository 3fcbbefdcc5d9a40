'use strict';
// Markdown table of bench.js results: node summarize.js results/FILE.jsonl [...]
// One row per peer / variant / N: p50 / p99 (ms) of the mover, the opponent and the last spectator,
// update bytes (player / spectator payload), server CPU per move (and that of helper processes such
// as hulldown's embedded Redis), bytes the server wrote per move.

const fs = require('node:fs');

const ms = (s) => (s ? `${(s.p50 / 1000).toFixed(2)} / ${(s.p99 / 1000).toFixed(2)}` : '-');

const rows = [];
for (const file of process.argv.slice(2)) {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (r.error) {
      rows.push(`| ${r.peer} | ${r.variant} | ${r.spectators} | error: ${r.error} | | | | | |`);
      continue;
    }
    const aux = r.server.aux
      ? ' + ' + Object.entries(r.server.aux).map(([name, a]) => `${a.cpu_us_per_move} (${name})`).join(' + ')
      : '';
    const bytes = r.update_message_bytes;
    rows.push(
      `| ${r.peer} | ${r.variant} | ${r.spectators} | ${ms(r.latency_us.mover)} | ${ms(r.latency_us.opponent)} | ` +
        `${ms(r.latency_us.last_spectator)} | ${bytes.player} / ${bytes.spectator ?? '-'} | ` +
        `${r.server.cpu_us_per_move}${aux} | ${r.server.bytes_written_per_move ?? 'n/a'} |`,
    );
  }
}
console.log(
  '| peer | variant | N | mover p50 / p99 ms | opponent p50 / p99 ms | last spectator p50 / p99 ms | ' +
    'update bytes (player / spectator) | server CPU us per move | server bytes written per move |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
