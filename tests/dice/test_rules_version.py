"""Rules versions (match/rules_version.py, docs/architecture.md sections 3 and 8): a match
records the rules version it is created under; a log written before versions were recorded reads
version 0; ``verify`` reports a state hash that does not refold in a match of another version as a
rules change between the two versions, not as an altered log - and, in a match of the server's
version, as a failure, as before."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import httpx
import pytest
from msgspec.structs import replace

from hulldown.cli import verify as verify_module
from hulldown.cli.history import summary
from hulldown.cli.verify import verify_events
from hulldown.match import rules_version
from hulldown.match.events import Event, MatchCreated, decode_event, encode_event
from hulldown.match.hashing import H3_PREFIX, state_hash
from hulldown.match.reducer import initial_state
from hulldown.match.rules_version import CHANGELOG, RULES_VERSION, UNRECORDED, changes_between
from hulldown.store.redis_store import RedisEventStore
from tests.server_process import ServerProcess
from tests.undo.live_helpers import create

from .forge import Forge, write
from .test_verify import finished

MATCH = "verify-test"  # the match id test_verify.finished() builds its log for


def created_under(events: list[Event], version: int) -> list[Event]:
    """The log with its creation event recording ``version``."""
    first = events[0]
    assert isinstance(first.body, MatchCreated)
    return [replace(first, body=replace(first.body, rules_version=version)), *events[1:]]


def rehashed(events: list[Event], k: int) -> list[Event]:
    """What a rules change does to a stored log: ``events[k]`` logged the hash of a state the
    rules of today no longer make (an h3 hash: of the state before it, which the event before it
    made - seq ``k``)."""
    logged = events[k].state_hash
    assert logged.startswith(H3_PREFIX)
    other = H3_PREFIX + hashlib.sha256(logged.encode()).hexdigest()
    return [*events[:k], replace(events[k], state_hash=other), *events[k + 1 :]]


def test_a_match_created_now_records_the_current_rules_version() -> None:
    forge = Forge(MATCH, b"\x01" * 32)
    body = forge.events[0].body
    assert isinstance(body, MatchCreated) and body.rules_version == RULES_VERSION >= 1
    assert 1 in CHANGELOG and CHANGELOG[1][1].startswith("the rules as of 2026-12-07")


def test_a_log_written_before_versions_were_recorded_decodes_as_unrecorded() -> None:
    event = Forge(MATCH, b"\x01" * 32).events[0]
    raw = json.loads(encode_event(event))
    assert raw["body"]["rules_version"] == RULES_VERSION
    del raw["body"]["rules_version"]  # as every creation event stored before versions
    old = decode_event(json.dumps(raw).encode())
    assert isinstance(old.body, MatchCreated) and old.body.rules_version == UNRECORDED == 0


def test_the_version_does_not_change_the_state_hash() -> None:
    """The version is kept in the creation event only: the state it makes, and so every stored
    hash of a match whose rules did not change, is the same whatever version it records."""
    body = Forge(MATCH, b"\x01" * 32).events[0].body
    assert isinstance(body, MatchCreated)
    unrecorded = replace(body, rules_version=UNRECORDED)
    assert state_hash(initial_state(MATCH, body)) == state_hash(initial_state(MATCH, unrecorded))
    assert verify_events(MATCH, created_under(list(finished().events), UNRECORDED)).ok


def test_hashes_changed_by_the_rules_of_an_unrecorded_match_are_a_rules_change_not_tampering() -> None:
    events = rehashed(created_under(list(finished().events), UNRECORDED), 4)
    report = verify_events(MATCH, events)
    assert report.ok and report.failures == [] and report.failures_total == 0
    assert (report.rules_version, report.server_rules_version) == (UNRECORDED, RULES_VERSION)
    changed = report.rules_changed
    assert changed is not None
    assert (changed.seq, changed.played_under, changed.server) == (4, UNRECORDED, RULES_VERSION)
    assert changed.message.startswith(
        f"rules changed between version 0 (before versions were recorded) and version {RULES_VERSION}"
    )
    assert "altered" in changed.message and "not counted as an altered log" in changed.message
    assert changed.changes == changes_between(UNRECORDED, RULES_VERSION)
    assert changed.changes[0] == "version 1 (2026-12-07): " + CHANGELOG[1][1]
    text = "\n".join(summary(report))
    assert "RULES CHANGED (not a failure): rules changed between version 0" in text
    assert "VERIFIED" in text and "FAILED" not in text


def test_a_rules_change_between_two_recorded_versions_names_both_and_the_changelog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server one version ahead of the match: the changelog lines after the match's version."""
    newer = RULES_VERSION + 1
    monkeypatch.setattr(verify_module, "RULES_VERSION", newer)
    monkeypatch.setitem(rules_version.CHANGELOG, newer, ("2027-01-01", "hh3: charges roll 3D6"))
    events = rehashed(list(finished().events), 4)  # created under RULES_VERSION
    report = verify_events(MATCH, events)
    assert report.ok and report.failures == []
    assert (report.rules_version, report.server_rules_version) == (RULES_VERSION, newer)
    assert report.rules_changed is not None
    assert report.rules_changed.message.startswith(
        f"rules changed between version {RULES_VERSION} and version {newer}"
    )
    assert report.rules_changed.changes == [f"version {newer} (2027-01-01): hh3: charges roll 3D6"]


