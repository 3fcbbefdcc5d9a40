// Declarations of hulldown-client.js (hand-written; the message types are generated from the
// JSON Schemas into types/ by scripts/generate-types.mjs).
import type { Action } from "./types/action.js";
import type { CreateMatch } from "./types/create-match.js";
import type { Ack, MatchState, Rejected, ServerMessage } from "./types/server-message.js";

export type { Action, Ack, CreateMatch, MatchState, Rejected, ServerMessage };

export declare const PROTOCOL_VERSION: 1;

export declare class ClientError extends Error {}
export declare class FatalError extends ClientError {
  readonly code: string;
  readonly serverMessage: string;
  constructor(code: string, message: string);
}
export declare class ConnectionLost extends ClientError {}
export declare class TimeoutError extends ClientError {}

export interface BackoffOptions {
  /** First delay in ms (default 100). */
  initial?: number;
  factor?: number;
  /** Cap in ms (default 5000). */
  maximum?: number;
  jitter?: number;
  /** null: retry forever. */
  maxAttempts?: number | null;
  random?: () => number;
}

export declare class Backoff {
  constructor(options?: BackoffOptions);
  attempts: number;
  nextDelay(): number;
  reset(): void;
}

export type ActResult = Ack | Rejected;
export type Status = "idle" | "connecting" | "live" | "reconnecting" | "closed" | `refused: ${string}`;

export interface ClientOptions {
  /** A side's token (sent in the hello frame, never in a URL). */
  token?: string | null;
  spectator?: boolean;
  /** The spectator token of a private match. */
  spectatorToken?: string | null;
  /** A WebSocket constructor (default globalThis.WebSocket; in Node < 22 pass the `ws` package's). */
  WebSocket?: unknown;
  backoff?: Backoff | BackoffOptions | null;
  /** ms (default 10000). */
  openTimeout?: number;
  /** ms (default 30000). */
  actTimeout?: number;
}

export interface ClientStats {
  connections: number;
  welcomes: number;
  resyncs: number;
  patches: number;
  duplicates: number;
  gaps: number;
  resumes: number;
  resent: number;
  patchErrors: number;
  errors: ServerMessage[];
}

export interface ActOptions {
  /** Reuse to retry safely: the server answers a second delivery with ack {duplicate: true}. */
  actionId?: string | null;
  /** The seq the action is based on: rejected as `stale` if the match moved on. */
  expect?: number | null;
  /** ms (default the client's actTimeout). */
  timeout?: number | null;
}

export declare class HulldownClient {
  constructor(url: string, options?: ClientOptions);
  readonly url: string;
  view: MatchState | null;
  seq: number;
  matchId: string | null;
  role: "a" | "b" | "spectator" | null;
  welcome: { role: string; delayed: boolean; delay_events: number; delay_seconds: number } | null;
  status: Status;
  failure: Error | null;
  stats: ClientStats;
  /** Test hook: lose this many incoming patches. */
  dropPatches: number;
  on(kind: "view", listener: (view: MatchState, seq: number, reason: "welcome" | "resync" | "patch") => void): () => void;
  on(kind: "status", listener: (status: Status) => void): () => void;
  on(kind: "message", listener: (message: ServerMessage) => void): () => void;
  /** Resolves when the view is current; while a reconnect waits for its delay, waits for it (no second socket). */
  connect(): Promise<void>;
  close(): void;
  dropConnection(): void;
  /** A second call with the actionId of an action still waiting returns the same promise. */
  act(action: Action, options?: ActOptions): Promise<ActResult>;
  waitUntil(predicate: () => boolean, timeout?: number): Promise<void>;
  waitSeq(seq: number, timeout?: number): Promise<void>;
}

export declare class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
}

export interface CreatedMatch {
  match_id: string;
  tokens: { a: string; b: string };
  spectator_token: string | null;
  spectator_url: string;
  live_url: string;
}

export interface StateAt {
  seq: number;
  hash: string;
  game_hash: string;
  view: MatchState;
}

export interface LogPage {
  from: number;
  total: number;
  entries: MatchState["log"];
}

export interface WeaponFacts {
  weapon: string;
  target: string;
  distance: number | null;
  range: number;
  in_range: boolean;
  in_arc: boolean;
  visible: boolean;
  facing: "front" | "side" | "rear" | null;
  armour: number | null;
  hidden_share: number | null;
  obscured: boolean | null;
  /** Every armour facing the shot may strike (two: the vehicle's owner chooses, hh3). */
  facings: ("front" | "side" | "rear")[];
}

