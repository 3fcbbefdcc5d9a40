"""Bounds on everything a match definition declares that the rules iterate over or measure.

A definition beyond a bound is refused with the bound's name and value (docs/match-definition.md,
"Limits"). The numbers are generous for real games (a 3,000-point army of the three editions is
well inside every one) and small enough that no single action can keep the rules busy for long.
"""

from __future__ import annotations

from typing import Final

# --- the document ------------------------------------------------------------------------------
FORMAT_VERSION: Final = 1  # the ``format`` of a match definition this server writes and reads
MAX_BODY_BYTES: Final = 1_000_000  # POST /matches, and a file hulldown simulate or odds reads
MAX_ID_LENGTH: Final = 64  # unit, model, weapon and terrain ids
MAX_TEXT_LENGTH: Final = 200  # names, faction, keyword and rule names

# --- counts ------------------------------------------------------------------------------------
MAX_UNITS: Final = 200  # per match, both sides
MAX_MODELS_PER_UNIT: Final = 100
MAX_MODELS: Final = 1_000  # per match
MAX_WEAPONS_PER_UNIT: Final = 200
MAX_KEYWORDS: Final = 64  # per unit, and weapon rules per weapon
MAX_STATUSES: Final = 16
MAX_TERRAIN: Final = 200  # pieces
MAX_TERRAIN_VERTICES: Final = 64  # per piece
MAX_ACCESS_POINTS: Final = 4

# --- numbers -----------------------------------------------------------------------------------
MAX_BATTLEFIELD: Final = 240.0  # inches, each side (a 20-foot table)
MAX_RANGE: Final = 480.0  # inches, a weapon's range
MAX_SHOTS: Final = 100  # per weapon
MAX_DAMAGE: Final = 100  # per unsaved hit
MAX_STRENGTH: Final = 100
MAX_AP: Final = 10  # |AP|
MAX_HULL_INCHES: Final = 48.0  # hull length / width
MAX_BASE_MM: Final = 400.0
MAX_CHARACTERISTIC: Final = 100  # WS, BS, S, T, I, A, Ld, Cool, Intelligence, Sv, Inv, armour values
MAX_WOUNDS: Final = 100  # W and HP
MAX_MOVE: Final = 120.0  # inches, M
MAX_CAPACITY: Final = 100
MAX_BULKY: Final = 100
MAX_HEADING: Final = 3600.0  # degrees either way (any finite heading is normalised by the rules)
MAX_LEVEL: Final = 10  # terrain level
MAX_TURN_LIMIT: Final = 1_000_000  # 0 = no limit; high limits are harmless (every turn needs actions)
MAX_SPECTATOR_DELAY_EVENTS: Final = 100_000
MAX_SPECTATOR_DELAY_SECONDS: Final = 86_400.0
MAX_SWIVEL: Final = 360.0
MAX_MOUNT_OFFSET: Final = 48.0  # inches from the hull centre; also the longest barrel
# 40k11 ``oc:X``, Objective Control of each model: 0 (a datasheet's "-", e.g. aircraft) up to this
# (datasheets reach 12, a Stompa) [decided, docs/rules-notes.md, 40k11 Objective Control].
MAX_OBJECTIVE_CONTROL: Final = 100

# Characters never allowed in ids and names: NUL and the other C0/C1 controls, and the Unicode
# bidirectional controls that make text read differently from what it is (LRE..RLO, LRI..PDI,
# LRM, RLM, ALM).
FORBIDDEN_CHARACTERS: Final = frozenset(
    [chr(c) for c in range(0x00, 0x20)]
    + [chr(0x7F)]
    + [chr(c) for c in range(0x80, 0xA0)]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)
