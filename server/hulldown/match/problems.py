"""What is wrong with a match definition: one :class:`Problem` per mistake, each naming the path
of the value (``scenario.units[2].keywords[1]``), what is wrong, the allowed values and the
closest allowed name when the value looks like a misspelling."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import msgspec

MAX_PROBLEMS = 50  # a definition with more mistakes is answered with the first 50
ALLOWED_SHOWN = 60  # allowed values listed in one problem


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """One mistake in a match definition."""

    path: str
    message: str
    allowed: tuple[str, ...] = ()
    did_you_mean: str | None = None

    def text(self) -> str:
        """The problem as one line: path, message, suggestion, allowed values."""
        line = f"{self.path}: {self.message}" if self.path else self.message
        if self.did_you_mean is not None:
            line += f" (did you mean {self.did_you_mean!r}?)"
        if self.allowed:
            line += "; allowed: " + ", ".join(self.allowed)
        return line


def join(path: str, key: str | int) -> str:
    """``units`` + 2 -> ``units[2]``; ``units[2]`` + ``keywords`` -> ``units[2].keywords``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def closest(value: str, names: Iterable[str]) -> str | None:
    """The allowed name a misspelt ``value`` most likely meant (``"tonk"`` -> ``"tank"``)."""
    folded = value.strip().lower().replace(" ", "-")
    candidates = list(dict.fromkeys(names))
    for name in candidates:
        if name.replace("_", "-") == folded.replace("_", "-"):
            return name
    found = difflib.get_close_matches(value.lower(), candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_name(path: str, what: str, value: str, names: Iterable[str]) -> Problem:
    """``value`` is not one of ``names``: the problem lists them and suggests the closest."""
    allowed = tuple(dict.fromkeys(names))
    shown = allowed[:ALLOWED_SHOWN]
    if not allowed:
        return Problem(path, f"unknown {what} {value!r}: this edition has none")
    return Problem(path, f"unknown {what} {value!r}", allowed=shown, did_you_mean=closest(value, allowed))


def summary(problems: list[Problem]) -> str:
    """One line for a log or an error message: the first problem and how many more."""
    if not problems:
        return "no problem"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return problems[0].text() + more