export interface Facts {
  action: string;
  unit: string | null;
  distance: number | null;
  allowance: number | null;
  speed_band: string | null;
  target_distance: number | null;
  weapons: WeaponFacts[];
  /** A disembark's legal area: polygons where the first model's centre may go. */
  area: [number, number][][];
  /** A 40k7 Tank Shock or Ram stopping short of its end point without a die: the Tank's centre
   * where it stops, the inches it travels and what it stops 1" short of (null otherwise). */
  stops_at: [number, number] | null;
  stops_after: number | null;
  stops_because: string | null;
}

export interface CheckResult {
  ok: boolean;
  at: number;
  seq: number | null;
  duplicate: boolean;
  rejected: { code: string; rule: string; message: string; values: Rejected["values"] } | null;
  facts: Facts;
}

export interface RulerReading {
  edition: string;
  seq: number;
  from_model: string;
  to_model: string;
  distance: number;
}

export interface Sight extends RulerReading {
  visible: boolean;
  origin: [number, number];
  facing: "front" | "side" | "rear" | null;
  armour: number | null;
  hidden_share: number | null;
  obscured: boolean | null;
  facings: ("front" | "side" | "rear")[];
}

export declare function createMatch(base: string, request: CreateMatch): Promise<CreatedMatch>;
export declare function getState(base: string, matchId: string, options?: { at?: number | null; token?: string | null }): Promise<StateAt>;
export declare function getLog(base: string, matchId: string, options?: { from?: number; limit?: number; token?: string | null }): Promise<LogPage>;
export declare function checkAction(base: string, matchId: string, token: string, action: Action, options?: { actionId?: string | null; expect?: number | null }): Promise<CheckResult>;
export declare function ruler(base: string, matchId: string, fromModel: string, toModel: string, options?: { at?: number | null; token?: string | null }): Promise<RulerReading>;
export declare function sight(base: string, matchId: string, fromModel: string, toModel: string, options?: { weapon?: string | null; at?: number | null; token?: string | null }): Promise<Sight>;

/** A probability and its standard error (0 when the answer is exact). */
export interface Prob {
  p: number;
  se: number;
}

export interface UnitOdds {
  unit: string;
  name: string;
  side: "a" | "b";
  measure: "hp" | "wounds";
  start: number;
  no_effect: Prob;
  destroyed: Prob;
  expected_lost: number;
  expected_lost_se: number;
  /** Final Hull Point / wound count -> probability (a destroyed unit counts 0). */
  final: { [count: string]: Prob };
  summary: string;
  glancing?: Prob;
  penetrating?: Prob;
  damage_results?: { [result: string]: Prob };
  statuses?: { [status: string]: Prob };
  /** A charge's success, on the charging unit. */
  reaches?: Prob;
}

/** A decision the action may raise, before its dice or in their middle (docs/decisions.md). */
export interface DecisionOdds {
  kind: string;
  /** Whose decision it is. */
  side: "a" | "b";
  /** The edition's rule that asks it. */
  rule: string;
  /** The chance the action raises it at least once. */
  raised: Prob;
  /** Every option offered in the plays. */
  options: string[];
  /** Option -> the chance it is chosen at least once. */
  chosen: { [option: string]: Prob };
  /** How it was answered: the owner's best answer, a fixed choice, the first option (nested too deep), or the server's proposal (a decision in the middle of the action). */
  policy: "best_answer" | "choice" | "first_option" | "proposal";
  prompt: string;
}

/** The answer of POST /matches/{id}/odds (SPEC.md section 9). */
export interface OddsAnswer {
  edition: string;
  seq: number;
  by: "a" | "b";
  action: Action;
  method: "exact" | "sampled";
  plays: number;
  samples: number;
  policy: string;
  policy_note: string;
  choices: { [kind: string]: string };
  units: UnitOdds[];
  decisions: DecisionOdds[];
  /** One line per unit, ready to show. */
  summary: string[];
  still_pending: Prob;
}

export interface OddsOptions {
  /** auto (default): exact when the tree of dice is small enough, else sampled. */
  method?: "auto" | "exact" | "sampled" | null;
  samples?: number | null;
  maxPlays?: number | null;
  /** Decision kind -> option, instead of the default policy (e.g. { jink: "no" }). */
  choices?: { [kind: string]: string } | null;
}

/** Rejects with HttpError (422, body {error: {code, rule, message, values}}) for an illegal action. */
export declare function odds(base: string, matchId: string, token: string, action: Action, options?: OddsOptions): Promise<OddsAnswer>;
