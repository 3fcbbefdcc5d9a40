"""Exponential backoff with jitter for reconnecting."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


class GiveUp(Exception):
    """Raised by :meth:`Backoff.next_delay` once ``max_attempts`` delays were handed out."""


@dataclass
class Backoff:
    """Delays ``initial * factor**n`` capped at ``maximum``, each scaled by a random factor in
    ``[1 - jitter, 1 + jitter]`` (so many clients reconnecting at once spread out).
    ``max_attempts`` None retries forever; :meth:`reset` after a successful connection."""

    initial: float = 0.1
    factor: float = 2.0
    maximum: float = 5.0
    jitter: float = 0.2
    max_attempts: int | None = None
    rng: random.Random = field(default_factory=random.Random)
    attempts: int = 0

    def next_delay(self) -> float:
        if self.max_attempts is not None and self.attempts >= self.max_attempts:
            raise GiveUp(f"gave up after {self.attempts} attempts")
        base = min(self.maximum, self.initial * self.factor**self.attempts)
        self.attempts += 1
        return base * (1.0 + self.jitter * self.rng.uniform(-1.0, 1.0))

    def reset(self) -> None:
        self.attempts = 0
