"""The embedded redis-server: persistence, stale servers, orphan protection."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hulldown.store import EmbeddedRedis, RedisEventStore
from hulldown.store.embedded import find_redis_server, socket_path_for


def _binaries() -> list[str]:
    found: dict[str, str] = {}
    for candidate in (find_redis_server(), shutil.which("redis-server")):
        if candidate:
            found.setdefault(os.path.realpath(candidate), candidate)
    return list(found.values())


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state != "Z"


async def _write_history(url: str, n: int) -> None:
    store = RedisEventStore.from_url(url)
    try:
        assert await store.create_match("keep", {"edition": "40k11"})
        for i in range(n):
            assert (await store.append("keep", f"e{i + 1}".encode(), expect=i, action_id=f"a{i}")).ok
        await store.save_snapshot("keep", n, b"state")
    finally:
        await store.aclose()


async def _check_history(url: str, n: int) -> None:
    store = RedisEventStore.from_url(url)
    try:
        assert await store.version("keep") == n
        assert await store.read("keep") == [(i, f"e{i}".encode()) for i in range(1, n + 1)]
        assert await store.get_meta("keep") == {"edition": "40k11"}
        assert await store.list_matches() == ["keep"]
        assert await store.load_snapshot("keep") == (n, b"state")
        assert (await store.append("keep", b"again", expect=0, action_id="a0")).status == "duplicate"
    finally:
        await store.aclose()


@pytest.mark.parametrize("executable", _binaries(), ids=lambda path: path.split("/site-packages/")[-1])
async def test_restart_keeps_everything(tmp_path: Path, executable: str) -> None:
    data = tmp_path / "data"
    with EmbeddedRedis(data, executable=executable) as server:
        assert server.url == f"unix://{data / 'redis.sock'}"
        await _write_history(server.url, 40)
    assert not (data / "redis.sock").exists()
    with EmbeddedRedis(data, executable=executable) as server:
        await _check_history(server.url, 40)


@pytest.mark.filterwarnings("ignore::ResourceWarning")
async def test_stale_server_is_replaced(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = EmbeddedRedis(data)
    first.start()
    stale_pid = first.pid
    assert stale_pid is not None
    await _write_history(first.url, 10)
    del first  # forgotten without stop(), like a crashed earlier run
    gc.collect()
    assert _pid_alive(stale_pid)

    second = EmbeddedRedis(data)
    second.start()
    try:
        assert second.pid != stale_pid
        assert not _pid_alive(stale_pid)
        await _check_history(second.url, 10)
    finally:
        second.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux only")
async def test_server_shuts_down_when_parent_is_killed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from hulldown.store import EmbeddedRedis
        server = EmbeddedRedis(Path({str(data)!r}))
        server.start()
        print(server.pid, flush=True)
        time.sleep(120)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        redis_pid = int(parent.stdout.readline())
        await _write_history(f"unix://{data / 'redis.sock'}", 5)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _pid_alive(redis_pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _pid_alive(redis_pid), "redis-server outlived its SIGKILLed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert "Received SIGTERM" in (data / "redis.log").read_text()
    with EmbeddedRedis(data) as server:
        await _check_history(server.url, 5)


def test_long_data_dir_uses_short_socket_path(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(["a-rather-long-directory-name"] * 5))
    sock = socket_path_for(deep)
    assert len(os.fsencode(sock)) <= 100
    assert sock == socket_path_for(deep)  # stable, so a stale server can be found again
    with EmbeddedRedis(deep) as server:
        assert server.socket_path == sock
        assert server.url == f"unix://{sock}"
        assert (deep / "redis.pid").exists()
    assert not sock.parent.exists()


def test_failed_start_reports_the_log(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="exited with code"):
        EmbeddedRedis(tmp_path / "data", executable="/bin/false").start()
    with pytest.raises(ValueError):
        EmbeddedRedis(tmp_path / "data", appendfsync="sometimes")
