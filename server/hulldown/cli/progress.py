"""A plain progress bar on stderr (no dependency), for long ``hulldown verify`` runs."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class ProgressBar:
    """``update(done, total)`` redraws ``label [#####.....] done/total`` at most every 0.1 s."""

    def __init__(self, label: str, stream: TextIO | None = None, interval: float = 0.1) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self._last = 0.0
        self._drawn = False

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < self.interval:
            return
        self._last = now
        filled = WIDTH if total <= 0 else WIDTH * done // total
        bar = "#" * filled + "." * (WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} events")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
