"""hulldown as a peer of the benchmark harness: python hulldown_server.py <port> <variant>

What ``hulldown serve`` does, in this process (so /proc/<this pid> is the server the harness
measures): start an embedded Redis (AOF on, ``appendfsync everysec``, unix socket) in a fresh
temporary data directory, then uvicorn with the hulldown app on 127.0.0.1:<port>, configured as
``hulldown.cli.serve.serve`` configures it. Then create one match through ``POST /matches`` (the 40k7
duel of examples/duel-40k7.json with ``turn_limit`` 1,000,000, so the match never ends during a
run) and print ``READY <json>`` on stdout:

    {"match_id", "tokens": {"a", "b"}, "base_seq", "first_side", "aux_pids": {"redis": pid}, ...}

Exits when stdin closes (the driver went away) or after BENCH_SERVER_LIMIT_S (900 s). The
embedded Redis gets SIGTERM from the kernel when this process dies, even by SIGKILL (which is how
bench.js ends its server); data directories left behind by killed runs are removed at the next
start.

Variants: ``default`` - the server's defaults (websocket per-message deflate off), except the
per-connection rate limit (HULLDOWN_RATE), lifted because the benchmark's players act back to back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository (bench/peers/ -> ..)
SCENARIO = ROOT / "examples" / "duel-40k7.json"
DATA_PREFIX = "hulldown-peerbench-"
VARIANTS = ("default",)
HARD_LIMIT_S = float(os.environ.get("BENCH_SERVER_LIMIT_S") or 900)


def log(*args: object) -> None:
    print("hulldown_server:", *args, file=sys.stderr, flush=True)


def remove_stale_data_dirs() -> None:
    """Data dirs of earlier runs whose launcher is gone (named ``<prefix><pid>-...``)."""
    for path in Path(tempfile.gettempdir()).glob(f"{DATA_PREFIX}*"):
        try:
            pid = int(path.name[len(DATA_PREFIX) :].split("-", 1)[0])
        except ValueError:
            continue
        if pid == os.getpid() or Path(f"/proc/{pid}").exists():
            continue
        shutil.rmtree(path, ignore_errors=True)


def watch_stdin(on_close: Callable[[str], None]) -> None:
    def run() -> None:
        with contextlib.suppress(Exception):
            while os.read(sys.stdin.fileno(), 65536):
                pass
        on_close("stdin closed")

    threading.Thread(target=run, name="stdin-watch", daemon=True).start()


def create_match(port: int) -> dict[str, object]:
    body = json.loads(SCENARIO.read_text())
    body.setdefault("options", {})["turn_limit"] = 1_000_000
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/matches",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        created: dict[str, object] = json.loads(response.read())
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/matches/{created['match_id']}", timeout=10) as r:
        summary: dict[str, object] = json.loads(r.read())
    created["summary"] = summary
    return created


def main() -> int:
    port = int(sys.argv[1])
    variant = sys.argv[2] if len(sys.argv) > 2 else "default"
    if variant not in VARIANTS:
        log(f"unknown variant {variant!r}; one of {VARIANTS}")
        return 2
    os.environ.setdefault("HULLDOWN_RATE", "1000000")  # players act back to back
    os.environ.setdefault("HULLDOWN_CREATE_RATE", "0")  # each run creates its matches from one client

    hub_file = os.environ.get("HULLDOWN_BENCH_HUB_FILE")
    if hub_file:  # A/B measurements: another version of hulldown/live/hub.py (e.g. from git)
        import importlib.util

        spec = importlib.util.spec_from_file_location("hulldown.live.hub", hub_file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["hulldown.live.hub"] = module
        spec.loader.exec_module(module)
        log(f"using hub from {hub_file}")

    import uvicorn

    from hulldown.store.embedded import EmbeddedRedis
    from hulldown.web.app import create_app
    from hulldown.web.settings import Settings
    from hulldown.web.ws_protocol import FrameWritingProtocol

    trace = os.environ.get("HULLDOWN_BENCH_TRACE")
    if trace:
        sys.path.insert(0, str(Path(__file__).parent))
        import hulldown_trace

        hulldown_trace.install(trace)
    remove_stale_data_dirs()
    data_dir = Path(tempfile.mkdtemp(prefix=f"{DATA_PREFIX}{os.getpid()}-"))
    settings = Settings.from_env(host="127.0.0.1", port=port, data_dir=data_dir, redis_url="")
    embedded = EmbeddedRedis(data_dir, appendfsync=settings.appendfsync)
    embedded.start()  # from the main thread: PDEATHSIG is tied to the starting thread
    settings = dataclasses.replace(settings, redis_url=embedded.url)
    if any(f.name == "private_store" for f in dataclasses.fields(settings)):
        # As `hulldown serve` does on its embedded Redis (an older hulldown, run for an A/B
        # through PYTHONPATH, has no such setting and tails its own stream).
        settings = dataclasses.replace(settings, private_store=True)

    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=os.environ.get("HULLDOWN_BENCH_LOG_LEVEL", "warning"),
        # uvicorn's websockets sans-I/O protocol with the hub's frame outlet (web/ws_protocol.py).
        ws=FrameWritingProtocol,
        ws_max_size=settings.max_frame * 4,
        ws_ping_interval=20.0,
        ws_per_message_deflate=settings.ws_deflate,
        lifespan="on",
        # As `hulldown serve`: uvicorn's "auto" (uvloop, a dependency, where it installs).
        loop=os.environ.get("HULLDOWN_BENCH_LOOP", "auto"),
    )
    server: uvicorn.Server
    request_exit: Callable[[], None]
    try:  # as `hulldown serve`: woken once a second (an older hulldown, run for an A/B, has not it)
        from hulldown.web.quiet_server import QuietServer

        server = quiet = QuietServer(config)
        request_exit = quiet.request_exit
    except ImportError:
        server = uvicorn.Server(config)

        def request_exit() -> None:
            server.should_exit = True

    stopping = threading.Event()

    def stop(reason: str) -> None:
        if not stopping.is_set():
            stopping.set()
            log(f"{reason}; stopping")
            request_exit()

    watch_stdin(stop)
    limit = threading.Timer(HARD_LIMIT_S, stop, args=(f"hard limit of {HARD_LIMIT_S:.0f} s reached",))
    limit.daemon = True
    limit.start()

    def announce() -> None:
        # Runs beside the event loop: wait until uvicorn listens, then create the match over HTTP.
        deadline = time.monotonic() + 30
        while not server.started:
            if stopping.is_set() or time.monotonic() > deadline:
                return
            time.sleep(0.01)
        freeze_startup_heap()
        try:
            created = create_match(port)
        except Exception as exc:
            log(f"creating the match failed: {exc!r}")
            stop("setup failed")
            return
        summary = created["summary"]
        assert isinstance(summary, dict)
        ready = {
            "match_id": created["match_id"],
            "tokens": created["tokens"],
            "live_url": created["live_url"],
            "base_seq": summary.get("seq"),
            "first_side": summary.get("active", "a"),
            "phase": summary.get("phase"),
            "aux_pids": {"redis": embedded.pid},  # bench.js reports its CPU beside the server's
            "ws_deflate": settings.ws_deflate,
        }
        sys.stdout.write(f"READY {json.dumps(ready)}\n")
        sys.stdout.flush()

    try:  # as `hulldown serve` once it listens (an older hulldown, run for an A/B, has not it)
        from hulldown.web.startup_heap import freeze_startup_heap
    except ImportError:

        def freeze_startup_heap() -> int:
            return 0

    threading.Thread(target=announce, name="announce", daemon=True).start()
    try:
        server.run()
    finally:
        embedded.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
