"""Helpers for the cluster end-to-end tests: acting with a generous wait, polling processes
until they agree."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from ..live.wsclient import RawClient
from ..server_process import ServerProcess

END = {"type": "end_phase"}


def summary(process: ServerProcess, match_id: str) -> dict[str, Any]:
    response = httpx.get(f"{process.http}/matches/{match_id}", timeout=30)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def state(process: ServerProcess, match_id: str) -> dict[str, Any]:
    response = httpx.get(f"{process.http}/matches/{match_id}/state", timeout=30)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def events(process: ServerProcess, match_id: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{process.http}/matches/{match_id}/events", timeout=30)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["events"]
    return found


async def act(
    client: RawClient, action: dict[str, Any], action_id: str, timeout: float = 45.0
) -> dict[str, Any]:
    """Send an action and wait (generously: a failover may be under way) for its ack."""
    seen = len(client.messages)
    await client.send({"type": "act", "action_id": action_id, "action": action})
    return await client.wait_for(
        lambda m: m.get("action_id") == action_id and m["type"] in ("ack", "rejected"),
        timeout=timeout,
        start=seen,
    )


async def converge(processes: list[ServerProcess], match_id: str, seq: int, timeout: float = 60.0) -> str:
    """Poll every process until each reports ``seq`` with one and the same state hash."""
    deadline = time.monotonic() + timeout
    last: list[tuple[int, str]] = []
    while time.monotonic() < deadline:
        last = []
        for process in processes:
            try:
                found = await asyncio.to_thread(state, process, match_id)
            except (httpx.HTTPError, AssertionError):
                break
            last.append((found["seq"], found["hash"]))
        if len(last) == len(processes) and all(s == seq for s, _ in last) and len({h for _, h in last}) == 1:
            return last[0][1]
        await asyncio.sleep(0.1)
    raise AssertionError(f"processes did not converge on seq {seq}: {last}")


def assert_each_acked_action_once(history: list[dict[str, Any]], acked: dict[str, int]) -> None:
    """The stream holds seqs 1..n without a gap, every acknowledged action exactly once at the
    seq its ack named, and no action id twice."""
    seqs = [event["seq"] for event in history]
    assert seqs == list(range(1, len(history) + 1))
    ids = [event["action_id"] for event in history]
    assert len(ids) == len(set(ids)), "an action was appended twice"
    at = {event["action_id"]: event["seq"] for event in history}
    for action_id, seq in acked.items():
        assert at.get(action_id) == seq, (
            f"acknowledged {action_id} (seq {seq}) is not in the stream at that seq"
        )
