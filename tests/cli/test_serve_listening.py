"""``hulldown serve`` says where it listens once it does (docs/operations.md): the port it bound,
and nothing of the kind when the port is taken (it said "listening" before the bind failed)."""

from __future__ import annotations

import socket
from pathlib import Path

from ..server_process import ServerProcess
from .helpers import run_cli


def test_a_taken_port_is_never_announced(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "--port", str(port), "--data-dir", str(tmp_path / "data"))
    assert result.returncode != 0
    assert "address already in use" in result.stderr.lower()
    assert "hulldown listening on" not in result.stderr


def test_the_bound_port_is_announced(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(data_dir=tmp_path / "data", log=log, log_level="info")
    server.start()
    server.stop()
    assert f"hulldown listening on http://127.0.0.1:{server.port}" in log.read_text()