def test_the_same_alteration_in_a_match_of_the_current_version_is_a_failure() -> None:
    events = rehashed(list(finished().events), 4)
    report = verify_events(MATCH, events)
    assert not report.ok and report.rules_changed is None
    assert report.rules_version == RULES_VERSION
    assert [(f.kind, f.seq) for f in report.failures] == [("state", 4)]
    assert "was altered" in report.failures[0].message


def test_dice_failures_stay_failures_whatever_the_version() -> None:
    events = created_under(list(finished().events), UNRECORDED)
    k = next(k for k, e in enumerate(events) if e.rolls)
    rolls = list(events[k].rolls)
    rolls[0] = rolls[0] % 6 + 1
    events[k] = replace(events[k], rolls=tuple(rolls))
    report = verify_events(MATCH, events)
    assert not report.ok and [(f.kind, f.seq) for f in report.failures] == [("roll", events[k].seq)]
    dropped = created_under(list(finished().events), UNRECORDED)
    dropped[k] = replace(dropped[k], rolls=dropped[k].rolls[:-1])
    report = verify_events(MATCH, dropped)
    assert not report.ok
    counted = [f for f in report.failures if f.kind == "dice_count"]
    assert counted and "a rules change can cause this" in counted[0].message


async def test_the_summary_the_dice_route_and_the_cli_show_the_version(
    server: ServerProcess, store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    created = create(server)
    now = httpx.get(f"{server.http}/matches/{created['match_id']}", timeout=10).json()
    assert (now["rules_version"], now["server_rules_version"]) == (RULES_VERSION, RULES_VERSION)

    old = finished()  # its own key prefix: no other test's match of that id
    old.events = rehashed(created_under(old.events, UNRECORDED), 4)
    await write(store, old)
    summary_json = httpx.get(f"{server.http}/matches/{MATCH}", timeout=10).json()
    assert (summary_json["rules_version"], summary_json["server_rules_version"]) == (0, RULES_VERSION)
    report = httpx.get(f"{server.http}/matches/{MATCH}/dice", timeout=10).json()
    assert report["ok"] and report["failures"] == []
    assert report["rules_version"] == 0 and report["rules_changed"]["seq"] == 4
    assert report["rules_changed"]["message"].startswith("rules changed between version 0")
    command = [sys.executable, "-m", "hulldown.cli", "verify", MATCH]
    done = subprocess.run(
        [*command, "--redis-url", redis_url, "--prefix", key_prefix],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "RULES CHANGED (not a failure)" in done.stdout and "VERIFIED" in done.stdout
