"""Reading the text values of roster characteristics (``24"``, ``3+``, ``D6+3``, ``-``, ``User``).

Dice expressions become their average rounded up (``D6`` -> 4, ``D3`` -> 2, ``2D6`` -> 7,
``D6+3`` -> 7): a match definition's shots and damage are whole numbers [decided, documented in
docs/roster-import.md]; the report names every value read that way.

Digits are ASCII only (``str.isdigit()`` and ``\\d`` also accept ``²``, ``٣`` or ``１``, which
``int()`` refuses or reads as another number), and a number has at most ``MAX_NUMBER_DIGITS``
digits: a longer one is no number here. The roster reader refuses characteristics holding either
(xmltree.py), so neither is misread silently.
"""

from __future__ import annotations

import math
import re

# Digits of one number in a roster value. Game values have at most 3 (a 480" range); 9 leaves
# room for any real roster and keeps every number far below Python's 4,300-digit int() limit.
MAX_NUMBER_DIGITS = 9

_DICE = re.compile(r"^\s*([0-9]*)\s*[dD]\s*([0-9]+)\s*(?:([+-])\s*([0-9]+))?\s*$")
_INT = re.compile(r"[-+]?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_NUMBER_DIGITS + 1},}}")


def long_number(text: str) -> str | None:
    """The first run of more than ``MAX_NUMBER_DIGITS`` digits in ``text``, else None."""
    found = _LONG_NUMBER.search(text)
    return found.group() if found else None


def foreign_digit(text: str) -> str | None:
    """The first character of ``text`` that ``str.isdigit()`` takes for a digit but is not one of
    0-9 (``²``, ``٣``, ``１``), else None."""
    return next((c for c in text if c.isdigit() and not c.isascii()), None)


def small_int(text: str) -> int | None:
    """``text`` as a whole number when it is nothing but ASCII digits, at most
    ``MAX_NUMBER_DIGITS`` of them, else None (``'12'`` -> 12, ``'+2'``, ``'²'`` -> None)."""
    if not _DIGITS.fullmatch(text) or len(text) > MAX_NUMBER_DIGITS:
        return None
    return int(text)


def _signed_int(text: str) -> int | None:
    """An ``_INT`` match (``'-1'``, ``'+2'``, ``'12'``) as a whole number; None when too long."""
    digits = small_int(text.lstrip("+-"))
    if digits is None:
        return None
    return -digits if text.startswith("-") else digits


def first_int(text: str) -> int | None:
    """The first whole number in ``text`` (``'12 Models'`` -> 12, ``'Heavy 2'`` -> 2), else None."""
    found = _INT.search(text)
    return _signed_int(found.group()) if found else None


def dice_average(text: str) -> int | None:
    """``D6`` -> 4, ``2D6`` -> 7, ``D3+1`` -> 3; ``None`` when ``text`` is no dice expression."""
    found = _DICE.match(text)
    if not found:
        return None
    count = small_int(found.group(1) or "1")
    sides = small_int(found.group(2))
    bonus = small_int(found.group(4) or "0")
    if count is None or sides is None or bonus is None:
        return None
    signed_bonus = -bonus if found.group(3) == "-" else bonus
    return max(1, math.ceil(count * (sides + 1) / 2 + signed_bonus))


def whole(text: str) -> tuple[int | None, bool]:
    """A count: a number, or a dice expression read as its average. Returns (value, was_dice)."""
    text = text.strip()
    if _INT.fullmatch(text):
        return _signed_int(text), False
    avg = dice_average(text)
    return (avg, True) if avg is not None else (None, False)


def target(text: str) -> int | None:
    """A target number: ``3+`` -> 3, ``4++`` -> 4, ``-`` or empty -> None."""
    found = re.search(r"([0-9]+)\s*\+", text)
    if found:
        return small_int(found.group(1))
    return small_int(text.strip())


def inches(text: str) -> float | None:
    """``24"`` / ``24`` / ``20+"`` -> 24.0 / 20.0; ``-``, ``Melee`` -> None."""
    found = re.search(r"([0-9]+)(?:\.[0-9]+)?", text)
    if not found or len(found.group(1)) > MAX_NUMBER_DIGITS:
        return None
    return float(found.group())


def words(text: str) -> list[str]:
    """``'Vehicle (Tank, Transport)'`` -> ``['vehicle', 'tank', 'transport']``."""
    return [w.strip().lower() for w in re.split(r"[,()/]", text) if w.strip()]


def slug(text: str) -> str:
    """An id from a name: lower case, letters and digits joined by ``-`` (``'Space Marine'`` ->
    ``space-marine``)."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")
    return cleaned[:40].strip("-") or "unit"
