"""``hulldown verify`` and ``hulldown replay`` when there is nothing to read (cli/history.py):
a store that cannot be read exits 3 with one line on stderr saying which store and why; an
unknown match or an id no match can have exits 2; never a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hulldown.cli import main
from hulldown.store.redis_store import RedisEventStore
from tests.server_process import free_port

from .helpers import clear_settings, error_lines, run_cli

EXIT_NOT_VERIFIABLE = 2
EXIT_STORE_UNREADABLE = 3
COMMANDS = ("verify", "replay")
MATCH = "some-match"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_settings(monkeypatch)


def unreachable_redis(tmp_path: Path) -> list[str]:
    return ["--redis-url", f"redis://127.0.0.1:{free_port()}"]


def unknown_scheme(tmp_path: Path) -> list[str]:
    return ["--redis-url", "bogus://x"]


def data_dir_is_a_file(tmp_path: Path) -> list[str]:
    plain = tmp_path / "plain-file"
    plain.write_text("not a data dir")
    return ["--data-dir", str(plain)]


def no_such_data_dir(tmp_path: Path) -> list[str]:
    return ["--data-dir", str(tmp_path / "nowhere")]


def folder_that_is_no_data_dir(tmp_path: Path) -> list[str]:
    folder = tmp_path / "documents"
    folder.mkdir()
    return ["--data-dir", str(folder)]


UNREADABLE = {
    "unreachable redis": (unreachable_redis, "connecting to 127.0.0.1"),
    "unknown URL scheme": (unknown_scheme, "unsupported Redis URL scheme 'bogus'"),
    "data dir is a file": (data_dir_is_a_file, "not a directory"),
    # docs/operations.md: a --data-dir that is not a usable directory is 3 (it was 2, "unknown")
    "no such data dir": (no_such_data_dir, "no data directory"),
    "a folder no server ran on": (folder_that_is_no_data_dir, "is not a hulldown data dir"),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_that_is_no_data_dir_is_left_as_it_was(tmp_path: Path, command: str) -> None:
    """Pointed at a folder no server ran on, the tools start no Redis there: nothing is written
    into it and its permissions stay (it was closed up to 0700 and filled with Redis' files)."""
    folder = tmp_path / "documents"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    (folder / "notes.txt").write_text("mine")
    assert main([command, MATCH, "--data-dir", str(folder)]) == EXIT_STORE_UNREADABLE
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert folder.stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_variable_counts_as_unset(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """docs/operations.md: an empty HULLDOWN_DATA_DIR is the default data dir, not the current
    directory (the tools started Redis there and wrote its files into it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HULLDOWN_DATA_DIR", "")
    monkeypatch.setenv("HULLDOWN_KEY_PREFIX", "")
    assert main([command, MATCH]) == EXIT_STORE_UNREADABLE
    (line,) = error_lines(capsys.readouterr().err)
    assert "no data directory hulldown-data" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", COMMANDS)
async def test_an_event_that_does_not_decode_is_named_and_exits_1(
    capsys: pytest.CaptureFixture[str], redis_url: str, key_prefix: str, command: str
) -> None:
    """docs/operations.md: a damaged log is a failing event (exit 1, its seq named), not a store
    to retry (it was 3, "cannot read the store")."""
    async with RedisEventStore.from_url(redis_url, prefix=key_prefix) as store:
        await store.create_match(MATCH, {"edition": "40k7"})
        await store.client.xadd(store.keys.events(MATCH), {"e": b'{"seq": 1, "trunc'}, id="0-1")
    assert (
        await asyncio.to_thread(main, [command, MATCH, "--redis-url", redis_url, "--prefix", key_prefix]) == 1
    )
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith(f"hulldown {command}: the event at seq 1 does not decode: ")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_store_that_cannot_be_read_exits_3_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, case: str
) -> None:
    arguments, reason = UNREADABLE[case]
    assert main([command, MATCH, *arguments(tmp_path)]) == EXIT_STORE_UNREADABLE
    captured = capsys.readouterr()
    (line,) = error_lines(captured.err)
    assert line.startswith(f"hulldown {command}: cannot read the store (")
    assert reason in line
    assert captured.out == ""


def test_the_message_does_not_show_the_redis_password(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"redis://user:hunter2@127.0.0.1:{free_port()}"
    assert main(["verify", MATCH, "--redis-url", url]) == EXIT_STORE_UNREADABLE
    (line,) = error_lines(capsys.readouterr().err)
    assert "hunter2" not in line and "redis://user:***@127.0.0.1" in line


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("match_id", ["m{1}", "two words", "x" * 201])
def test_an_id_no_match_can_have_is_an_unknown_match(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, match_id: str
) -> None:
    # Refused before any store is touched: this Redis does not even exist.
    assert main([command, match_id, *unreachable_redis(tmp_path)]) == EXIT_NOT_VERIFIABLE
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith(f"hulldown {command}: no such match: match id ")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_match_still_exits_2(
    capsys: pytest.CaptureFixture[str], redis_url: str, key_prefix: str, command: str
) -> None:
    assert main([command, MATCH, "--redis-url", redis_url, "--prefix", key_prefix]) == EXIT_NOT_VERIFIABLE
    (line,) = error_lines(capsys.readouterr().err)
    assert line == f"hulldown {command}: no match {MATCH!r} under key prefix {key_prefix!r}"


@pytest.mark.parametrize("command", COMMANDS)
def test_the_real_command_prints_no_traceback(command: str) -> None:
    result = run_cli(command, MATCH, "--redis-url", "bogus://x")
    assert result.returncode == EXIT_STORE_UNREADABLE
    assert error_lines(result.stderr) == [
        f"hulldown {command}: cannot read the store (bogus://x): unsupported Redis URL scheme 'bogus': "
        "use redis://, rediss://, unix:// (one Redis) or redis+cluster:// (a Redis Cluster)"
    ]


def test_a_replay_range_that_ends_before_it_starts_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``replay --from 5 --to 2`` printed nothing and exited 0: it is a usage error (2) now,
    said before any store is read."""
    assert main(["replay", MATCH, "--from", "5", "--to", "2", "--redis-url", "bogus://x"]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert line == "hulldown replay: --to 2 is before --from 5: nothing to print"
