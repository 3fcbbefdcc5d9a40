"""What is wrong with a JSON text that does not decode, as the client is told it.

msgspec names most problems precisely, with a path or a byte offset. One it misnames: a string
holding a high surrogate escape (``\\ud800`` to ``\\udbff``) not followed by a low one is reported
as "Input data was truncated", though nothing is missing; a client looking for a cut-off message
would look in the wrong place. That case is told as what it is.
"""

from __future__ import annotations

import re

import msgspec

TRUNCATED = "Input data was truncated"
# A high surrogate escape with no low surrogate escape right after it (RFC 8259 section 7: a
# character outside the Basic Multilingual Plane is escaped as a surrogate pair).
_LONE_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})")
LONE_SURROGATE = (
    "JSON is malformed: a \\ud800-\\udbff escape must be followed by a \\udc00-\\udfff escape "
    "(a UTF-16 surrogate pair, RFC 8259 section 7)"
)


def json_problem(error: msgspec.DecodeError, text: str | bytes) -> str:
    """The message for ``error``, raised decoding ``text``."""
    problem = str(error)
    if problem == TRUNCATED:
        raw = text if isinstance(text, str) else text.decode("utf-8", "replace")
        if _LONE_HIGH_SURROGATE.search(raw):
            return LONE_SURROGATE
    return problem
