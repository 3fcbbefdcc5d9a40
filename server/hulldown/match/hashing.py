"""The canonical state hash, computed in O(change) (docs/architecture.md, "State hash"). Pure.

Every event the server appends carries a state hash (``Event.state_hash``); ``hulldown verify``
refolds the log and compares. Three formats exist:

- **h1** (events written before the ``h2`` format; 64 hex digits, no prefix): sha256 over the
  canonical JSON of the whole state after the event. ``legacy_state_hash``; still verified.
- **h2** (``"h2:"`` + 64 hex digits): a hash tree over the sub-trees of the state after the
  event - what events carried before ``h3``, what the creation event carries, and the ``hash`` of
  ``GET /state``.
- **h3** (every new event but the creation; ``"h3:"`` + the same 64 hex digits): the h2 digest of
  the state *before* the event, the state it was folded onto (``base_hash``). An event is then
  appended without waiting for the hash of the state it makes, which the next event carries.

Canonical JSON is msgspec's JSON encoding with the keys of every object sorted (the encoding of
h1). With ``D(x) = sha256(canonical JSON of x)`` and ``hex`` its lowercase hex digits, h2 is
``"h2:" + hex D(record)``, where ``record`` is the state's JSON object with four members replaced:

- ``units``: ``hex D({unit id: hex D(unit)})``;
- ``terrain``: ``hex D({terrain id: hex D(piece)})``;
- ``log``: ``hex sha256(D(line 1) + D(line 2) + ... )``, the 32-byte digests of the lines of the
  log window concatenated in window order (an empty window: ``hex sha256(b"")``);
- ``mission``: ``null`` without a mission, else ``hex D(mission state)`` with the mission state's
  ``mission`` member (the definition) replaced by ``hex D(definition)``.

Why it is cheap: states are immutable and the reducer shares every unchanged sub-tree between
consecutive states (match/state.py). Each digest is kept in a bounded cache keyed by the
*identity* of the object it hashes (the cache holds the object, so its id cannot be reused while
the entry lives), so hashing the next state re-encodes only the units, log lines and maps that
are new objects; an object seen for the first time (a decoded snapshot, a restored undo target)
is simply hashed from scratch. The result never depends on the cache: ``state_hash_uncached``
computes the same value with no cache at all (tests/match/test_hashing.py checks both agree
after random playthroughs of every edition).
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from ..missions.model import Mission
from .identity_cache import IdentityCache
from .mission_state import MissionState
from .state import LogEntry, MatchState, Terrain, Unit

H2_PREFIX = "h2:"
H3_PREFIX = "h3:"
# Entries per generation of each identity cache (match/identity_cache.py). Each entry keeps its
# object alive, so the sizes bound memory as well as misses: the hash reuses what the state just
# before it had (its units, its log window's lines), so a live match needs about its unit count
# plus one log window. A miss only costs the digest of that sub-tree again. States are kept few:
# a state holds its whole log window, and only a state hashed twice in a row hits.
UNIT_CACHE_SIZE = 1024
LINE_CACHE_SIZE = 256
MAP_CACHE_SIZE = 64
STATE_CACHE_SIZE = 8
# A log window is continued from the window hashed before it when that one ended with one of
# its last WINDOW_LOOKBACK lines (an event writes a few lines).
WINDOW_LOOKBACK = 16
DIGEST_BYTES = 32

_canonical = msgspec.json.Encoder(order="sorted")
_EMPTY_LOG = hashlib.sha256(b"").hexdigest()

_units: IdentityCache[Unit, str] = IdentityCache(UNIT_CACHE_SIZE)
_lines: IdentityCache[LogEntry, bytes] = IdentityCache(LINE_CACHE_SIZE)
_maps: IdentityCache[object, str] = IdentityCache(MAP_CACHE_SIZE)
_states: IdentityCache[MatchState, str] = IdentityCache(STATE_CACHE_SIZE)
_windows: IdentityCache[LogEntry, tuple[tuple[LogEntry, ...], bytes]] = IdentityCache(MAP_CACHE_SIZE)


def _digest(value: object) -> str:
    return hashlib.sha256(_canonical.encode(value)).hexdigest()


# ---- the sub-tree digests, with and without the caches ---------------------------------------


def _unit(unit: Unit, cached: bool) -> str:
    found = _units.get(unit) if cached else None
    if found is None:
        found = _digest(unit)
        if cached:
            _units.put(unit, found)
    return found


def _line(entry: LogEntry, cached: bool) -> bytes:
    found = _lines.get(entry) if cached else None
    if found is None:
        found = hashlib.sha256(_canonical.encode(entry)).digest()
        if cached:
            _lines.put(entry, found)
    return found


def units_digest(units: dict[str, Unit], cached: bool = True) -> str:
    found = _maps.get(units) if cached else None
    if found is None:
        if cached:
            known = _units.get
            digests = {}
            for uid, u in units.items():
                unit_digest = known(u)
                digests[uid] = unit_digest if unit_digest is not None else _unit(u, True)
        else:
            digests = {uid: _unit(u, False) for uid, u in units.items()}
        found = _digest(digests)
        if cached:
            _maps.put(units, found)
    return found


def terrain_digest(terrain: dict[str, Terrain], cached: bool = True) -> str:
    found = _maps.get(terrain) if cached else None
    if found is None:
        found = _digest({tid: _digest(piece) for tid, piece in terrain.items()})
        if cached:
            _maps.put(terrain, found)
    return found


def log_digest(log: tuple[LogEntry, ...], cached: bool = True) -> str:
    if not log:
        return _EMPTY_LOG
    found = _maps.get(log) if cached else None
    if found is None:
        found = hashlib.sha256(_window_lines(log) if cached else _lines_of(log, False)).hexdigest()
        if cached:
            _maps.put(log, found)
    return found


def _lines_of(log: tuple[LogEntry, ...], cached: bool) -> bytes:
    return b"".join([_line(e, cached) for e in log])


def _window_lines(log: tuple[LogEntry, ...]) -> bytes:
    """The concatenated line digests of a log window, from an earlier window's when this one
    continues it: the window slides (lines leave at the front, new ones come at the end), so
    the window hashed before ends with one of this window's last few lines, and only the lines
    after that one are new. Each window's digests are kept under its last line."""
    lines: bytes | None = None
    for k in range(len(log) - 1, max(-1, len(log) - 1 - WINDOW_LOOKBACK), -1):
        earlier = _windows.get(log[k])
        if earlier is None:
            continue
        before, digests = earlier
        shared = k + 1  # log[:shared] must be the end of ``before``
        if len(before) >= shared and before[len(before) - shared :] == log[:shared]:
            lines = digests[len(digests) - DIGEST_BYTES * shared :] + _lines_of(log[shared:], True)
        break
    if lines is None:
        lines = _lines_of(log, True)
    _windows.put(log[-1], (log, lines))
    return lines


