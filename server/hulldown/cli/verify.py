"""Verify a finished match's dice (docs/architecture.md section 8): commit, derive, reveal,
verify. Pure.

Given the event log of a match whose seed was revealed:

1. The commitment: ``sha256(revealed seed)`` must equal the commitment of the first event.
2. Every logged roll (``Event.rolls``, written by the server as the dice were revealed) is
   re-derived from the seed: ``HMAC-SHA256(seed, f"{match}:{seq}:{i}:{nonce}")`` by rejection
   sampling, independently of the rules code.
3. The whole log is refolded from the seed with the history-aware reducer: each event must draw
   exactly the dice it logged, and the state it logged the hash of must have that hash - so an
   altered action (a different target, a moved unit, a changed nonce) is caught at its seq.
   Every hash format verifies (match/hashing.py), each by its own definition: ``h3:...`` (every
   new event: the state before it, that is the state the event before it made; the seed's
   reveal carries the final state's), ``h2:...`` and the older h1 (64 hex digits), the state
   after it.

Every failure names the event (and die) or the commitment that fails.

Rules versions (match/rules_version.py): the log is refolded with this server's rules code. When
the match was created under another rules version (or before versions were recorded) and a state
hash does not refold, the rules changed in between as much as the log may have been altered: that
divergence is reported as ``rules_changed`` (the two versions and the changelog lines between
them), not as a failure, and ``ok`` stays true when the commitment, every die and the rest of the
log verify - the per-event state hashes of such a match are only informative. In a match of this
server's version a state hash that does not refold is a ``state`` failure. Dice failures are always
failures; so are ``dice_count`` and ``refold``, whose messages then mention the two versions.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from ..match import doc_refs
from ..match.dice_binding import event_nonce
from ..match.events import Event, MatchCreated, SeedRevealed
from ..match.gc_pause import collections_paused
from ..match.hashing import hashes_state_before, matches_logged
from ..match.rules_version import RULES_VERSION, UNRECORDED, changes_between, describe
from ..match.timeline import Timeline
from ..rules.dice import Dice, SeededDice, derive_die

MAX_FAILURES = 100
# An h3 hash on the first event: no rules change explains it.
NO_STATE_BEFORE = "logged the hash of a state before the match was created"

FailureKind = Literal["log", "commitment", "roll", "dice_count", "state", "missing_hash", "refold"]
Progress = Callable[[int, int], None]


class Failure(msgspec.Struct, frozen=True, omit_defaults=True):
    """One thing that does not verify. ``seq``/``i`` locate the event and die."""

    kind: FailureKind
    message: str
    seq: int | None = None
    i: int | None = None
    logged: int | None = None
    derived: int | None = None


class CheckedRoll(msgspec.Struct, frozen=True):
    """A logged die: what the log says, what the seed gives, and what it was for."""

    seq: int
    i: int
    value: int
    derived: int
    purpose: str = ""
    target: str = ""
    outcome: str = ""

    @property
    def ok(self) -> bool:
        return self.value == self.derived


class RulesChanged(msgspec.Struct, frozen=True):
    """A state hash that does not refold in a match created under another rules version than the
    server's: the rules changed in between (``changes``: the changelog lines), so the divergence
    does not show an altered log. ``seq`` is the event whose state first refolds differently."""

    message: str
    seq: int
    played_under: int
    server: int
    changes: list[str]


class Report(msgspec.Struct, frozen=True):
    """The verdict on one match's dice. ``rules_version``: the version the match was created under
    (0: before versions were recorded); ``server_rules_version``: the one this server refolds
    with; ``rules_changed``: a state divergence those two versions explain (not a failure)."""

    match_id: str
    ok: bool
    commitment: str
    seed: str
    revealed_at: int
    events: int
    rolls: int
    failures: list[Failure]
    failures_total: int
    faces: dict[str, int]
    dice: list[CheckedRoll] = []
    rules_version: int = UNRECORDED
    server_rules_version: int = RULES_VERSION
    rules_changed: RulesChanged | None = None


class NotRevealed(Exception):
    """The seed has not been revealed yet (the match is still running)."""


def seed_event(events: Sequence[Event]) -> tuple[int, str] | None:
    """(seq, seed hex) of the seed reveal, if the log has one."""
    for event in events:
        if isinstance(event.body, SeedRevealed):
            return event.seq, event.body.seed
    return None


def verify_events(
    match_id: str,
    events: Sequence[Event],
    *,
    progress: Progress | None = None,
    with_dice: bool = True,
) -> Report:
    """Check the commitment, every logged roll and the refold of the whole log."""
    revealed = seed_event(events)
    if revealed is None:
        raise NotRevealed(f"match {match_id}: the seed is revealed when the match ends")
    revealed_at, seed_hex = revealed
    failures: list[Failure] = []
    first = events[0] if events else None
    commitment = first.body.commitment if first is not None and isinstance(first.body, MatchCreated) else ""
    if not commitment or first is None or first.seq != 1:
        failures.append(Failure("log", "the log does not start with the match's creation at seq 1", seq=1))
    for previous, event in itertools.pairwise(events):
        if event.seq != previous.seq + 1:
            failures.append(
                Failure(
                    "log", f"seq {event.seq} follows seq {previous.seq}: events are missing", seq=event.seq
                )
            )
    seed = _commitment_check(seed_hex, commitment, revealed_at, failures)
    rolls = sum(len(e.rolls) for e in events)
    faces = {str(face): 0 for face in range(1, 7)}
    for event in events:
        for value in event.rolls:
            faces[str(value)] = faces.get(str(value), 0) + 1
    played_under = (
        first.body.rules_version if first is not None and isinstance(first.body, MatchCreated) else UNRECORDED
    )
    checked: list[CheckedRoll] = []
    rules_changed: RulesChanged | None = None
    if seed is not None and not failures:
        checked = _check_rolls(match_id, seed, events, failures)
        refolded: list[Failure] = []
        with collections_paused():  # the whole log folded in a row (match/gc_pause.py)
            _check_refold(match_id, seed, events, refolded, checked, progress)
        rules_changed = _rules_changes(played_under, refolded)
        failures.extend(refolded)
    return Report(
        match_id=match_id,
        ok=not failures,
        commitment=commitment,
        seed=seed_hex,
        revealed_at=revealed_at,
        events=len(events),
        rolls=rolls,
        failures=failures[:MAX_FAILURES],
        failures_total=len(failures),
        faces=faces,
        dice=checked if with_dice else [],
        rules_version=played_under,
        server_rules_version=RULES_VERSION,
        rules_changed=rules_changed,
    )


def _rules_changes(played_under: int, refolded: list[Failure]) -> RulesChanged | None:
    """In a match of another rules version than the server's, take its state divergence out of
    ``refolded`` as a rules change, and say in every other refold failure that the rules differ.
    In a match of the server's version, leave ``refolded`` as it is."""
    if played_under == RULES_VERSION:
        return None
    found: RulesChanged | None = None
    kept: list[Failure] = []
    for failure in refolded:
        if failure.kind == "state" and failure.seq is not None and NO_STATE_BEFORE not in failure.message:
            found = RulesChanged(
                message=(
                    f"rules changed between {describe(played_under)} and {describe(RULES_VERSION)}: "
                    f"the match was created under {describe(played_under)} and this server refolds it "
                    f"with {describe(RULES_VERSION)}; the state after event {failure.seq} refolds to "
                    "a different hash than the one logged, which the rules change explains: not "
                    f"counted as an altered log ({doc_refs.DICE})"
                ),
                seq=failure.seq,
                played_under=played_under,
                server=RULES_VERSION,
                changes=changes_between(played_under, RULES_VERSION),
            )
            continue
        if failure.kind in ("dice_count", "refold"):
            failure = msgspec.structs.replace(
                failure,
                message=f"{failure.message} (the match was created under {describe(played_under)} and "
                f"this server refolds with {describe(RULES_VERSION)}: a rules change can cause this)",
            )
        kept.append(failure)
    refolded[:] = kept
    return found


