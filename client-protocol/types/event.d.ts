/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */

/**
 * A battlefield position in inches: ``[x, y]`` on the wire.
 *
 * @minItems 2
 * @maxItems 2
 */
export type Point = [number, number];

/**
 * One entry of a match's event stream, as GET /matches/{id}/events returns it.
 */
export interface Event {
  seq: number;
  at: number;
  by: "a" | "b" | "system";
  action_id: string;
  body:
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
    | Concede
    | MatchCreated
    | SeedRevealed
    | MatchEnded;
  v: number;
  rolls: number[];
  state_hash: string;
}
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
/**
 * The first event of every match: the scenario, the public dice commitment and the rules
 * version the match is created under (docs/architecture.md, 3. Events and state: rules
 * versions; a log written before versions were recorded has none and reads 0).
 */
export interface MatchCreated {
  type: "match_created";
  edition: "40k11" | "40k7" | "hh3";
  battlefield: Battlefield;
  terrain: Terrain[];
  units: Unit[];
  options: Options;
  commitment: string;
  first: "a" | "b";
  mission: Mission | null;
  rules_version: number;
}
export interface Battlefield {
  width: number;
  height: number;
}
/**
 * A terrain piece: a polygon with kinds (difficult, dangerous, impassable, blocks_los, cover).
 */
export interface Terrain {
  id: string;
  points: Point[];
  kinds: string[];
  cover_save: number | null;
  level: number;
  name: string;
}
/**
 * A unit: its fixed profile and its changing condition.
 *
 * ``keywords`` holds vehicle types (40k7: tank, fast, skimmer...), sub-types (hh3) and keywords
 * (40k11: VEHICLE, MONSTER, INFANTRY, FRAME), lower-cased. ``statuses`` maps a status name to the
 * player-turn index at whose end it expires (0: until removed).
 */
export interface Unit {
  id: string;
  side: "a" | "b";
  name: string;
  kind: "infantry" | "monster" | "paragon" | "vehicle" | "walker";
  profile: Profile;
  models: {
    [k: string]: Model;
  };
  weapons: {
    [k: string]: Weapon;
  };
  keywords: string[];
  faction: string;
  squadron: string | null;
  hp: number;
  statuses: {
    [k: string]: number;
  };
  embarked_in: string | null;
  passengers: string[];
  destroyed: boolean;
  wreck: boolean;
  moved: number;
  turn_flags: string[];
}
/**
 * Characteristics. Which ones matter depends on the edition and the unit kind.
 *
 * ``bs``/``ws`` are characteristics (4 = hits on 3+) in 40k7 and hh3, target numbers (3 = 3+)
 * in 40k11. ``sv``/``inv`` are target numbers (3 = 3+).
 */
export interface Profile {
  m: number;
  ws: number;
  bs: number;
  s: number;
  t: number;
  w: number;
  i: number;
  a: number;
  ld: number;
  cool: number;
  intelligence: number;
  sv: number | null;
  inv: number | null;
  armour: Armour | null;
  hp: number;
  capacity: number;
  access: ("front" | "left" | "rear" | "right")[];
}
export interface Armour {
  front: number;
  side: number;
  rear: number;
}
/**
 * One model on the table: a vehicle hull or a model on a round base.
 */
export interface Model {
  id: string;
  pos: Point;
  heading: number;
  hull: HullSize | null;
  base_mm: number | null;
  wounds: number;
  bulky: number;
  alive: boolean;
  profile: Profile | null;
  kind: ("infantry" | "monster" | "paragon" | "vehicle" | "walker") | null;
}
/**
 * A baseless vehicle's hull: an oriented rectangle (length along the heading).
 */
export interface HullSize {
  length: number;
  width: number;
}
/**
 * A weapon profile. ``model`` is the id of the model that carries it. ``defensive``: the
 * profile designates it a Defensive weapon (hh3; otherwise its Strength and mount decide).
 */
export interface Weapon {
  id: string;
  name: string;
  model: string;
  range: number;
  strength: number;
  ap: number | null;
  damage: number;
  shots: number;
  type: "assault" | "heavy" | "melee" | "none" | "ordnance" | "pistol" | "primary" | "rapid_fire" | "salvo";
  rules: string[];
  mount: Mount;
  destroyed: boolean;
  defensive: boolean;
}
/**
 * Where a weapon sits on its model and which way it can fire (40k7 Vehicle Weapons and Line of
 * Sight; hh3 Vehicles, Fire arcs and weapon mounts).
 */
