"""Values returned by the store. Rejections are values, not exceptions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AppendStatus = Literal["appended", "duplicate", "conflict"]


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Outcome of one append.

    ``seq`` is the new seq (``appended``), the seq the action id was first appended at
    (``duplicate``) or the current version of the stream (``conflict``).
    """

    status: AppendStatus
    seq: int

    @property
    def ok(self) -> bool:
        """True when the event is in the stream (newly appended or a deduplicated retry)."""
        return self.status != "conflict"
