"""Reading a client's websocket frames without the websockets library's parser, for the common
frame: a whole text message in one masked frame (docs/architecture.md section 6).

RFC 6455 section 5.2: byte 0 is FIN, three reserved bits and the opcode; byte 1 the MASK bit and
a 7-bit length (126: a 16-bit length follows; 127: a 64-bit one); then the 4-byte masking key
(every client frame is masked, section 5.3) and the payload, XORed with the key.

:func:`split_frames` cuts a buffer into whole frames and says which are *plain*: FIN set, no
reserved bit, opcode text, masked, and not over the size limit. Those are unmasked here and
handed on as text; every other frame (control frames, binary, fragments, anything odd) goes to
the websockets parser whole, so that parser always starts at the beginning of a frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

try:  # websockets' C implementation when it is built, else its Python one
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

_PLAIN_TEXT = 0x81  # FIN, no reserved bit, opcode 0x1 (text)
_MASKED = 0x80
_LENGTH = 0x7F
_LENGTH_16 = 126
_LENGTH_64 = 127
_MASK_BYTES = 4


@dataclass(frozen=True, slots=True)
class TooLarge:
    """A frame whose declared length is over the limit starts at ``at``: the rest of the stream
    from there is the websockets parser's (it refuses the frame, closing with 1009)."""

    at: int


def split_frames(
    buffer: bytes,
    limit: int,
    plain_ok: Callable[[], bool],
    plain: Callable[[bytes], None],
    other: Callable[[bytes], None],
) -> int | TooLarge:
    """Hand every whole frame at the start of ``buffer`` on, in order: the payload of a plain
    text frame, unmasked, to ``plain`` (while ``plain_ok()``: the connection is open and in no
    fragmented message); any other frame, as it is, to ``other``. Returns how many bytes were
    used (what follows is a frame not complete yet), or :class:`TooLarge`."""
    at, size = 0, len(buffer)
    while size - at >= 2:
        first, second = buffer[at], buffer[at + 1]
        length, head = second & _LENGTH, 2
        if length == _LENGTH_16:
            if size - at < 4:
                break
            length, head = int.from_bytes(buffer[at + 2 : at + 4], "big"), 4
        elif length == _LENGTH_64:
            if size - at < 10:
                break
            length, head = int.from_bytes(buffer[at + 2 : at + 10], "big"), 10
        if length > limit:
            return TooLarge(at)
        masked = second & _MASKED
        end = at + head + (_MASK_BYTES if masked else 0) + length
        if end > size:
            break
        if first == _PLAIN_TEXT and masked and plain_ok():
            key_at = at + head
            plain(apply_mask(buffer[key_at + _MASK_BYTES : end], buffer[key_at : key_at + _MASK_BYTES]))
        else:
            other(buffer[at:end])
        at = end
    return at
