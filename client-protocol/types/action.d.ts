/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */

/**
 * A player action: the 'action' of an 'act' message (tagged by 'type').
 */
export type Action =
  | RollOff
  | PlaceMarker
  | Deploy
  | Reserve
  | DeepStrike
  | Move
  | Pivot
  | Shoot
  | Charge
  | Fight
  | Challenge
  | Embark
  | Disembark
  | Abandon
  | Join
  | Leave
  | Manifest
  | EndPhase
  | Decide
  | Undo
  | TakebackRequest
  | TakebackAnswer
  | Concede;
/**
 * A battlefield position in inches: ``[x, y]`` on the wire.
 *
 * @minItems 2
 * @maxItems 2
 */
export type Point = [number, number];

/**
 * Set-up (docs/missions.md): roll off for deployment; the server rolls both dice.
 */
export interface RollOff {
  type: "roll_off";
}
/**
 * Set-up (docs/missions.md): the side placing objective markers puts one at ``at``.
 */
export interface PlaceMarker {
  type: "place_marker";
  at: Point;
}
/**
 * Set-up: place every model of ``unit`` (model id -> position) in the deploying side's zone;
 * ``heading``: the heading of its vehicle hulls. Embarked units come with their transport.
 */
export interface Deploy {
  type: "deploy";
  unit: string;
  positions: {
    [k: string]: Point;
  };
  heading?: number | null;
}
/**
 * Set-up: declare ``unit`` (and whatever it carries) in reserve.
 */
export interface Reserve {
  type: "reserve";
  unit: string;
}
/**
 * 40k7 Deep Strike: a unit arriving from reserve aims its first model at ``at``; it scatters
 * and the others are placed beside it (docs/missions.md).
 */
export interface DeepStrike {
  type: "deep_strike";
  unit: string;
  at: Point;
}
/**
 * Move a unit along waypoints. Every model is moved by the same displacement as the unit's
 * first model, whose centre follows ``path`` (waypoints after its start position);
 * ``heading`` is the final heading of vehicle hulls (degrees, counter-clockwise, 0 = +x).
 * ``positions`` may instead give each model's end position explicitly (model id -> point).
 */
export interface Move {
  type: "move";
  unit: string;
  path?: Point[];
  heading?: number | null;
  kind?:
    "advance" | "battlesmith" | "charge" | "fall_back" | "flat_out" | "normal" | "ram" | "run" | "rush" | "tank_shock";
  positions?: {
    [k: string]: Point;
  };
  target?: string | null;
  advance_roll?: number | null;
  flight?: ("hover" | "zoom") | null;
}
/**
 * Pivot a vehicle about the centre of its hull without moving it.
 */
export interface Pivot {
  type: "pivot";
  unit: string;
  heading: number;
}
/**
 * Fire a unit's weapons. 40k7 requires a single target; hh3 allows split fire.
 */
export interface Shoot {
  type: "shoot";
  unit: string;
  fire: Fire[];
  nonce?: string;
}
/**
 * One weapon firing at one target unit; ``snap`` asks for Snap Shots. ``target_model``: the
 * model of the target unit its hits go to (hh3: a Paragon allocates the hits it inflicts).
 * ``aim``: 40k7 Blast / Template, the point aimed at, given in advance instead of answering the
 * aiming decision (docs/decisions.md): every marker of the weapon is placed with its hole there,
 * or the template points toward it.
 */
export interface Fire {
  weapon: string;
  target: string;
  snap?: boolean;
  target_model?: string | null;
  aim?: Point | null;
}
export interface Charge {
  type: "charge";
  unit: string;
  target: string;
  nonce?: string;
}
/**
 * Make close combat attacks against a unit in base contact / engagement range.
 */
export interface Fight {
  type: "fight";
  unit: string;
  target: string;
  weapon?: string | null;
  nonce?: string;
  target_model?: string | null;
  smash?: boolean;
}
/**
 * hh3 Challenge Sub-Phase: the Paragon model ``model`` of ``unit`` challenges the enemy unit
 * ``target`` it is locked in combat with; the target's owner accepts with one of its Paragon
 * models or declines (decision ``accept_challenge``, docs/decisions.md).
 */
export interface Challenge {
  type: "challenge";
  unit: string;
  model: string;
  target: string;
  nonce?: string;
}
export interface Embark {
  type: "embark";
  unit: string;
  transport: string;
}
/**
 * Place an embarked unit's models (model id -> position) next to its transport.
 */
export interface Disembark {
  type: "disembark";
  unit: string;
  positions: {
    [k: string]: Point;
  };
}
/**
 * 40k7 squadrons: leave an Immobilised member behind as a unit of its own.
 */
export interface Abandon {
  type: "abandon";
  unit: string;
  model: string;
}
/**
 * hh3: the Paragon unit ``unit`` joins the friendly Infantry unit ``target``: its model becomes a
 * Paragon model of that unit, with its own profile (docs/rules-notes.md, hh3 Paragon).
 */
export interface Join {
  type: "join";
  unit: string;
  target: string;
}
/**
 * hh3: the Paragon model ``model`` leaves the unit ``unit`` it joined and becomes a Paragon unit
 * of its own, whose id is the model's id (docs/rules-notes.md, hh3 Paragon).
 */
export interface Leave {
  type: "leave";
  unit: string;
  model: string;
}
/**
 * 40k7 Psychic phase: ``unit`` (a Psyker) tries to manifest the psychic power ``power`` at
 * ``target``, expending ``dice`` Warp Charge points from its side's pool for the Psychic test;
 * ``snap`` asks for Snap Shots with a witchfire power (docs/psychic.md).
 */
export interface Manifest {
  type: "manifest";
  unit: string;
  power: string;
  target: string;
  dice: number;
  snap?: boolean;
  nonce?: string;
}
/**
 * Finish the current phase (the last phase also ends the player turn).
 */
export interface EndPhase {
  type: "end_phase";
  nonce?: string;
}
/**
 * Answer the pending decision ``decision`` with one of its options. ``place``: for a
 * placement decision answered ``place``, the centre of each model placed; ``aim``: for an
 * aiming decision answered ``aim``, the point aimed at (docs/decisions.md).
 */
export interface Decide {
  type: "decide";
  decision: string;
  choice: string;
  nonce?: string;
  place?: {
    [k: string]: Point;
  };
  aim?: Point | null;
}
/**
 * Take back your own last action (free only while it revealed no dice and the opponent has
 * not acted since).
 */
export interface Undo {
  type: "undo";
}
/**
 * Ask the opponent to let the match go back to the state as of ``to_seq``.
 */
export interface TakebackRequest {
  type: "takeback_request";
  to_seq: number;
}
export interface TakebackAnswer {
  type: "takeback_answer";
  grant: boolean;
}
export interface Concede {
  type: "concede";
}
