"""Dice expressions a weapon characteristic may hold: ``d3``, ``d6``, ``2d6``, ``d6+3``, ``d3+1``.

Written lower-case in a parametrised weapon rule (40k11 ``attacks:d6+3``, ``damage:d6``;
docs/match-definition.md). A D3 is a D6 halved, rounded up (docs/rules-notes.md, Dice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Bounds keep one weapon's attacks or damage within MAX_SHOTS / MAX_DAMAGE (match/limits.py).
MAX_DICE_COUNT = 10
MAX_DICE_BONUS = 50
_DICE = re.compile(r"^([1-9][0-9]?)?d(3|6)(?:\+([0-9]{1,2}))?$")


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """``count`` D``sides`` + ``bonus``."""

    count: int
    sides: int
    bonus: int

    def text(self) -> str:
        """As the datasheets write it: ``D6+3``, ``2D6``."""
        head = f"{self.count if self.count != 1 else ''}D{self.sides}"
        return head + (f"+{self.bonus}" if self.bonus else "")

    def average(self) -> int:
        """The average, rounded up (what the number field holds as a fallback)."""
        return -(-(self.count * (self.sides + 1) + 2 * self.bonus) // 2)


def parse_dice(text: str) -> DiceExpr | None:
    """The dice expression ``text`` (lower- or upper-case), or None when it is not one."""
    found = _DICE.match(text.strip().lower())
    if found is None:
        return None
    count = int(found.group(1) or "1")
    bonus = int(found.group(3) or "0")
    if count > MAX_DICE_COUNT or bonus > MAX_DICE_BONUS:
        return None
    return DiceExpr(count, int(found.group(2)), bonus)
