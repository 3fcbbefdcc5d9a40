"""Views: what one audience may see (docs/architecture.md sections 4 and 11).

The state holds no secret (the dice seed lives in the store's match metadata and enters the
state only when it is revealed at the end of the match), so the player views and the live spectator view are the state itself; a delayed
spectator sees an older state. Views are encoded once per audience, never once per socket.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .diff import Op, diff
from .state import MatchState


def view_json(state: MatchState) -> dict[str, Any]:
    """The view as plain JSON-ready data (the welcome's ``view``)."""
    result: dict[str, Any] = msgspec.to_builtins(state)
    return result


def view_patch(before: MatchState, after: MatchState) -> list[Op]:
    """RFC 6902 operations from one view to the next."""
    return diff(before, after)
