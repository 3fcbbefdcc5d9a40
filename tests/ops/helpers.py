"""Shared helpers of the operations tests: create matches, play a little, read /metrics."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from prometheus_client.parser import text_string_to_metric_families

from hulldown.match.scenario import CreateMatch
from hulldown.match.state import Options
from tests.scenarios import duel

MOVE = {"type": "move", "unit": "predator-1", "path": [[14.0, 24.0]], "heading": 0.0}
END = {"type": "end_phase"}
CONCEDE = {"type": "concede"}


def private_duel() -> CreateMatch:
    return msgspec.structs.replace(duel(), options=Options(private_spectators=True))


def create(http: str, request: CreateMatch | None = None) -> dict[str, Any]:
    response = httpx.post(f"{http}/matches", content=msgspec.json.encode(request or duel()), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def metric_samples(http: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of GET /metrics: (name, sorted labels) -> value."""
    response = httpx.get(f"{http}/metrics", timeout=10)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def sample(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]
