"""GET /openapi.json describes the HTTP routes (client-protocol/SPEC.md section 4): it is the
committed document, every route of the app is in it, and real responses decode strictly as the
documented bodies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import msgspec
from starlette.routing import Mount, Route, WebSocketRoute

from hulldown.web import openapi
from hulldown.web.app import create_app
from hulldown.web.settings import Settings
from tests.scenarios import duel

from ..server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def test_document_is_openapi_31_and_every_reference_resolves() -> None:
    document = openapi.openapi_document()
    assert document["openapi"] == "3.1.0"
    schemas = document["components"]["schemas"]
    refs = _refs(document)
    assert len(refs) > 50
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in schemas, ref


def test_every_route_of_the_app_is_documented() -> None:
    app = create_app(Settings())
    paths = openapi.openapi_document()["paths"]
    seen = 0
    for route in app.routes:
        if isinstance(route, Mount):
            continue
        assert isinstance(route, Route | WebSocketRoute)
        assert route.path in paths, f"{route.path} is not in the OpenAPI document"
        if isinstance(route, Route):
            for method in route.methods or ():
                if method != "HEAD":
                    assert method.lower() in paths[route.path], f"{method} {route.path} undocumented"
        seen += 1
    assert seen >= 9


def _documented_statuses(path: str, method: str) -> set[int]:
    operation = openapi.openapi_document()["paths"][path][method]
    return {int(code) for code in operation["responses"]}


def _check(response: httpx.Response, path: str, method: str, body_type: Any) -> Any:
    assert response.status_code in _documented_statuses(path, method), (path, response.status_code)
    return msgspec.convert(response.json(), body_type, strict=True)


def test_served_document_and_real_responses_match(creating_server: ServerProcess) -> None:
    server = creating_server
    served = httpx.get(f"{server.http}/openapi.json", timeout=10)
    assert served.status_code == 200 and served.headers["content-type"] == "application/json"
    assert served.json() == json.loads((ROOT / "client-protocol" / "openapi.json").read_text())

    http = server.http
    created = _check(
        httpx.post(f"{http}/matches", content=msgspec.json.encode(duel()), timeout=10),
        "/matches",
        "post",
        openapi.CreatedMatch,
    )
    assert set(created.tokens) == {"a", "b"} and created.live_url.endswith(
        f"/matches/{created.match_id}/live"
    )
    mid = created.match_id
    listed = _check(httpx.get(f"{http}/matches", timeout=10), "/matches", "get", openapi.MatchList)
    assert mid in [m.match_id for m in listed.matches]
    summary = _check(
        httpx.get(f"{http}/matches/{mid}", timeout=10), "/matches/{match_id}", "get", openapi.MatchSummary
    )
    assert summary.seq == 1 and summary.edition == "40k7"
    state = _check(
        httpx.get(f"{http}/matches/{mid}/state", params={"at": 1}, timeout=10),
        "/matches/{match_id}/state",
        "get",
        openapi.StateAt,
    )
    assert state.view.units["predator-1"].hp == 3
    events = _check(
        httpx.get(f"{http}/matches/{mid}/events", timeout=10),
        "/matches/{match_id}/events",
        "get",
        openapi.EventPage,
    )
    assert [e.seq for e in events.events] == [1]
    _check(httpx.get(f"{http}/healthz", timeout=10), "/healthz", "get", openapi.Health)

    missing = _check(
        httpx.get(f"{http}/matches/nope/state", timeout=10),
        "/matches/{match_id}/state",
        "get",
        openapi.ErrorResponse,
    )
    assert missing.error.code == "unknown_match"
    bad_seq = _check(
        httpx.get(f"{http}/matches/{mid}/state", params={"at": 9}, timeout=10),
        "/matches/{match_id}/state",
        "get",
        openapi.ErrorResponse,
    )
    assert bad_seq.error.code == "unknown_seq"
    bad_param = _check(
        httpx.get(f"{http}/matches/{mid}/events", params={"from": "x"}, timeout=10),
        "/matches/{match_id}/events",
        "get",
        openapi.ErrorResponse,
    )
    assert bad_param.error.code == "bad_parameter"
    bad_body = _check(
        httpx.post(f"{http}/matches", content=b"{}", timeout=10), "/matches", "post", openapi.ErrorResponse
    )
    assert bad_body.error.code == "bad_request"
    scenario = msgspec.to_builtins(duel())
    scenario["scenario"]["units"][1]["id"] = "predator-1"
    rejected = _check(
        httpx.post(f"{http}/matches", json=scenario, timeout=10), "/matches", "post", openapi.ErrorResponse
    )
    assert (
        rejected.error.code == "bad_scenario"
        and rejected.error.rule == "client-protocol/SPEC.md, 4. HTTP: POST /matches (the scenario)"
    )

    for page in ("/", f"/matches/{mid}/view"):
        html = httpx.get(f"{http}{page}", timeout=10)
        assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
