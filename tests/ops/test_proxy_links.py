"""The links ``POST /matches`` answers with (``play_urls``, ``spectator_url``, ``live_url``) behind
the shipped proxy (``deploy/nginx.conf``, ``docker compose up``): without HULLDOWN_PUBLIC_URL they
are built from the Host header the proxy forwards, so it must be the one the browser sent, port
included. The proxy forwarded ``$host`` - the name without its port - and behind the compose
files' port 8000 every link pointed at port 80 (the /new page opened nothing)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import yaml

from ..server_process import ServerProcess, logging_server

ROOT = Path(__file__).resolve().parents[2]
BROWSER_HOST = "localhost:8000"  # what a browser sends to the proxy of docker-compose.yml
CLIENT_ADDRESS = "203.0.113.9"  # the browser's address, as the proxy sees it


def nginx_value(variable: str, host_header: str) -> str:
    """What nginx puts in ``variable`` for a request whose Host header is ``host_header``
    (nginx's documentation: ``$host`` is the name alone, lowercased, without the port;
    ``$http_host`` is the header as sent)."""
    values = {"$host": host_header.rsplit(":", 1)[0].lower(), "$http_host": host_header}
    assert variable in values, f"deploy/nginx.conf forwards Host as {variable}"
    return values[variable]


def forwarded_host(host_header: str) -> str:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    (variable,) = re.findall(r"proxy_set_header\s+Host\s+(\S+)\s*;", conf)
    return nginx_value(variable, host_header)


def test_links_behind_the_shipped_proxy_keep_the_port_the_browser_used(server: ServerProcess) -> None:
    definition = (ROOT / "examples" / "40k7-skirmish.json").read_bytes()
    created = httpx.post(
        f"{server.http}/matches",
        content=definition,
        headers={"Host": forwarded_host(BROWSER_HOST)},
        timeout=30,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    links = [body["spectator_url"], *body["play_urls"].values()]
    assert all(link.startswith(f"http://{BROWSER_HOST}/matches/") for link in links), links
    assert body["live_url"].startswith(f"ws://{BROWSER_HOST}/matches/"), body["live_url"]


def test_links_follow_the_public_url_when_it_is_set(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    """HULLDOWN_PUBLIC_URL (README, Configuration) wins over the Host header; its websocket link
    is the same address with wss://."""
    server = ServerProcess(
        redis_url=redis_url,
        prefix=key_prefix,
        log=tmp_path / "server.log",
        env={"HULLDOWN_PUBLIC_URL": "https://games.example.org/"},
    )
    server.start()
    try:
        definition = (ROOT / "examples" / "40k7-skirmish.json").read_bytes()
        created = httpx.post(f"{server.http}/matches", content=definition, timeout=30)
    finally:
        server.stop()
    assert created.status_code == 201, created.text
    body = created.json()
    match_id = body["match_id"]
    assert body["spectator_url"] == f"https://games.example.org/matches/{match_id}/view"
    assert body["live_url"] == f"wss://games.example.org/matches/{match_id}/live"


def proxy_headers() -> dict[str, str]:
    """The X-Forwarded-* headers deploy/nginx.conf sets, as nginx fills them in for a browser at
    CLIENT_ADDRESS reaching a proxy that terminated TLS (nginx's documentation:
    ``$proxy_add_x_forwarded_for`` is the request's X-Forwarded-For with ``$remote_addr``
    appended; ``$scheme`` the scheme of the request the proxy received)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    values = {"$proxy_add_x_forwarded_for": CLIENT_ADDRESS, "$scheme": "https"}
    found = dict(re.findall(r"proxy_set_header\s+(X-Forwarded-\S+)\s+(\S+)\s*;", conf))
    assert set(found) == {"X-Forwarded-For", "X-Forwarded-Proto"}, found
    return {name: values[variable] for name, variable in found.items()}


def test_behind_the_shipped_proxy_the_access_log_names_the_client_and_links_keep_its_scheme(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """docs/operations.md, Links and Logs: the compose files' hulldown trusts the proxy's
    X-Forwarded-For and X-Forwarded-Proto (FORWARDED_ALLOW_IPS). Before, the proxy sent neither
    and the compose files trusted no proxy: every access line named the proxy's address, and
    behind TLS every link was http:// and ws://."""
    for name in ("docker-compose.yml", "docker-compose.cluster.yml"):
        environment = yaml.safe_load((ROOT / name).read_text())["services"]["hulldown"]["environment"]
        assert environment["FORWARDED_ALLOW_IPS"] == "*", name
    log = tmp_path / "server.log"
    server = logging_server(
        redis_url, key_prefix, log, env={"FORWARDED_ALLOW_IPS": environment["FORWARDED_ALLOW_IPS"]}
    )
    server.start()
    try:
        definition = (ROOT / "examples" / "40k7-skirmish.json").read_bytes()
        created = httpx.post(
            f"{server.http}/matches",
            content=definition,
            headers={"Host": forwarded_host(BROWSER_HOST), **proxy_headers()},
            timeout=30,
        )
    finally:
        server.stop()
    assert created.status_code == 201, created.text
    body = created.json()
    links = [body["spectator_url"], *body["play_urls"].values()]
    assert all(link.startswith(f"https://{BROWSER_HOST}/matches/") for link in links), links
    assert body["live_url"].startswith(f"wss://{BROWSER_HOST}/matches/"), body["live_url"]
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    access = next(e for e in entries if e["logger"] == "hulldown.access" and e["method"] == "POST")
    assert access["client"].split(":")[0] == CLIENT_ADDRESS, access
