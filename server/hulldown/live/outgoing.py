"""One outgoing message and its websocket frame, built at most once however many sockets send it.

A server-to-client websocket frame is unmasked (RFC 6455 section 5.1), so the bytes of a text
frame depend only on the text: the hub builds them once per broadcast and every socket of the
audience writes the same bytes object. Sockets that negotiated per-message compression frame (and
compress) the text themselves instead (docs/architecture.md section 6).
"""

from __future__ import annotations

import struct

_FIN_TEXT = 0x81  # FIN bit + opcode 0x1 (text), RFC 6455 section 5.2
_SHORT = 125  # payload lengths up to this fit in the 7-bit length field
_MEDIUM = 0xFFFF  # up to this: 126 + a 16-bit length; beyond it: 127 + a 64-bit length


def text_frame(payload: bytes) -> bytes:
    """The unmasked, unfragmented websocket text frame carrying ``payload`` (UTF-8 bytes)."""
    size = len(payload)
    if size <= _SHORT:
        return bytes((_FIN_TEXT, size)) + payload
    if size <= _MEDIUM:
        return struct.pack("!BBH", _FIN_TEXT, 126, size) + payload
    return struct.pack("!BBQ", _FIN_TEXT, 127, size) + payload


class Outgoing:
    """A message for one or many sockets: its text, its UTF-8 payload and its frame (both lazy,
    built on first use and then shared by every socket that sends this object). ``shared`` marks
    a broadcast (a patch), which a pending resync makes redundant."""

    __slots__ = ("_frame", "_payload", "shared", "text")

    def __init__(self, text: str, shared: bool = False) -> None:
        self.text = text
        self.shared = shared
        self._payload: bytes | None = None
        self._frame: bytes | None = None

    @property
    def payload(self) -> bytes:
        payload = self._payload
        if payload is None:
            payload = self._payload = self.text.encode()
        return payload

    @property
    def frame(self) -> bytes:
        frame = self._frame
        if frame is None:
            frame = self._frame = text_frame(self.payload)
        return frame
