"""Shared helpers of the command-line tests: run ``hulldown`` in a subprocess, clean settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# Every variable Settings.from_env reads: unset in the settings tests unless a test sets it.
SETTINGS_VARIABLES = (
    "HULLDOWN_HOST",
    "HULLDOWN_PORT",
    "REDIS_URL",
    "HULLDOWN_DATA_DIR",
    "HULLDOWN_SNAPSHOT_EVERY",
    "HULLDOWN_SEND_QUEUE",
    "HULLDOWN_MAX_FRAME",
    "HULLDOWN_RATE",
    "HULLDOWN_KEY_PREFIX",
    "HULLDOWN_APPENDFSYNC",
    "HULLDOWN_PUBLIC_URL",
    "HULLDOWN_WS_DEFLATE",
    "HULLDOWN_EVICT_AFTER",
    "HULLDOWN_MAX_MATCHES",
    "HULLDOWN_LOG_FORMAT",
    "HULLDOWN_EXAMPLES_DIR",
)
RUN_TIMEOUT = 60.0  # seconds: a generous bound for a command that fails at once


def clear_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SETTINGS_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def run_cli(
    *args: str, env: dict[str, str] | None = None, stdin: bytes = b""
) -> subprocess.CompletedProcess[str]:
    """``python -m hulldown.cli ARGS`` with the settings variables unset (then ``env`` added);
    ``stdin`` is what it reads on standard input; stdout and stderr decoded as UTF-8."""
    environment = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    environment.update(env or {})
    result = subprocess.run(
        [sys.executable, "-m", "hulldown.cli", *args],
        capture_output=True,
        input=stdin,
        env=environment,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )


def error_lines(stderr: str) -> list[str]:
    """The non-blank lines a failed command wrote on stderr."""
    return [line for line in stderr.splitlines() if line.strip()]