def _commitment_check(
    seed_hex: str, commitment: str, revealed_at: int, failures: list[Failure]
) -> bytes | None:
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        failures.append(
            Failure("commitment", f"the seed revealed at seq {revealed_at} is not hex", seq=revealed_at)
        )
        return None
    digest = hashlib.sha256(seed).hexdigest()
    if digest != commitment:
        failures.append(
            Failure(
                "commitment",
                f"sha256 of the seed revealed at seq {revealed_at} is {digest}, but the match "
                f"committed to {commitment} at seq 1: the seed is not the committed one",
                seq=revealed_at,
            )
        )
        return None
    return seed


def _check_rolls(
    match_id: str, seed: bytes, events: Sequence[Event], failures: list[Failure]
) -> list[CheckedRoll]:
    """Re-derive every logged die from the seed, independently of the rules."""
    checked: list[CheckedRoll] = []
    for event in events:
        nonce = event_nonce(event)
        for i, value in enumerate(event.rolls):
            derived = derive_die(seed, match_id, event.seq, i, nonce)
            checked.append(CheckedRoll(event.seq, i, value, derived))
            if derived != value:
                failures.append(
                    Failure(
                        "roll",
                        f"event {event.seq} ({_label(event)}), die {i}: logged {value}, "
                        f"the seed gives {derived}",
                        seq=event.seq,
                        i=i,
                        logged=value,
                        derived=derived,
                    )
                )
    return checked


