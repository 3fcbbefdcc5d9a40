"""Reading the text values of roster characteristics (``24"``, ``3+``, ``D6+3``, ``-``, ``User``).

Dice expressions become their average rounded up (``D6`` -> 4, ``D3`` -> 2, ``2D6`` -> 7,
``D6+3`` -> 7): a match definition's shots and damage are whole numbers [decided, documented in
docs/roster-import.md]; the report names every value read that way.
"""

from __future__ import annotations

import math
import re

_DICE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")
_INT = re.compile(r"[-+]?\d+")


def first_int(text: str) -> int | None:
    """The first whole number in ``text`` (``'12 Models'`` -> 12, ``'Heavy 2'`` -> 2), else None."""
    found = _INT.search(text)
    return int(found.group()) if found else None


def dice_average(text: str) -> int | None:
    """``D6`` -> 4, ``2D6`` -> 7, ``D3+1`` -> 3; ``None`` when ``text`` is no dice expression."""
    found = _DICE.match(text)
    if not found:
        return None
    count = int(found.group(1) or 1)
    sides = int(found.group(2))
    bonus = int(found.group(4) or 0) * (-1 if found.group(3) == "-" else 1)
    return max(1, math.ceil(count * (sides + 1) / 2 + bonus))


def whole(text: str) -> tuple[int | None, bool]:
    """A count: a number, or a dice expression read as its average. Returns (value, was_dice)."""
    text = text.strip()
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text), False
    avg = dice_average(text)
    return (avg, True) if avg is not None else (None, False)


def target(text: str) -> int | None:
    """A target number: ``3+`` -> 3, ``4++`` -> 4, ``-`` or empty -> None."""
    found = re.search(r"(\d+)\s*\+", text)
    if found:
        return int(found.group(1))
    plain = text.strip()
    return int(plain) if plain.isdigit() else None


def inches(text: str) -> float | None:
    """``24"`` / ``24`` / ``20+"`` -> 24.0 / 20.0; ``-``, ``Melee`` -> None."""
    found = re.search(r"\d+(?:\.\d+)?", text)
    return float(found.group()) if found else None


def words(text: str) -> list[str]:
    """``'Vehicle (Tank, Transport)'`` -> ``['vehicle', 'tank', 'transport']``."""
    return [w.strip().lower() for w in re.split(r"[,()/]", text) if w.strip()]


def slug(text: str) -> str:
    """An id from a name: lower case, letters and digits joined by ``-`` (``'Space Marine'`` ->
    ``space-marine``)."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")
    return cleaned[:40].strip("-") or "unit"
