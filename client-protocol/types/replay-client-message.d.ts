/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */

/**
 * Every websocket frame a client may send to /matches/{id}/replay (tagged by 'type').
 */
export type ReplayClientMessage = ReplayOpen | ReplayPlay | ReplayPause | ReplayStep | ReplaySeek | Ping;

/**
 * First message on a replay connection. ``token``: a side token or the spectator token of a
 * private match (a spectator of a delayed match replays only up to the delayed seq). Starts at
 * ``from_seq`` (a ``replay_state``), then ``mode`` "step" waits for ``replay_step``; "play" sends
 * frames at the match's own pace divided by ``speed``, each pause capped at ``max_gap`` seconds
 * (0: no cap).
 */
export interface ReplayOpen {
  type: "replay_open";
  from_seq?: number;
  mode?: "play" | "step";
  speed?: number;
  max_gap?: number;
  token?: string | null;
}
export interface ReplayPlay {
  type: "replay_play";
  speed?: number;
  max_gap?: number | null;
}
export interface ReplayPause {
  type: "replay_pause";
}
/**
 * Send the next ``count`` frames now (pauses playback; at most 1,000 at a time).
 */
export interface ReplayStep {
  type: "replay_step";
  count?: number;
}
/**
 * Jump to the state as of ``seq`` (a fresh ``replay_state``); the mode is kept.
 */
export interface ReplaySeek {
  type: "replay_seek";
  seq: number;
}
export interface Ping {
  type: "ping";
  nonce?: string;
}
