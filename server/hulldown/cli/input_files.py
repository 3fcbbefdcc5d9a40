"""Reading the input of the offline tools (``simulate``, ``odds``, ``roster``): a file, or
standard input for ``-``. Whatever cannot be read raises :class:`UnreadableInput` with a one-line
message the tool prints in its usual error form."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..match.limits import MAX_BODY_BYTES

STDIN = "-"


class UnreadableInput(Exception):
    """The input cannot be read, or is not what the tool reads; the message is one line."""


def _label(file: str) -> str:
    return "standard input" if file == STDIN else file


def read_bytes(file: str) -> bytes:
    """The file's bytes (standard input's for ``-``)."""
    try:
        return sys.stdin.buffer.read() if file == STDIN else Path(file).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise UnreadableInput(f"cannot read {_label(file)}: {reason}") from None


def read_text(file: str) -> str:
    """The file as UTF-8 text."""
    return _text_of(read_bytes(file), file)


def _text_of(data: bytes, file: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableInput(
            f"cannot read {_label(file)}: not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x})"
        ) from None


def read_json_object(file: str) -> dict[str, Any]:
    """The file as a JSON object (a simulation file, docs/simulate.md), at most MAX_BODY_BYTES
    long as a match definition sent to the server (docs/match-definition.md, Limits)."""
    data = read_bytes(file)
    if len(data) > MAX_BODY_BYTES:
        raise UnreadableInput(
            f"{_label(file)} is not a simulation file: {len(data)} bytes is over the limit of "
            f"{MAX_BODY_BYTES} (MAX_BODY_BYTES)"
        )
    text = _text_of(data, file)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableInput(f"{_label(file)} is not JSON: {exc}") from None
    except RecursionError:
        raise UnreadableInput(
            f"{_label(file)} is not a simulation file: the JSON is nested too deeply"
        ) from None
    if not isinstance(data, dict):
        raise UnreadableInput(f"{_label(file)} is not a simulation file: expected a JSON object")
    return data
