"""The limit on match creation is one per deployment, not per process (docs/limits-and-outages.md,
"Match creation"): every process on one Redis and key prefix counts a client's ``POST /matches``
in the same Redis key, which expires when the client's one-minute window closes; a refused
request creates nothing; the count failing on an unreachable Redis answers 503, never a 500.
The key itself, its expiry and its name: tests/store/test_create_rate.py."""

from __future__ import annotations

from pathlib import Path

import httpx

from hulldown.store import RedisEventStore
from hulldown.web.app import create_app
from hulldown.web.settings import Settings

from ..server_process import ServerProcess, free_port

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "duel-40k7.json"
RATE = 3
CREATE_WINDOW_MS = 60_000  # a minute (web/create_limit.py)


def _server(redis_url: str, key_prefix: str, log: Path) -> ServerProcess:
    return ServerProcess(
        redis_url=redis_url, prefix=key_prefix, log=log, env={"HULLDOWN_CREATE_RATE": str(RATE)}
    )


async def test_two_processes_on_one_redis_enforce_one_limit_per_client(
    redis_url: str, key_prefix: str, store: RedisEventStore, tmp_path: Path
) -> None:
    """A client alternating between two servers of one deployment gets HULLDOWN_CREATE_RATE
    creations in all, not that many from each: the rest are refused on either server (429
    ``rate_limited`` with Retry-After) and create nothing. Another address has a count of its own.
    Before, each process counted on its own and the client created twice the limit."""
    first = _server(redis_url, key_prefix, tmp_path / "first.log")
    second = _server(redis_url, key_prefix, tmp_path / "second.log")
    first.start()
    try:
        second.start()
        try:
            body = EXAMPLE.read_bytes()
            with httpx.Client(timeout=10) as client:
                answers = [
                    client.post(f"{(first, second)[i % 2].http}/matches", content=body)
                    for i in range(2 * RATE)
                ]
                # uvicorn takes the address from X-Forwarded-For when the peer is trusted
                # (127.0.0.1 by default): a second client behind a proxy.
                other = [
                    client.post(
                        f"{server.http}/matches", content=body, headers={"X-Forwarded-For": "192.0.2.7"}
                    )
                    for server in (second, first)
                ]
        finally:
            second.stop()
    finally:
        first.stop()
    assert [a.status_code for a in answers] == [201] * RATE + [429] * RATE, [a.text for a in answers]
    for refused in answers[RATE:]:
        error = refused.json()["error"]
        assert error["code"] == "rate_limited", error
        assert "docs/limits-and-outages.md" in error["message"]
        assert 1 <= int(refused.headers["Retry-After"]) <= CREATE_WINDOW_MS // 1000
    assert [a.status_code for a in other] == [201, 201], [a.text for a in other]
    # Only the requests taken created a match: the refused ones wrote nothing.
    created = {a.json()["match_id"] for a in answers[:RATE] + other}
    assert set(await store.list_matches(limit=100)) == created


async def test_a_creation_with_redis_unreachable_is_a_503_not_a_500(key_prefix: str) -> None:
    """The count needs Redis: with Redis unreachable ``POST /matches`` answers 503
    ``store_unavailable`` with Retry-After, before reading the body (a definition that could not
    be stored is not checked), never a 500. Before, a bad definition was checked and answered 400
    with no store at all."""
    app = create_app(
        Settings(redis_url=f"redis://127.0.0.1:{free_port()}", key_prefix=key_prefix, create_rate=RATE)
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://hulldown.test") as client:
            answers = [
                await client.post("/matches", content=b"{"),
                await client.post("/matches", content=EXAMPLE.read_bytes()),
            ]
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "store_unavailable"
        assert answer.headers["Retry-After"] == "2"
