"""Dice over the real server (docs/architecture.md sections 8 and 12): the seed appears in no view,
log or error until the match ends; the end reveals it in an event; GET /dice and ``hulldown verify``
re-derive every logged roll, and name the roll, commitment or event that was tampered with."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from msgspec.structs import replace

from hulldown.cli.verify import verify_events
from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase
from hulldown.match.definition import parse_definition, to_document
from hulldown.match.events import MatchEnded, SeedRevealed, decode_event
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.store.redis_store import RedisEventStore
from tests.hh3 import builders as hh3
from tests.live.test_end_to_end import END, MOVE, SHOOT, connect_all
from tests.scenarios import duel
from tests.server_process import ServerProcess
from tests.undo.live_helpers import create

from .forge import Forge, rewrite, write


def verify_cli(redis_url: str, prefix: str, match_id: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "hulldown.cli",
            "verify",
            match_id,
            "--redis-url",
            redis_url,
            "--prefix",
            prefix,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


async def events_of(store: RedisEventStore, match_id: str) -> list[Any]:
    return [decode_event(payload) for _, payload in await store.read(match_id)]


async def test_the_seed_stays_secret_until_the_end_then_is_revealed_and_verifies(
    server: ServerProcess, store: RedisEventStore, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    created = create(server)
    match_id = created["match_id"]
    meta = await store.get_meta(match_id)
    assert meta is not None
    seed = meta["seed"]
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")
    await a.act(END, "e1")
    await a.act(SHOOT, "s1")
    await a.act({"type": "undo"}, "refused")
    await b.act(END, "not-b")
    await a.act({"type": "takeback_request", "to_seq": 99}, "bad-target")

    http = server.http
    texts = [
        httpx.get(f"{http}/matches/{match_id}/state", timeout=10).text,
        httpx.get(f"{http}/matches/{match_id}/state", params={"at": 3}, timeout=10).text,
        httpx.get(f"{http}/matches/{match_id}/events", timeout=10).text,
        httpx.get(f"{http}/matches/{match_id}", timeout=10).text,
        httpx.get(f"{http}/matches", timeout=10).text,
        httpx.get(f"{http}/matches/{match_id}/index", timeout=10).text,
    ]
    early = httpx.get(f"{http}/matches/{match_id}/dice", timeout=10)
    assert early.status_code == 409 and early.json()["error"]["code"] == "seed_not_revealed"
    texts.append(early.text)
    before_end = verify_cli(redis_url, key_prefix, match_id)
    assert before_end.returncode == 2 and "revealed when the match ends" in before_end.stderr
    texts += [before_end.stdout, before_end.stderr]
    for client in (a, b, spectator):
        texts += [str(m) for m in client.messages]
    assert all(seed not in text for text in texts)
    assert any(m.get("type") == "rejected" for m in a.messages)

    assert (await b.act({"type": "concede"}, "gg"))["type"] == "ack"
    for client in (a, b, spectator):
        await client.wait_seq(6)
    events = await events_of(store, match_id)
    assert [type(e.body).__name__ for e in events][-2:] == ["Concede", "SeedRevealed"]
    assert isinstance(events[-1].body, SeedRevealed) and events[-1].body.seed == seed
    assert spectator.view["seed"] == seed and spectator.view["ended"] and spectator.view["winner"] == "a"
    assert seed not in (tmp_path / "server.log").read_text()

    report = httpx.get(f"{http}/matches/{match_id}/dice", timeout=10).json()
    assert report["ok"] and report["failures"] == [] and report["seed"] == seed
    assert report["rolls"] == len(events[3].rolls) > 0
    assert [(d["seq"], d["i"], d["value"] == d["derived"]) for d in report["dice"]] == [
        (4, i, True) for i in range(len(events[3].rolls))
    ]
    done = verify_cli(redis_url, key_prefix, match_id)
    assert done.returncode == 0, done.stderr
    assert "VERIFIED" in done.stdout and seed in done.stdout
    for client in (a, b, spectator):
        await client.close()


async def test_hulldown_verify_names_a_tampered_roll_seed_and_event(
    server: ServerProcess, store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    created = create(server)
    match_id = created["match_id"]
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")
    await a.act(END, "e1")
    await a.act(SHOOT, "s1")
    await a.act({"type": "concede"}, "gg")
    await a.wait_seq(6)
    for client in (a, b, spectator):
        await client.close()
    server.stop()  # tampering happens at rest
    original = await events_of(store, match_id)
    assert verify_cli(redis_url, key_prefix, match_id).returncode == 0

    shot = original[3]
    rolls = list(shot.rolls)
    rolls[0] = rolls[0] % 6 + 1
    await rewrite(store, match_id, [*original[:3], replace(shot, rolls=tuple(rolls)), *original[4:]])
    tampered = verify_cli(redis_url, key_prefix, match_id)
    assert tampered.returncode == 1
    assert (
        f"[roll] event 4 (shoot by a), die 0: logged {rolls[0]}, the seed gives {shot.rolls[0]}"
        in tampered.stdout
    )

    forged_seed = SeedRevealed(seed="00" * 32)
    await rewrite(store, match_id, [*original[:-1], replace(original[-1], body=forged_seed)])
    tampered = verify_cli(redis_url, key_prefix, match_id)
    assert tampered.returncode == 1 and "[commitment]" in tampered.stdout
    assert "is not the committed one" in tampered.stdout

    move = original[1]
    moved_elsewhere = replace(move, body=replace(move.body, heading=90.0))  # type: ignore[type-var]
    await rewrite(store, match_id, [original[0], moved_elsewhere, *original[2:]])
    tampered = verify_cli(redis_url, key_prefix, match_id)
    assert tampered.returncode == 1
    assert "[state] the state after event 2 (move by a) refolds to a different hash" in tampered.stdout


async def test_verify_shows_a_progress_bar_on_long_matches(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    request = duel()
    forge = Forge(
        "long-match",
        b"\x07" * 32,
        CreateMatch(edition="40k7", scenario=request.scenario, options=Options(turn_limit=0)),
    )
    for _ in range(200):
        for side in ("a", "b"):
            for _ in range(3):
                forge.act(side, EndPhase())  # type: ignore[arg-type]
    forge.reveal()
    assert len(forge.events) == 1202
    await write(store, forge)
    result = verify_cli(redis_url, key_prefix, "long-match")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verifying long-match [" in result.stderr
    assert result.stderr.rstrip().endswith("[" + "#" * 30 + "] 1202/1202 events")
    quiet = verify_cli(redis_url, key_prefix, "long-match", "--no-progress")
    assert quiet.returncode == 0 and quiet.stderr == ""


async def test_a_system_match_end_also_reveals_the_seed(redis_url: str, store: RedisEventStore) -> None:
    """``MatchEnded`` appended by the server (e.g. an operator ending a match) reveals the seed
    right after, like a concession or a victory does."""
    live = LiveService(store, redis_url, prefix=store.keys.prefix, snapshot_every=5)
    await live.start()
    try:
        created = await live.create(replace(duel(), options=Options()))
        assert isinstance(created, CreatedMatch)
        runtime = await live.get(created.match_id)
        assert runtime is not None
        ended_at = await runtime.append_system(MatchEnded(winner=None, reason="abandoned"))
        events = await events_of(store, runtime.match_id)
        assert [type(e.body).__name__ for e in events] == ["MatchCreated", "MatchEnded", "SeedRevealed"]
        assert ended_at == 2 and runtime.state.ended and runtime.state.seed == events[-1].body.seed
    finally:
        await live.stop()


async def test_a_match_with_a_standard_mission_verifies_from_its_creation(
    redis_url: str, store: RedisEventStore
) -> None:
    """The state hash logged with the creation is the hash of the state every refold of the log
    makes (verify, replay, a reload): a standard mission's map, written with whole numbers, is
    read back from the stream as the numbers it encodes to."""
    units = (hh3.squad("tac-a", "a", [(10.0, 20.0)]), hh3.squad("tac-b", "b", [(10.0, 30.0)]))
    document = to_document(CreateMatch(edition="hh3", scenario=Scenario(units=units)))
    document["mission"] = {"id": "the_heart_of_battle", "deployment": "dawn_of_war"}
    request = parse_definition(document)
    assert isinstance(request, CreateMatch) and request.mission is not None
    live = LiveService(store, redis_url, prefix=store.keys.prefix, snapshot_every=5)
    await live.start()
    try:
        created = await live.create(request)
        assert isinstance(created, CreatedMatch)
        runtime = await live.get(created.match_id)
        assert runtime is not None
        await runtime.append_system(MatchEnded(winner=None, reason="abandoned"))
        events = await events_of(store, runtime.match_id)
        report = verify_events(runtime.match_id, events)
        assert report.ok, report.failures
    finally:
        await live.stop()
