"""Reading a JSON request body within a size limit, quickly and without a 500.

The size is judged from ``Content-Length`` before anything is read, and again while the body
streams in (a missing or false header cannot make the server buffer more than the limit). JSON
nested deeper than msgspec's recursion limit is a clear error, not a ``RecursionError``; a number
no float can hold is named by its path.
"""

from __future__ import annotations

import logging
import math
from typing import Any, TypeVar

import msgspec
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ..match.problems import Problem, join
from .json_errors import json_problem
from .responses import error

logger = logging.getLogger(__name__)

T = TypeVar("T")


async def read_limited(request: Request, limit: int) -> bytes | Response:
    """The body, or a 413 ``too_large`` answer as soon as it is known to exceed ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        return error(413, "too_large", f"request body of {declared} bytes is over the limit of {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return error(413, "too_large", f"request body is over the limit of {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        # Nobody reads this answer; it keeps a client's hang-up out of the errors (it was a 500
        # with a traceback) and tells the access log what happened.
        logger.debug("%s %s: the client left before its body was complete", request.method, request.url.path)
        return error(400, "bad_request", f"the client closed the connection after {size} bytes of the body")
    return b"".join(chunks)


TOO_DEEP = "the JSON is nested too deeply (a match definition is a few levels deep)"
# msgspec's message for a number no float can hold (``1e999``): well-formed JSON (RFC 8259 sets
# no bound), but its path is told as ``$[...][...]``, naming no key.
OUT_OF_RANGE = "Number out of range"
FINITE = "expected a finite number (a float: at most about 1.8e308)"  # as match/shape_check.py says


def decode_json(body: bytes) -> Any | Response:
    """Untyped JSON, or a 400 ``bad_request`` (not JSON, or a number out of a float's range) /
    422 ``too_deep`` answer."""
    try:
        return msgspec.json.decode(body)
    except RecursionError:
        return error(422, "too_deep", TOO_DEEP)
    except msgspec.DecodeError as exc:
        if str(exc).startswith(OUT_OF_RANGE):
            return _out_of_range(body)
        return error(400, "bad_request", f"not JSON: {json_problem(exc, body)}")


class _TooLarge:
    """A number that decoded to no finite float, as it was written."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _float_or_marked(text: str) -> float | _TooLarge:
    value = float(text)
    return value if math.isfinite(value) else _TooLarge(text)


_marking = msgspec.json.Decoder(float_hook=_float_or_marked)


def _out_of_range(body: bytes) -> Response:
    """The 400 ``bad_request`` for a body holding a number out of a float's range: the path of
    the first one, as a match definition's problems name paths (``scenario.battlefield.width``)."""
    try:
        found = _first_too_large(_marking.decode(body))
    except RecursionError:
        return error(422, "too_deep", TOO_DEEP)
    except msgspec.DecodeError as exc:  # malformed further on as well
        return error(400, "bad_request", f"not JSON: {json_problem(exc, body)}")
    if found is None:  # not a float after all: msgspec's own words
        return error(400, "bad_request", f"{OUT_OF_RANGE}: {FINITE}")
    path, text = found
    problem = Problem(path, f"{FINITE}, got {text[:40]}")
    return error(400, "bad_request", problem.text(), problems=[problem])


def _first_too_large(value: Any) -> tuple[str, str] | None:
    """The path and text of the first marked number in ``value``, in document order."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _TooLarge):
            return path, item.text
        if isinstance(item, dict):
            stack.extend((join(path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((join(path, i), child) for i, child in reversed(list(enumerate(item))))
    return None


def decode_typed(decoder: msgspec.json.Decoder[T], body: bytes) -> T | Response:
    """``body`` decoded strictly by ``decoder``, or a 400 ``bad_request`` (the decoder's message
    names the path) / 422 ``too_deep`` answer."""
    try:
        return decoder.decode(body)
    except RecursionError:
        return error(422, "too_deep", "the JSON is nested too deeply")
    except msgspec.DecodeError as exc:
        return error(400, "bad_request", json_problem(exc, body))
