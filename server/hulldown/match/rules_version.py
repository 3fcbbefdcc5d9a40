"""The rules version: which rules code a match was created under (docs/architecture.md section 3,
"Rules versions"). Pure.

Every new match records :data:`RULES_VERSION` in its creation event (``MatchCreated.rules_version``);
matches created before versions were recorded read :data:`UNRECORDED`. A stored match is always
folded with today's rules code, so ``hulldown verify`` and ``GET /matches/{id}/dice`` compare the
match's version with the server's: a state hash that does not refold in a match of another version
is reported as a rules change between the two versions, not as an altered log.

Bump :data:`RULES_VERSION` (and add its line to :data:`CHANGELOG`) with any change that can make a
stored event fold differently: another state, other dice drawn, a rejection where it applied.
"""

from __future__ import annotations

# What a match created before rules versions were recorded reads as its version.
UNRECORDED = 0

# The version of the rules code this server folds with.
RULES_VERSION = 1

# Each version: the date it took effect and one line a player can read about which rules changed.
CHANGELOG: dict[int, tuple[str, str]] = {
    1: ("2026-12-07", "the rules as of 2026-12-07 (the first recorded version)"),
}


def describe(version: int) -> str:
    """``version 1`` or ``version 0 (before versions were recorded)``."""
    if version == UNRECORDED:
        return f"version {UNRECORDED} (before versions were recorded)"
    return f"version {version}"


def changes_between(older: int, newer: int) -> list[str]:
    """The changelog lines of the versions after ``older`` up to ``newer`` (either order), each
    ``version N (date): line``; a version this server does not know says so."""
    low, high = min(older, newer), max(older, newer)
    lines: list[str] = []
    for version in range(low + 1, high + 1):
        entry = CHANGELOG.get(version)
        if entry is None:
            lines.append(f"version {version}: not known to this server (it is newer than its rules code)")
        else:
            date, line = entry
            lines.append(f"version {version} ({date}): {line}")
    return lines