def _definition(mission: Mission, cached: bool) -> str:
    found = _maps.get(mission) if cached else None
    if found is None:
        found = _digest(mission)
        if cached:
            _maps.put(mission, found)
    return found


def mission_digest(mission: MissionState | None, cached: bool = True) -> str | None:
    if mission is None:
        return None
    found = _maps.get(mission) if cached else None
    if found is None:
        record: dict[str, Any] = msgspec.structs.asdict(mission)
        record["mission"] = _definition(mission.mission, cached)
        found = _digest(record)
        if cached:
            _maps.put(mission, found)
    return found


def _h2(state: MatchState, cached: bool) -> str:
    record: dict[str, Any] = msgspec.structs.asdict(state)
    record["units"] = units_digest(state.units, cached)
    record["terrain"] = terrain_digest(state.terrain, cached)
    record["log"] = log_digest(state.log, cached)
    record["mission"] = mission_digest(state.mission, cached)
    return H2_PREFIX + _digest(record)


# ---- the hashes ------------------------------------------------------------------------------


def state_hash(state: MatchState) -> str:
    """The h2 hash of ``state`` (the format every new event carries), reusing the digests of
    every sub-tree it shares with states hashed before."""
    found = _states.get(state)
    if found is None:
        found = _states.put(state, _h2(state, True))
    return found


def state_hash_uncached(state: MatchState) -> str:
    """The h2 hash computed from scratch, touching no cache: the definition, executable."""
    return _h2(state, False)


def base_hash(state: MatchState) -> str:
    """The h3 hash an event carries: the h2 digest of the state the event was folded onto (the
    state before it), prefixed ``h3:`` - so an event is appended without waiting for the hash
    of the state it makes, which the next event carries."""
    return H3_PREFIX + state_hash(state)[len(H2_PREFIX) :]


def hashes_state_before(logged: str) -> bool:
    """Does an event's logged hash (h3) hash the state before it, not the state after it?"""
    return logged.startswith(H3_PREFIX)


def legacy_state_hash(state: MatchState) -> str:
    """The h1 hash of events written before h2: sha256 of the whole state's canonical JSON."""
    return _digest(state)


def hash_format(logged: str) -> str:
    """``h3``, ``h2`` or ``h1`` (64 hex digits, no prefix); ``unknown`` for anything else."""
    if logged.startswith(H3_PREFIX):
        return "h3"
    if logged.startswith(H2_PREFIX):
        return "h2"
    if len(logged) == 64 and all(c in "0123456789abcdef" for c in logged):
        return "h1"
    return "unknown"


def matches_logged(state: MatchState, logged: str) -> bool:
    """Does ``state`` have the hash an event logged, in whichever format it was logged? For h3
    (``hashes_state_before``) ``state`` is the state before the event, else the state after it."""
    kind = hash_format(logged)
    if kind == "h3":
        return base_hash(state) == logged
    if kind == "h2":
        return state_hash(state) == logged
    if kind == "h1":
        return legacy_state_hash(state) == logged
    return False


def clear_caches() -> None:
    """Forget every cached digest (tests; hashes are the same afterwards, only slower once)."""
    for cache in (_units, _lines, _maps, _states, _windows):
        cache.clear()
