"""Settings are checked as they are read (web/settings.py): a value the server cannot use is
refused at start with one line naming the variable, what it must be and what it was, and
``hulldown serve`` exits 2 without starting; the documented 0 = no limit / never still works."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hulldown.cli import main
from hulldown.cli import serve as serve_module
from hulldown.cli.logging_setup import LEVELS, LOG_LEVELS, configure_logging
from hulldown.web.settings import SettingError, Settings

from .helpers import clear_settings, error_lines, run_cli

EXIT_BAD_SETTING = 2

PORT = "0..65535"
AT_LEAST_ONE = "1 or more"
SECONDS = "0 or more (0: never)"
NO_LIMIT = "0 or more (0: no limit)"
PUBLIC_URL = "an http:// or https:// URL with a host"

BAD_VALUES = [
    ("HULLDOWN_PORT", "abc", PORT),
    ("HULLDOWN_PORT", "99999", PORT),
    ("HULLDOWN_PORT", "65536", PORT),
    ("HULLDOWN_PORT", "-1", PORT),
    ("HULLDOWN_SNAPSHOT_EVERY", "0", AT_LEAST_ONE),
    ("HULLDOWN_SNAPSHOT_EVERY", "1e3", AT_LEAST_ONE),
    ("HULLDOWN_SEND_QUEUE", "0", AT_LEAST_ONE),
    ("HULLDOWN_SEND_QUEUE", "-1", AT_LEAST_ONE),
    ("HULLDOWN_MAX_FRAME", "0", "1024 or more"),
    ("HULLDOWN_MAX_FRAME", "1023", "1024 or more"),
    ("HULLDOWN_RATE", "0", AT_LEAST_ONE),
    ("HULLDOWN_RATE", "2.5", AT_LEAST_ONE),
    ("HULLDOWN_EVICT_AFTER", "15m", SECONDS),
    ("HULLDOWN_EVICT_AFTER", "-1", SECONDS),
    ("HULLDOWN_EVICT_AFTER", "nan", SECONDS),
    ("HULLDOWN_EVICT_AFTER", "inf", SECONDS),
    ("HULLDOWN_MAX_MATCHES", "-1", NO_LIMIT),
    ("HULLDOWN_MAX_MATCHES", "ten", NO_LIMIT),
    ("HULLDOWN_CREATE_RATE", "-1", NO_LIMIT),
    ("HULLDOWN_CREATE_RATE", "many", NO_LIMIT),
    ("HULLDOWN_APPENDFSYNC", "bogus", "always, everysec, no"),
    ("HULLDOWN_LOG_FORMAT", "JSON", "text, json"),
    ("HULLDOWN_LOG_FORMAT", "yaml", "text, json"),
    ("HULLDOWN_WS_DEFLATE", "maybe", "1, true, yes, on"),
    # Links were written as given: "games.example.org/matches/..." (no scheme), "ws://.../play".
    ("HULLDOWN_PUBLIC_URL", "games.example.org", PUBLIC_URL),
    ("HULLDOWN_PUBLIC_URL", "ws://games.example.org", PUBLIC_URL),
    ("HULLDOWN_PUBLIC_URL", "HTTPS://games.example.org", PUBLIC_URL),
    ("HULLDOWN_PUBLIC_URL", "https://", PUBLIC_URL),
    ("HULLDOWN_PUBLIC_URL", "https://games.example.org:99999", PUBLIC_URL),
    ("HULLDOWN_PUBLIC_URL", "https://games.example.org/?via=proxy", PUBLIC_URL),
    # uvicorn stopped after start-up with "[Errno -2] Name or service not known", naming nothing.
    ("HULLDOWN_HOST", "bad host", "an address or a name this machine can listen on"),
    ("HULLDOWN_HOST", "256.1.1.1", "an address or a name this machine can listen on"),
    # /examples and /new were left empty without a word.
    ("HULLDOWN_EXAMPLES_DIR", "/no/such/examples", "a directory of match definitions"),
    ("HULLDOWN_EXAMPLES_DIR", "README.md", "a directory of match definitions"),
]

GOOD_VALUES: list[tuple[str, str, str, Any]] = [
    ("HULLDOWN_PORT", "0", "port", 0),
    ("HULLDOWN_PORT", "65535", "port", 65535),
    ("HULLDOWN_PORT", "", "port", 8000),  # empty is unset: the default
    ("HULLDOWN_SNAPSHOT_EVERY", "1", "snapshot_every", 1),
    ("HULLDOWN_SEND_QUEUE", "1", "send_queue", 1),
    ("HULLDOWN_MAX_FRAME", "1024", "max_frame", 1024),
    ("HULLDOWN_RATE", " 7 ", "rate", 7),
    ("HULLDOWN_EVICT_AFTER", "0", "evict_after", 0.0),  # 0: never evict (README)
    ("HULLDOWN_EVICT_AFTER", "2.5", "evict_after", 2.5),
    ("HULLDOWN_MAX_MATCHES", "0", "max_matches", 0),  # 0: no limit (README)
    ("HULLDOWN_CREATE_RATE", "0", "create_rate", 0),  # 0: no limit (README)
    ("HULLDOWN_CREATE_RATE", "5", "create_rate", 5),
    ("HULLDOWN_APPENDFSYNC", "no", "appendfsync", "no"),
    ("HULLDOWN_APPENDFSYNC", "always", "appendfsync", "always"),
    ("HULLDOWN_LOG_FORMAT", "json", "log_format", "json"),
    ("HULLDOWN_WS_DEFLATE", "TRUE", "ws_deflate", True),
    ("HULLDOWN_WS_DEFLATE", "on", "ws_deflate", True),
    ("HULLDOWN_WS_DEFLATE", "off", "ws_deflate", False),
    ("HULLDOWN_PUBLIC_URL", "https://games.example.org", "public_url", "https://games.example.org"),
    ("HULLDOWN_PUBLIC_URL", "http://127.0.0.1:8000/", "public_url", "http://127.0.0.1:8000/"),
    ("HULLDOWN_PUBLIC_URL", "https://example.org/hulldown", "public_url", "https://example.org/hulldown"),
]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_settings(monkeypatch)


@pytest.fixture
def serve_never_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A setting that gets through would start a real server: fail the test instead."""

    def started(settings: Settings, log_level: str = "info") -> int:
        raise AssertionError(f"hulldown serve started with {settings}")

    monkeypatch.setattr(serve_module, "serve", started)


