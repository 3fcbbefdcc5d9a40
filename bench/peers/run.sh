#!/usr/bin/env bash
# Peer round-trip benchmark: hulldown, boardgame.io and Colyseus, 2 players + N spectators, all on
# 127.0.0.1.
# Installs the pinned packages into this folder, then prints one JSON object per
# peer / variant / spectator count on stdout. Progress and install output go to stderr.
#
# The configurations are interleaved: in each round, at each N, every configuration runs in turn,
# so the peers compared at one N ran minutes apart, not a whole matrix apart (a shared machine's
# speed drifts within the hour).
#
# Environment overrides (defaults in brackets):
#   SPECTATORS ["0 100 1000"]  MOVES [1000]  WARMUP [100]  THINK_MS [50]  ROUNDS [1]
#   SPECTATOR_MODE [thin]  (thin | full, see README.md)   DEADLINE_S [300] per run
#   CONFIGS: newline-separated "peer variant" pairs [all five below]
set -euo pipefail
cd "$(dirname "$0")"

SPECTATORS="${SPECTATORS:-0 100 1000}"
MOVES="${MOVES:-1000}"
WARMUP="${WARMUP:-100}"
THINK_MS="${THINK_MS:-50}"
SPECTATOR_MODE="${SPECTATOR_MODE:-thin}"
DEADLINE_S="${DEADLINE_S:-300}"
ROUNDS="${ROUNDS:-1}"
CONFIGS="${CONFIGS:-hulldown default
boardgameio full-state
boardgameio delta-state
colyseus patchrate-50ms-default
colyseus broadcastpatch-immediate}"

npm ci --no-audit --no-fund --loglevel=error >&2

export NODE_ENV=production
ulimit -n 65536 2>/dev/null || true # 1000 spectators need ~2000 sockets across the processes

run_one() {
  local peer=$1 variant=$2 n=$3 rc=0
  # bench.js stops itself at DEADLINE_S and prints an error object; `timeout` is only a backstop.
  timeout --kill-after=10 "$((DEADLINE_S + 30))" node bench.js \
    --peer "$peer" --variant "$variant" --spectators "$n" --moves "$MOVES" --warmup "$WARMUP" \
    --think-ms "$THINK_MS" --spectator-mode "$SPECTATOR_MODE" --deadline-s "$DEADLINE_S" \
    </dev/null || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    printf '{"peer":"%s","variant":"%s","spectators":%s,"error":"killed by timeout (rc %s)"}\n' \
      "$peer" "$variant" "$n" "$rc"
  fi
}

for round in $(seq 1 "$ROUNDS"); do
  echo "run.sh: round $round of $ROUNDS" >&2
  for n in $SPECTATORS; do
    while read -r peer variant; do
      [ -n "$peer" ] || continue
      run_one "$peer" "$variant" "$n"
    done <<<"$CONFIGS"
  done
done
