/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */

/**
 * A battlefield position in inches: ``[x, y]`` on the wire.
 *
 * @minItems 2
 * @maxItems 2
 */
export type Point = [number, number];

/**
 * The view: the match state every audience sees ('view' of welcome/resync, GET .../state).
 */
export interface MatchState {
  match_id: string;
  edition: "40k11" | "40k7" | "hh3";
  seq: number;
  turn: number;
  player_turn: number;
  active: "a" | "b";
  phase: string;
  battlefield: Battlefield;
  terrain: {
    [k: string]: Terrain;
  };
  units: {
    [k: string]: Unit;
  };
  pending: Decision | null;
  suspended: Suspended | null;
  log: LogEntry[];
  log_count: number;
  options: Options;
  commitment: string;
  ended: boolean;
  winner: ("a" | "b") | null;
  end_reason: string;
  takeback: {
    [k: string]: string;
  };
  phase_flags: string[];
  line: LineStep | null;
  acted: {
    [k: string]: number;
  };
  last_undo: UndoMark | null;
  seed: string;
  mission: MissionState | null;
  first: "a" | "b";
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
 * A pending choice only one player may answer (docs/decisions.md).
 *
 * ``proposal``: the option the server proposes (a decision taken in the middle of an action,
 * docs/decisions.md; ``auto_decide`` answers with it). ``placement``: what a placement
 * decision asks (its options are ``proposal`` and ``place``). ``aim``: what an aiming
 * decision asks (its options are ``proposal`` and ``aim``).
 */
export interface Decision {
  id: string;
  side: "a" | "b";
  kind: string;
  options: string[];
  prompt: string;
  rule: string;
  context: {
    [k: string]: string;
  };
  proposal: string;
  placement: Placement | null;
  aim: Aim | null;
}
/**
 * What a placement decision asks (docs/decisions.md): the models of ``unit`` to place, for
 * each model the legal area of its base's centre (polygons, each its exterior ring then its
 * holes, to be filled even-odd; the base must also not overlap
 * another model, which the area cannot show), and the server's proposal: a centre for each model
 * it could place (a model the proposal leaves out is a casualty in it). ``limits`` holds the
 * distances the rule sets (e.g. ``contact``, ``enemy_gap``), in inches.
 */
export interface Placement {
  unit: string;
  models: string[];
  area: {
    [k: string]: Point[][][];
  };
  proposal: {
    [k: string]: Point;
  };
  limits: {
    [k: string]: number;
  };
}
/**
 * What an aiming decision asks (docs/decisions.md, 40k7 Weapons, Blast / Template): the
 * firer aims ``weapon`` at the target unit ``target`` before the scatter is rolled.
 *
 * ``shape``: ``blast`` (a marker: ``area`` is where the hole's centre may go) or ``template``
 * (a teardrop whose narrow end is at ``origin``: the answer is a point the template points
 * toward; ``area`` holds the wedges, out to the template's length, of the legal directions,
 * also given as ``directions``: [from, to] in degrees, counter-clockwise from +x). ``area``:
 * polygons, each its exterior ring then its holes, in inches, filled even-odd. ``proposal``:
 * the server's aim (the centre of the target's model nearest the firer). ``limits``: the
 * numbers the rule sets (``radius``, ``range``; ``length``, ``narrow``, ``wide``), in inches.
 */
export interface Aim {
  shape: "blast" | "template";
  weapon: string;
  target: string;
  origin: Point;
  proposal: Point;
  area: Point[][][];
  directions: [number, number][];
  limits: {
    [k: string]: number;
  };
}
/**
 * An action paused on a decision in its middle (docs/decisions.md, match/suspend.py).
 *
 * The state holding it is the state *before* the action, plus the pending decision: ``action``
 * (the action's JSON) by side ``by`` is folded again from it once the decision is answered,
 * with ``faces`` (every die it drew so far, in order: the same dice again) and ``answers``
 * (the answers given so far, in order). ``before`` is the decision the action answered, if
 * it was itself an answer (e.g. a Jink answer whose shooting then destroys a transport).
 */
export interface Suspended {
  action: string;
  by: "a" | "b";
  faces: number[];
  answers: Answer[];
  before: Decision | null;
}
/**
 * A player's answer to a decision taken in the middle of an action: the option chosen and,
 * for a placement, the centre of each model placed; for an aim, the point aimed at
 * (docs/decisions.md).
 */
export interface Answer {
  choice: string;
  place?: {
    [k: string]: Point;
  };
  aim?: Point | null;
}
/**
 * One line of the combat log. ``values`` holds every number the rules used for the line
 * (the facing used and why, the to-hit target, the hidden share, measured distances ...) so a
 * client need not parse ``text``.
 */
export interface LogEntry {
  n: number;
  seq: number;
  text: string;
  rule: string;
  rolls: LogRoll[];
  values: {
    [k: string]: string | number | boolean | (string | number | boolean)[];
  };
}
/**
 * A die roll as the log shows it: which die of the event, face, purpose, target, outcome.
 */
export interface LogRoll {
  i: number;
  value: number;
  purpose: string;
  target: string;
  outcome: string;
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
 * The latest game action on the line of play: what an undo takes back
 * (docs/architecture.md section 9).
 *
 * ``parent`` is the seq of the state the action was applied to (an undo restores it);
 * ``dice`` counts the dice the action revealed (0: its actor may undo it freely).
 */
export interface LineStep {
  seq: number;
  by: "a" | "b";
  action: string;
  dice: number;
  parent: number;
}
/**
 * The latest undo or granted takeback: at ``seq`` the state as of ``to`` was restored, so
 * every action after ``to`` on the line before ``seq`` is an undone branch (still in the log).
 */
export interface UndoMark {
  seq: number;
  to: number;
  by: "a" | "b";
  kind: "takeback" | "undo";
}
/**
 * ``step``: the set-up step (``battle`` once turn 1 has begun); ``zones``: side -> zone id;
 * ``deploying``: the side placing units; ``deployed_first``: the side that deployed first;
 * ``off_table``: unit id -> ``undeployed`` or ``reserve``; ``vp``: side -> victory points;
 * ``control``: marker id -> who holds it; ``values``: marker id -> its current value (hh3
 * Window of Opportunity lowers it); ``destroyed_by``: side -> enemy units it destroyed;
 * ``first_blood``: the side(s) that scored First Blood; ``slew_warlord``: the side(s) that
 * scored Slay the Warlord; ``last_turn``: the last battle turn
 * (the 40k7 random game length extends it); ``over``: the game length has run out.
 * Infiltrate, Scout and Outflank (match/setup_special.py): ``scouts_left``: Scout units still to
 * redeploy or stay; ``scouting``: the Scout unit redeploying now; ``outflanking``: 40k7 units in
 * reserve declared outflanking; ``arrival_edges``: unit -> the table edges it arrives from
 * (``south``, ``north``, ``west``, ``east``); ``no_charge``: unit -> the last player turn in
 * which it may not charge; ``markers_left``: objective markers still to be placed (the side
 * ``deploying`` places the next).
 */
export interface MissionState {
  mission: Mission;
  step:
    | "battle"
    | "deploy"
    | "deploy_order"
    | "infiltrate"
    | "infiltrate_order"
    | "markers"
    | "roll_off"
    | "scout"
    | "scout_order"
    | "seize"
    | "zone_choice";
  zones: {
    [k: string]: string;
  };
  deploying: ("a" | "b") | null;
  deployed_first: ("a" | "b") | null;
  off_table: {
    [k: string]: "arriving" | "reserve" | "undeployed";
  };
  vp: {
    [k: string]: number;
  };
  control: {
    [k: string]: MarkerControl;
  };
  values: {
    [k: string]: number;
  };
  destroyed_by: {
    [k: string]: number;
  };
  first_blood: string[];
  first_strike: string[];
  slew_warlord: string[];
  scouts_left: string[];
  scouting: string | null;
  outflanking: string[];
  arrival_edges: {
    [k: string]: string[];
  };
  no_charge: {
    [k: string]: number;
  };
  markers_left: number;
  last_turn: number;
  over: boolean;
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
 * Who holds a marker now (``None``: nobody) and why, in words; ``value``: what it scores.
 */
export interface MarkerControl {
  holder: ("a" | "b") | null;
  why: string;
  value: number;
}