@pytest.mark.parametrize(("variable", "value", "allowed"), BAD_VALUES)
def test_a_bad_value_is_refused_naming_the_variable_and_what_it_allows(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, allowed: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingError) as refused:
        Settings.from_env()
    message = str(refused.value)
    assert message.startswith(f"{variable} must be ")
    assert allowed in message and repr(value) in message
    assert "\n" not in message


@pytest.mark.parametrize(("variable", "value", "field", "expected"), GOOD_VALUES)
def test_values_in_range_are_read(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, field: str, expected: Any
) -> None:
    monkeypatch.setenv(variable, value)
    assert getattr(Settings.from_env(), field) == expected


def test_unset_variables_give_the_documented_defaults() -> None:
    assert Settings.from_env() == Settings()


@pytest.mark.parametrize(("variable", "value", "allowed"), BAD_VALUES)
@pytest.mark.usefixtures("serve_never_starts")
def test_serve_with_a_bad_setting_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    allowed: str,
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(["serve"]) == EXIT_BAD_SETTING
    captured = capsys.readouterr()
    (line,) = error_lines(captured.err)
    assert line.startswith(f"hulldown serve: {variable} must be ") and allowed in line
    assert captured.out == ""


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--port", "99999"], ("argument --port", PORT, "'99999'")),
        (["--port", "-1"], ("argument --port", PORT)),
        (["--port", "http"], ("argument --port", PORT, "'http'")),
        (["--snapshot-every", "0"], ("argument --snapshot-every", AT_LEAST_ONE)),
        (["--log-level", "verbose"], ("argument --log-level", "'verbose'", "'warning'", "'debug'")),
        (["--log-format", "JSON"], ("argument --log-format", "'text'", "'json'")),
    ],
)
@pytest.mark.usefixtures("serve_never_starts")
def test_serve_refuses_bad_flags_as_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], names: tuple[str, ...]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", *args])
    assert exited.value.code == EXIT_BAD_SETTING
    last = error_lines(capsys.readouterr().err)[-1]
    assert last.startswith("hulldown serve: error: ")
    assert all(name in last for name in names), last


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        ((), {"HULLDOWN_PORT": "99999"}, "hulldown serve: HULLDOWN_PORT must be a whole number 0..65535"),
        ((), {"HULLDOWN_RATE": "0"}, "hulldown serve: HULLDOWN_RATE must be a whole number 1 or more"),
        (("--port", "99999"), {}, "argument --port: expected a whole number 0..65535, got '99999'"),
    ],
)
def test_the_real_command_exits_2_without_a_traceback(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str], expected: str
) -> None:
    data_dir = tmp_path / "data"
    result = run_cli("serve", "--data-dir", str(data_dir), *args, env=env)
    assert result.returncode == EXIT_BAD_SETTING
    assert "Traceback" not in result.stderr
    assert expected in error_lines(result.stderr)[-1]
    assert not data_dir.exists()  # refused before the embedded Redis was started