export interface Mount {
  kind: "centreline" | "coaxial" | "hull" | "none" | "pintle" | "sponson" | "turret";
  arc: ("front" | "left" | "rear" | "right" | "side") | null;
  side: ("left" | "right") | null;
  offset: Point;
  swivel: number;
  linked: string | null;
  barrel: number;
}
/**
 * Match options agreed at creation.
 */
export interface Options {
  wrecks_remain: boolean;
  turn_limit: number;
  spectator_delay_events: number;
  spectator_delay_seconds: number;
  private_spectators: boolean;
  auto_decide: boolean;
}
/**
 * One mission: deployment map, markers, first turn, game length and scoring.
 *
 * ``enemy_gap``: a model may not be deployed within this many inches of an enemy model
 * (hh3 Deployment: 2"); ``marker_clearance``: a model may not be deployed within this many
 * inches of a marker's centre (hh3: never on an Objective, a 32 mm marker); ``seize``: the side
 * going second may try to Seize the Initiative (a 6); ``reserves``: units may be declared in
 * reserve; ``flyers_in_reserve``: a Flyer may not be deployed, it starts in reserve;
 * ``warlords``: side -> the id of its Warlord, a unit or one model of a unit (Slay the Warlord);
 * ``placement``: markers the players place before deployment; ``zone_choice``: a roll-off
 * before deployment whose winner chooses the deployment zone (else the side deploying first
 * takes zone A).
 */
export interface Mission {
  id: string;
  name: string;
  edition: string;
  deployment: DeploymentMap;
  objectives?: ObjectiveMarker[];
  first_turn?: "deployed_first" | "roll_off";
  deploy_order?: "alternate" | "whole_army";
  seize?: boolean;
  game_length?: "fixed" | "random_40k7";
  turns?: number;
  enemy_gap?: number;
  marker_clearance?: number;
  reserves?: boolean;
  flyers_in_reserve?: boolean;
  scoring?: Scoring;
  rule?: string;
  custom?: boolean;
  warlords?: {
    [k: string]: string;
  };
  placement?: MarkerPlacement | null;
  zone_choice?: boolean;
}
/**
 * Two deployment zones, ``A`` (taken by the side that deploys first) and ``B``.
 */
export interface DeploymentMap {
  id: string;
  name: string;
  zones: Zone[];
  rule: string;
}
/**
 * A deployment zone: a simple polygon (at least 3 corners).
 */
export interface Zone {
  id: string;
  points: [number, number][];
}
/**
 * A marker at ``pos`` worth ``value`` victory points each time it scores.
 */
export interface ObjectiveMarker {
  id: string;
  /**
   * @minItems 2
   * @maxItems 2
   */
  pos: [number, number];
  value: number;
}
/**
 * How victory points are scored.
 *
 * ``objectives``: when markers score; ``from_turn``: the first battle turn they do;
 * ``max_per_turn``: a cap on marker VP per player turn (0: none); ``window_of_opportunity``:
 * hh3 Take and Hold, a marker loses 1 value each time it scores and is removed at 0;
 * ``kill_points``: VP per enemy unit destroyed, at the end of the game (40k7 Purge the Alien);
 * ``secondaries``: secondary objective -> VP.
 */
export interface Scoring {
  objectives?: "end_of_game" | "end_of_own_turn" | "never";
  from_turn?: number;
  max_per_turn?: number;
  window_of_opportunity?: boolean;
  kill_points?: number;
  secondaries?: {
    [k: string]: number;
  };
}
/**
 * Objective markers the players place in turn before deployment (the winner of a roll-off
 * first): ``count`` of them (plus a D3 when ``extra_d3``: 40k7 Crusade's D3+2), each worth
 * ``value``, at least ``edge_gap`` from every battlefield edge, ``spacing`` from every other
 * marker and ``fixed_gap`` from the mission's own markers; never on impassable terrain.
 */
export interface MarkerPlacement {
  count: number;
  value?: number;
  edge_gap?: number;
  spacing?: number;
  fixed_gap?: number;
  extra_d3?: boolean;
}
/**
 * The match seed, revealed when the match ends so anyone can verify every roll.
 */
export interface SeedRevealed {
  type: "seed_revealed";
  seed: string;
}
export interface MatchEnded {
  type: "match_ended";
  winner: ("a" | "b") | null;
  reason: string;
}