def _check_refold(
    match_id: str,
    seed: bytes,
    events: Sequence[Event],
    failures: list[Failure],
    checked: list[CheckedRoll],
    progress: Progress | None,
) -> None:
    """Refold the log from the seed: the dice each event draws and the state hash after it."""

    def dice_for(event: Event) -> Dice:
        return SeededDice(seed, match_id, event.seq, event_nonce(event))

    timeline = Timeline(match_id, dice_for)
    total = len(events)
    step = max(1, total // 200)
    state_failed = False
    previous: Event | None = None
    for done, event in enumerate(events, start=1):
        before = timeline.state
        try:
            state = timeline.push(event)
        except Exception as exc:  # a tampered event may not even apply
            failures.append(
                Failure(
                    "refold", f"event {event.seq} ({_label(event)}) cannot be applied: {exc!r}", seq=event.seq
                )
            )
            return
        drawn = timeline.drawn.get(event.seq, ())
        if len(drawn) != len(event.rolls):
            failures.append(
                Failure(
                    "dice_count",
                    f"event {event.seq} ({_label(event)}) logged {len(event.rolls)} dice, "
                    f"but refolding it draws {len(drawn)}",
                    seq=event.seq,
                    logged=len(event.rolls),
                    derived=len(drawn),
                )
            )
        if not event.state_hash:
            failures.append(
                Failure(
                    "missing_hash", f"event {event.seq} ({_label(event)}) logged no state hash", seq=event.seq
                )
            )
        elif not state_failed and hashes_state_before(event.state_hash):
            if not matches_logged(before, event.state_hash):
                state_failed = True  # every later state differs too: report the first
                failures.append(_state_failure(previous, event))
        elif not state_failed and not matches_logged(state, event.state_hash):
            state_failed = True
            failures.append(_state_failure(event, event))
        previous = event
        if progress is not None and (done % step == 0 or done == total):
            progress(done, total)
    _annotate(checked, timeline)


def _annotate(checked: list[CheckedRoll], timeline: Timeline) -> None:
    """Give each checked die the purpose, target and outcome the combat log shows for it."""
    where = {(c.seq, c.i): k for k, c in enumerate(checked)}
    for seq, entries in timeline.entries.items():
        for entry in entries:
            for roll in entry.rolls:
                k = where.get((seq, roll.i))
                if k is not None:
                    c = checked[k]
                    checked[k] = CheckedRoll(
                        c.seq, c.i, c.value, c.derived, roll.purpose, roll.target, roll.outcome
                    )


def _state_failure(altered: Event | None, logged_by: Event) -> Failure:
    """The state ``altered`` made refolds to another hash than ``logged_by`` logged for it (the
    same event for h2 and h1 hashes, the next one for h3)."""
    if altered is None:  # an h3 hash on the first event: there is no state before it
        return Failure(
            "state",
            f"event {logged_by.seq} ({_label(logged_by)}) {NO_STATE_BEFORE}",
            seq=logged_by.seq,
        )
    where = "" if altered is logged_by else f", logged by event {logged_by.seq}"
    return Failure(
        "state",
        f"the state after event {altered.seq} ({_label(altered)}) refolds to a different "
        f"hash than the one logged{where}: this event (or its dice) was altered",
        seq=altered.seq,
    )


def _label(event: Event) -> str:
    tag = type(event.body).__struct_config__.tag
    return f"{tag} by {event.by}"
