"""JSON responses encoded by msgspec (fast, and the same encoding as the wire)."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response

from ..match.rejection import Rejection

_encoder = msgspec.json.Encoder()


class MsgspecJSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return _encoder.encode(content)


def error(status: int, code: str, message: str, **extra: Any) -> MsgspecJSON:
    return MsgspecJSON({"error": {"code": code, "message": message, **extra}}, status_code=status)


def rejection(status: int, rej: Rejection) -> MsgspecJSON:
    return MsgspecJSON(
        {"error": {"code": rej.code, "rule": rej.rule, "message": rej.message, "values": rej.values}},
        status_code=status,
    )
