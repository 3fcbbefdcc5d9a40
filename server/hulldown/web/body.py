"""Reading a JSON request body within a size limit, quickly and without a 500.

The size is judged from ``Content-Length`` before anything is read, and again while the body
streams in (a missing or false header cannot make the server buffer more than the limit). JSON
nested deeper than msgspec's recursion limit is a clear error, not a ``RecursionError``.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

import msgspec
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

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


def decode_json(body: bytes) -> Any | Response:
    """Untyped JSON, or a 400 ``bad_request`` (not JSON) / 422 ``too_deep`` answer."""
    try:
        return msgspec.json.decode(body)
    except RecursionError:
        return error(
            422, "too_deep", "the JSON is nested too deeply (a match definition is a few levels deep)"
        )
    except msgspec.DecodeError as exc:
        return error(400, "bad_request", f"not JSON: {json_problem(exc, body)}")


def decode_typed(decoder: msgspec.json.Decoder[T], body: bytes) -> T | Response:
    """``body`` decoded strictly by ``decoder``, or a 400 ``bad_request`` (the decoder's message
    names the path) / 422 ``too_deep`` answer."""
    try:
        return decoder.decode(body)
    except RecursionError:
        return error(422, "too_deep", "the JSON is nested too deeply")
    except msgspec.DecodeError as exc:
        return error(400, "bad_request", json_problem(exc, body))