def test_an_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/operations.md: "An empty variable counts as unset" - HULLDOWN_HOST empty is the
    loopback default (it listened on every interface), HULLDOWN_DATA_DIR empty the default data
    dir (it was the current directory), HULLDOWN_KEY_PREFIX empty the default prefix (a
    traceback)."""
    for name in (
        "HULLDOWN_HOST",
        "HULLDOWN_DATA_DIR",
        "HULLDOWN_KEY_PREFIX",
        "REDIS_URL",
        "HULLDOWN_PUBLIC_URL",
    ):
        monkeypatch.setenv(name, " ")
    assert Settings.from_env() == Settings()


def _a_file(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "a-file").write_text("not a directory")
    return {"HULLDOWN_DATA_DIR": str(tmp_path / "a-file")}


def _under_a_file(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "a-file").write_text("not a directory")
    return {"HULLDOWN_DATA_DIR": str(tmp_path / "a-file" / "data")}


def _a_link(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    return {"HULLDOWN_DATA_DIR": str(tmp_path / "link")}


STORE_SETTINGS = {
    "data dir is a file": (_a_file, "HULLDOWN_DATA_DIR (or --data-dir) ", "is not a directory"),
    "data dir under a file": (_under_a_file, "HULLDOWN_DATA_DIR (or --data-dir) ", "cannot be made in"),
    "data dir is a link": (_a_link, "HULLDOWN_DATA_DIR (or --data-dir) ", "is a symbolic link"),
    "Redis URL of no known scheme": (
        lambda tmp_path: {"REDIS_URL": "foo://bar"},
        "REDIS_URL (or --redis-url) must start with redis://",
        "got the scheme 'foo'",
    ),
    "key prefix with a blank": (
        lambda tmp_path: {"HULLDOWN_KEY_PREFIX": "a b"},
        "HULLDOWN_KEY_PREFIX must be a word",
        "got 'a b'",
    ),
}


@pytest.mark.parametrize("case", sorted(STORE_SETTINGS))
def test_store_settings_are_checked_before_anything_starts(tmp_path: Path, case: str) -> None:
    """docs/operations.md: every setting is checked before the server starts anything: exit 2,
    one line on stderr, no traceback (each of these was a traceback, exit 1 or 3)."""
    make_env, start, detail = STORE_SETTINGS[case]
    result = run_cli("serve", "--port", "0", env=make_env(tmp_path))
    assert result.returncode == EXIT_BAD_SETTING, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = error_lines(result.stderr)
    assert line.startswith(f"hulldown serve: {start}") and detail in line, line


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.mark.parametrize("level", LOG_LEVELS)
@pytest.mark.usefixtures("restored_logging")
def test_every_log_level_choice_sets_the_root_level(level: str) -> None:
    configure_logging(level, "text")
    assert logging.getLogger().level == LEVELS[level]
