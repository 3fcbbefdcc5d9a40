"""The registry of editions: edition id -> its dispatch table (match/dispatch.py)."""

from __future__ import annotations

from ..rules.hh3 import RULES as HH3_RULES
from ..rules.wh40k7 import RULES as WH40K7_RULES
from ..rules.wh40k11 import RULES as WH40K11_RULES
from .dispatch import DispatchTable

EDITIONS: dict[str, DispatchTable] = {
    "40k7": WH40K7_RULES,
    "hh3": HH3_RULES,
    "40k11": WH40K11_RULES,
}


def rules_for(edition: str) -> DispatchTable:
    return EDITIONS[edition]
