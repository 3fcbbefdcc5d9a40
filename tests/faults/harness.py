"""A server on its own data dir (embedded Redis) that the fault tests can kill, stop and restart."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx

from ..server_process import ServerProcess


def redis_pid(data_dir: Path) -> int:
    return int((data_dir / "redis.pid").read_text().strip())


def signal_redis(data_dir: Path, sig: signal.Signals) -> int:
    pid = redis_pid(data_dir)
    os.kill(pid, sig)
    return pid


def wait_healthy(server: ServerProcess, timeout: float = 20.0) -> float:
    """Seconds until /healthz answers 200 again."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            if httpx.get(f"{server.http}/healthz", timeout=2).status_code == 200:
                return time.monotonic() - start
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise TimeoutError("the server did not become healthy again")


def log_tracebacks(log: Path) -> list[str]:
    text = log.read_text(errors="replace") if log.exists() else ""
    return [line for line in text.splitlines() if "Traceback" in line]
