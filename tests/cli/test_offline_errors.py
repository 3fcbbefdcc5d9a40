"""The offline tools on input they cannot use (cli/simulate.py, cli/odds.py, cli/roster.py):
``simulate`` and ``odds`` print their JSON ``{"error": ...}`` and exit 1, ``roster`` one line
``hulldown roster: ...`` on stderr and exits 1; never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hulldown.cli import EXIT_READER_GONE, main
from hulldown.match.limits import MAX_BODY_BYTES

from .helpers import EXAMPLES, error_lines, run_cli

EXIT_ERROR = 1
SIMULATE_EXAMPLE = EXAMPLES / "simulate-40k7-cover.json"
ODDS_EXAMPLE = EXAMPLES / "odds-40k7-lascannon.json"
NESTING = 100_000  # far deeper than the JSON decoder's recursion allows
JSON_TOOLS = ("simulate", "odds")


def missing(tmp_path: Path) -> Path:
    return tmp_path / "no-such-file.json"


def directory(tmp_path: Path) -> Path:
    return tmp_path


def not_utf8(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "caf\xe9"}')
    return path


def json_array(tmp_path: Path) -> Path:
    path = tmp_path / "array.json"
    path.write_text("[1, 2]")
    return path


def nested_too_deeply(tmp_path: Path) -> Path:
    path = tmp_path / "deep.json"
    path.write_text("[" * NESTING + "]" * NESTING)
    return path


def over_the_body_limit(tmp_path: Path) -> Path:
    """A valid simulation file padded past MAX_BODY_BYTES with blanks (it ran: the limit the
    docs state for a simulate file was not applied)."""
    path = tmp_path / "big.json"
    text = SIMULATE_EXAMPLE.read_text()
    path.write_text(text[:-2] + " " * MAX_BODY_BYTES + text[-2:])
    return path


BAD_FILES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "over the body limit": (over_the_body_limit, f"over the limit of {MAX_BODY_BYTES} (MAX_BODY_BYTES)"),
    "missing": (missing, "No such file or directory"),
    "directory": (directory, "Is a directory"),
    "not UTF-8": (not_utf8, "not UTF-8 text (byte 13 is 0xe9)"),
    "JSON array": (json_array, "not a simulation file: expected a JSON object"),
    "nested too deeply": (nested_too_deeply, "not a simulation file: the JSON is nested too deeply"),
}


def json_error(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The JSON answer on stdout (which must be one JSON document with an ``error``)."""
    captured = capsys.readouterr()
    answer: dict[str, Any] = json.loads(captured.out)
    assert "error" in answer and captured.err == ""
    return answer


def odds_file_with_last_action(tmp_path: Path, last: Any) -> Path:
    data = json.loads(ODDS_EXAMPLE.read_text())
    data["actions"][-1] = last
    path = tmp_path / "odds.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("tool", JSON_TOOLS)
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_file_the_tool_cannot_read_is_a_json_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tool: str, case: str
) -> None:
    make, reason = BAD_FILES[case]
    assert main([tool, str(make(tmp_path))]) == EXIT_ERROR
    assert reason in json_error(capsys)["error"]


@pytest.mark.parametrize("tool", JSON_TOOLS)
def test_a_file_that_is_not_json_is_named_with_where_it_breaks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tool: str
) -> None:
    """The error names the file (a script running several tells which one) and the place."""
    path = tmp_path / "broken.json"
    path.write_text('{"edition": "40k7",,}')
    assert main([tool, str(path)]) == EXIT_ERROR
    assert json_error(capsys)["error"] == (
        f"{path} is not JSON: Expecting property name enclosed in double quotes: line 1 column 20 (char 19)"
    )


@pytest.mark.parametrize("dice", ["a,b", "1,7", "0", "6,,x"])
def test_simulate_refuses_dice_that_are_not_d6_faces(capsys: pytest.CaptureFixture[str], dice: str) -> None:
    assert main(["simulate", str(SIMULATE_EXAMPLE), "--dice", dice]) == EXIT_ERROR
    assert json_error(capsys)["error"] == f"--dice takes D6 faces 1-6, comma separated; got {dice!r}"


def test_simulate_still_takes_good_dice_with_blanks_between_commas(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", str(SIMULATE_EXAMPLE), "--dice", "6, 5,,4,3"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["dice_used"] + answer["dice_left"] == 4  # the four faces given, not the file's


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (5, "invalid simulation file: actions[1]: expected an object, got a number"),
        ("shoot", "invalid simulation file: actions[1]: expected an object, got a string"),
        ({"by": "a", "action": "shoot"}, 'action 1: "action" must be an object, got "shoot"'),
        ({"by": "a", "action": [1]}, 'action 1: "action" must be an object, got [1]'),
    ],
)
def test_odds_reads_its_last_action_as_strictly_as_the_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, last: Any, expected: str
) -> None:
    assert main(["odds", str(odds_file_with_last_action(tmp_path, last))]) == EXIT_ERROR
    assert json_error(capsys)["error"] == expected


def test_simulate_names_an_action_whose_body_is_not_an_object(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = json.loads(SIMULATE_EXAMPLE.read_text())
    data["actions"][0] = {"by": "a", "action": "move"}
    path = tmp_path / "simulate.json"
    path.write_text(json.dumps(data))
    assert main(["simulate", str(path)]) == EXIT_ERROR
    answer = json.loads(capsys.readouterr().out)
    assert answer["error"] == 'action 0: "action" must be an object, got "move"'


def test_simulate_refuses_an_actor_that_is_no_side(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """docs/simulate.md: "by" is side "a" or "b" (any other value was taken as side b)."""
    data = json.loads(SIMULATE_EXAMPLE.read_text())
    data["actions"][0]["by"] = "x"
    path = tmp_path / "simulate.json"
    path.write_text(json.dumps(data))
    assert main(["simulate", str(path)]) == EXIT_ERROR
    assert json_error(capsys)["error"] == 'action 0: "by" must be "a" or "b", got "x"'


@pytest.mark.parametrize("case", ["missing", "directory"])
def test_roster_says_which_file_it_cannot_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str
) -> None:
    make, reason = BAD_FILES[case]
    path = make(tmp_path)
    assert main(["roster", str(path), "--edition", "40k7"]) == EXIT_ERROR
    captured = capsys.readouterr()
    assert error_lines(captured.err) == [f"hulldown roster: cannot read {path}: {reason}"]
    assert captured.out == ""


def test_roster_refuses_bytes_that_are_not_a_roster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "binary.ros"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["roster", str(path), "--edition", "40k7"]) == EXIT_ERROR
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith("hulldown roster: ")


@pytest.mark.parametrize("tool", JSON_TOOLS)
def test_standard_input_that_is_not_utf8_is_a_json_error(tool: str, tmp_path: Path) -> None:
    result = run_cli(tool, "-", stdin=b"\xff\xfe{}")
    assert result.returncode == EXIT_ERROR and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["error"].startswith("cannot read standard input: not UTF-8 text")


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    """``hulldown simulate ... | head -3``: once its reader has gone, the command ends with the
    status of a command killed by SIGPIPE (141), with no traceback (it printed BrokenPipeError's)."""
    command = [sys.executable, "-m", "hulldown.cli", "simulate", str(EXAMPLES / "40k7-skirmish.json")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader goes before the command has written anything
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=60) == EXIT_READER_GONE
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
