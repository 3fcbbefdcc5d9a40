"""Wording helpers for 40k7 log lines: counted nouns and table positions a player reads
(40k7 log wording, docs/rules-notes.md, 40k7 Conventions)."""

from __future__ import annotations

# Positions and distances in log text are shown to this many decimals (inches); the exact
# values are in the line's structured values [decided].
LOG_DECIMALS = 1


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 shot``, ``2 shots``; ``many`` gives an irregular plural."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def inches(d: float) -> str:
    """A distance in inches as a player reads it: ``20.5 in``."""
    return f"{d:.{LOG_DECIMALS}f} in"


def place(x: float, y: float) -> str:
    """A table position as a player reads it: ``(20.5, 12.0)``."""
    return f"({x:.{LOG_DECIMALS}f}, {y:.{LOG_DECIMALS}f})"


def degrees(h: float) -> str:
    """A heading as a player reads it: ``90 degrees``, ``123.5 degrees``."""
    if h % 1 == 0:  # a whole number (most headings): the same text without the zeros to strip
        return f"{h:.0f} degrees"
    text = f"{h:.{LOG_DECIMALS}f}".rstrip("0").rstrip(".")
    return f"{text} degrees"


def rounded(v: float) -> float:
    """A measured value for a log line's structured values (6 decimals: no float noise)."""
    return round(v, 6)
