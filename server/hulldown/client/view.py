"""A client's local copy of the view, kept current by applying the server's patches in order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec

from ..match.state import MatchState
from .patch import apply_patch

Applied = Literal["applied", "duplicate", "gap"]


class LocalView:
    """The view as of ``seq``: plain JSON data (``data``), replaced whole by a welcome or a
    resync and advanced by patches. A patch whose seq is not ``seq + 1`` is not applied:
    an older one is a duplicate (ignored), a newer one reveals a gap (the client resumes)."""

    def __init__(self) -> None:
        self.seq = 0
        self.data: dict[str, Any] | None = None

    @property
    def ready(self) -> bool:
        return self.data is not None

    def reset(self, seq: int, data: dict[str, Any]) -> None:
        self.seq = seq
        self.data = data

    def clear(self) -> None:
        self.seq = 0
        self.data = None

    def apply(self, seq: int, ops: Iterable[Mapping[str, Any]]) -> Applied:
        """Apply the patch turning ``seq - 1`` into ``seq``; raises PatchError (and changes
        nothing) when the operations do not fit the view."""
        if self.data is None or seq > self.seq + 1:
            return "gap"
        if seq <= self.seq:
            return "duplicate"
        self.data = apply_patch(self.data, ops)
        self.seq = seq
        return "applied"

    # ---- convenience -----------------------------------------------------------------------

    def get(self, key: str, default: Any = None) -> Any:
        return default if self.data is None else self.data.get(key, default)

    def unit(self, unit_id: str) -> dict[str, Any]:
        units: dict[str, Any] = self.get("units", {})
        return dict(units[unit_id])

    def state(self) -> MatchState:
        """The view decoded as the typed :class:`MatchState` (a full conversion: not for hot paths)."""
        if self.data is None:
            raise LookupError("no view yet")
        return msgspec.convert(self.data, MatchState)
