"""The two dice sources of the odds engine (docs/odds.md). Neither touches the match's dice.

- :class:`ScriptedDice` answers from a prefix of faces, then with 1s, and records every face
  read: re-running the pure reducer with every prefix walks every sequence of dice an action
  can consume, each face with probability 1/6.
- :class:`SampleDice` draws from an independent pseudo-random stream (SplitMix64, fixed seed), for
  the sampled estimate when the tree of dice is too large. It is never seeded from the match:
  a preview drawn from the match's own HMAC dice would reveal the real roll before the player
  commits.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules.dice import Roll

# The face a scripted source gives past its prefix; the other faces are walked as siblings.
DEFAULT_FACE = 1
# A play reading more dice than this is not walked exactly (the sampled estimate is used).
MAX_DICE_PER_PLAY = 400
_MASK = (1 << 64) - 1
# SplitMix64 outputs at or above this are redrawn so every face has exactly the same weight.
_ACCEPT_BELOW = (1 << 64) - ((1 << 64) % 6)


class TooManyDice(Exception):
    """A play read more than MAX_DICE_PER_PLAY dice."""


class ScriptedDice:
    """Faces from ``prefix``, then DEFAULT_FACE; ``read`` is every face handed out, in order."""

    def __init__(self, prefix: Sequence[int]) -> None:
        self._prefix = prefix
        self.read: list[int] = []
        self._rolls: list[Roll] = []

    def d6(self) -> int:
        i = len(self.read)
        if i >= MAX_DICE_PER_PLAY:
            raise TooManyDice(f"a play read more than {MAX_DICE_PER_PLAY} dice")
        value = self._prefix[i] if i < len(self._prefix) else DEFAULT_FACE
        self.read.append(value)
        self._rolls.append(Roll(i, value))
        return value

    @property
    def rolls(self) -> Sequence[Roll]:
        return self._rolls


class SampleDice:
    """An independent SplitMix64 stream of D6 faces; one stream serves every sampled play."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK
        self.read: list[int] = []
        self._rolls: list[Roll] = []

    def _next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def d6(self) -> int:
        while True:
            z = self._next()
            if z < _ACCEPT_BELOW:
                value = z % 6 + 1
                self._rolls.append(Roll(len(self.read), value))
                self.read.append(value)
                return value

    def start_play(self) -> None:
        """Forget the faces of the previous play (the stream goes on)."""
        self.read = []
        self._rolls = []

    @property
    def rolls(self) -> Sequence[Roll]:
        return self._rolls
