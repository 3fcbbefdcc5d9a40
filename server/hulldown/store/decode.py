"""Decoding of Redis replies that may be bytes (decode_responses=False) or str."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"expected bytes or str from Redis, got {type(value).__name__}")


def as_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8")
    raise TypeError(f"expected bytes or str from Redis, got {type(value).__name__}")


def as_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("expected an integer from Redis, got bool")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return int(as_str(value))


def seq_of(entry_id: Any) -> int:
    """The seq of a stream entry id ``0-<seq>``."""
    text = as_str(entry_id)
    ms, sep, seq = text.partition("-")
    if not sep or ms != "0":
        raise ValueError(f"stream entry id {text!r} is not of the form 0-<seq>")
    return int(seq)


def field(fields: Any, name: str) -> bytes:
    """One field of a stream entry, whether redis-py gave a dict or a flat list."""
    if isinstance(fields, dict):
        for key, value in fields.items():
            if as_str(key) == name:
                return as_bytes(value)
    elif isinstance(fields, (list, tuple)):
        for i in range(0, len(fields) - 1, 2):
            if as_str(fields[i]) == name:
                return as_bytes(fields[i + 1])
    raise KeyError(f"stream entry has no field {name!r}")


def stream_entries(entries: Any) -> list[tuple[int, bytes]]:
    """``[(id, fields), ...]`` as returned by XRANGE/XREAD -> ``[(seq, payload), ...]``."""
    return [(seq_of(entry_id), field(fields, "e")) for entry_id, fields in entries or ()]


def xread_streams(response: Any) -> Iterator[tuple[str, Any]]:
    """Yield ``(stream key, entries)`` from any XREAD reply shape redis-py may produce.

    RESP2: ``[[key, entries], ...]``; RESP3 / unified: ``{key: entries}``; older RESP3
    parsers: ``{key: [entries]}``.
    """
    if not response:
        return
    items = response.items() if isinstance(response, dict) else response
    for key, entries in items:
        if (
            isinstance(entries, list)
            and len(entries) == 1
            and isinstance(entries[0], list)
            and (not entries[0] or isinstance(entries[0][0], (list, tuple)))
        ):
            entries = entries[0]
        yield as_str(key), entries
