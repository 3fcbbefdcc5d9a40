"""A real ``hulldown serve`` process on a free port, for end-to-end tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """``python -m hulldown.cli serve`` in a subprocess; ``start()`` waits for /healthz."""

    def __init__(
        self,
        *,
        redis_url: str = "",
        data_dir: Path | None = None,
        prefix: str = "hulldown",
        snapshot_every: int = 100,
        log: Path | None = None,
        log_level: str = "warning",
        extra_args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.redis_url = redis_url
        self.data_dir = data_dir
        self.prefix = prefix
        self.snapshot_every = snapshot_every
        self.log = log
        self.log_level = log_level
        self.extra_args = extra_args
        self.env = dict(env or {})
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> None:
        env = dict(os.environ)
        env.pop("REDIS_URL", None)
        if self.redis_url:
            env["REDIS_URL"] = self.redis_url
        env["HULLDOWN_KEY_PREFIX"] = self.prefix
        env["HULLDOWN_SNAPSHOT_EVERY"] = str(self.snapshot_every)
        env.update(self.env)
        args = [
            sys.executable,
            "-m",
            "hulldown.cli",
            "serve",
            "--port",
            str(self.port),
            "--log-level",
            self.log_level,
            *self.extra_args,
        ]
        if self.data_dir is not None:
            args += ["--data-dir", str(self.data_dir)]
        out = open(self.log, "ab") if self.log is not None else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(args, env=env, stdout=out, stderr=out)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"hulldown serve exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.http}/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError("hulldown serve did not become healthy in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs at all."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)


@contextmanager
def server_with_env(
    redis_url: str, prefix: str, log_dir: Path, env: dict[str, str]
) -> Iterator[ServerProcess]:
    """A running ``hulldown serve`` on the test Redis with these settings in its environment."""
    process = ServerProcess(redis_url=redis_url, prefix=prefix, log=log_dir / "server.log", env=env)
    process.start()
    try:
        yield process
    finally:
        process.stop()


def logging_server(
    redis_url: str, prefix: str, log: Path, log_format: str = "json", env: dict[str, str] | None = None
) -> ServerProcess:
    """A server (not started) that writes every line from ``info`` up, in ``log_format``, to ``log``
    (the access log and the actions' lines included: docs/operations.md, Logs)."""
    return ServerProcess(
        redis_url=redis_url,
        prefix=prefix,
        log=log,
        log_level="info",
        extra_args=("--log-format", log_format),
        env=env,
    )
