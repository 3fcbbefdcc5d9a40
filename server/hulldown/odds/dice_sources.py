"""The dice sources of the odds engine (docs/odds.md). None touches the match's dice.

- :class:`Script` answers each roll with a *branch*: one group of faces the rules cannot tell
  apart (``face_classes``; six groups of one face for most rolls). It takes the branches of a
  prefix, then either the first branch of every roll (the exact walk) or a branch drawn from
  the independent face stream (sampling), and records every branch it took and the sizes of the
  branches it could have taken. Re-running the pure reducer with every prefix walks every
  sequence of dice an action can consume, each face with probability 1/6. A random choice the
  rules draw by re-rolling (``ApplyContext.uniform``) is one roll of ``n`` equally likely
  "faces" 1-n (n up to 36): the walk takes one branch per choice, 1/n each.
- :class:`FaceStream` is an independent pseudo-random stream of D6 faces (SplitMix64, fixed
  seed) for the sampled estimate. It is never seeded from the match: a preview drawn from the
  match's own HMAC dice would reveal the real roll before the player commits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ..rules.dice import Roll
from .face_classes import SIX_FACES

# A play reading more dice than this is not walked exactly (the sampled estimate is used).
MAX_DICE_PER_PLAY = 400
_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
# Faces of the stream computed at once (a sampled answer draws ~10-30 thousand).
FACE_BLOCK = 1024
# SplitMix64 outputs at or above this are redrawn so every face has exactly the same weight.
_ACCEPT_BELOW = (1 << 64) - ((1 << 64) % 6)

Branches = tuple[tuple[int, ...], ...]


_BRANCH_OF_FACE: dict[Branches, tuple[int, ...]] = {}


def branch_of_face(branches: Branches) -> tuple[int, ...]:
    """The branch index of each face the roll may show: faces 1-6 of a die, 1-n of a random
    choice among n (``choices``)."""
    known = _BRANCH_OF_FACE.get(branches)
    if known is None:
        of_face = [0] * sum(len(faces) for faces in branches)
        for b, faces in enumerate(branches):
            for f in faces:
                of_face[f - 1] = b
        known = _BRANCH_OF_FACE[branches] = tuple(of_face)
    return known


def path_weight(path: Sequence[int], branches: Sequence[Branches], continues: Sequence[bool]) -> float:
    weight = 1.0
    n = 0
    counts: dict[int, int] = {}
    for b, offered, more in zip(path, branches, continues, strict=True):
        # A die's branches share its six faces; a random choice's its n (``choices``).
        weight *= len(offered[b]) / len(branch_of_face(offered))
        if not more:
            n, counts = 0, {}
        n += 1
        counts[b] = counts.get(b, 0) + 1
        # Adding the n-th roll of a batch, the m-th of its branch: n! / prod(m_b!) orders.
        weight *= n / counts[b]
    return weight


def canonical(path: Sequence[int], continues: Sequence[bool]) -> list[int]:
    """The path with each batch of exchangeable rolls in non-decreasing order."""
    out: list[int] = []
    start = 0
    for i, (b, more) in enumerate(zip(path, continues, strict=True)):
        if not more:
            start = i
        out.append(b)
        if more:
            out[start:] = sorted(out[start:])
    return out


class TooManyDice(Exception):
    """A play read more than MAX_DICE_PER_PLAY dice."""


class FaceStream:
    """An independent SplitMix64 stream of D6 faces; one stream serves every sampled play.

    The outputs are computed FACE_BLOCK at a time with numpy's wrapping 64-bit arithmetic - the
    same stream, output by output, as the scalar recurrence (tests/odds/test_face_classes.py)."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK
        # The next face minus one (0-5), each call: the stream's one reader.
        self.index: Callable[[], int] = self._indices().__next__

    def face(self) -> int:
        return self.index() + 1

    def _indices(self) -> Iterator[int]:
        while True:
            yield from self._block()

    def _block(self) -> list[int]:
        steps = np.arange(1, FACE_BLOCK + 1, dtype=np.uint64) * np.uint64(_GAMMA)
        z = steps + np.uint64(self._state)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
        self._state = (self._state + FACE_BLOCK * _GAMMA) & _MASK
        # Outputs at or above _ACCEPT_BELOW are redrawn: skipping them is drawing the next one.
        kept = z[z < np.uint64(_ACCEPT_BELOW)]
        faces: list[int] = (kept % np.uint64(6)).tolist()
        return faces


def choices(n: int) -> Branches:
    """The branches of a random choice among ``n`` (``ApplyContext.uniform``): "faces" 1-n, one
    branch each, each 1/n."""
    return tuple((f,) for f in range(1, n + 1))


def draw_index(index: Callable[[], int], n: int) -> int:
    """A uniform index in [0, n) (n <= 36) from a stream's face indices 0-5: one face when n <= 6
    (exactly one for n = 6, as a die's face is drawn), else two read as 0-35; redrawn at or above
    the largest multiple of ``n`` and taken modulo ``n``."""
    if n <= 6:
        below = n * (6 // n)
        while True:
            i = index()
            if i < below:
                return i % n
    below = n * (36 // n)
    while True:
        v = index() * 6 + index()
        if v < below:
            return v % n


def uniform_choice(stream: FaceStream) -> Callable[[int], int]:
    """A uniform choice among ``n`` (1-36) branches from the stream's faces (``draw_index``)."""

    def choose(n: int) -> int:
        if n == 1:
            return 0
        return draw_index(stream.index, n)

    return choose


def splitmix_faces(seed: int, n: int) -> list[int]:
    """The first ``n`` faces of the stream by the scalar SplitMix64 recurrence (the reference
    the block computation is checked against)."""
    state = seed & _MASK
    out: list[int] = []
    while len(out) < n:
        state = (state + _GAMMA) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        if z < _ACCEPT_BELOW:
            out.append(z % 6 + 1)
    return out


class Script:
    """Branches from ``prefix``, then the first branch (``stream`` None) or the branch of a face
    drawn from ``stream``. ``path`` is the branch taken at each roll, ``branches`` the branches
    each roll offered, ``continues`` whether the roll continues a batch of exchangeable rolls
    (``face_classes.EXCHANGEABLE``): walking, such a roll's first branch is the previous roll's,
    so each batch is walked in one order."""

    def __init__(
        self,
        prefix: Sequence[int] = (),
        stream: FaceStream | None = None,
        *,
        equal_faces: bool = True,
        uniform: Callable[[int], int] | None = None,
        offered: Sequence[Branches] = (),
    ) -> None:
        self._prefix = prefix
        # The branches the first rolls offer, when already known (the tree of plays: the rules
        # are pure, so the same prefix of dice reaches the same rolls): not worked out again.
        self._offered = offered
        self._stream = stream
        # Past the prefix, a branch chosen uniformly (``uniform(n)`` in 0..n-1) among those the
        # walk would take at the roll (Knuth's estimate of the size of the tree, module ``tree``).
        self._uniform = uniform
        # False: every roll offers its six faces, even where the rules cannot tell them apart.
        self.equal_faces = equal_faces
        self.path: list[int] = []
        self.branches: list[Branches] = []
        self.continues: list[bool] = []

    def offered(self) -> Branches | None:
        """The branches of the next roll, if known before it is made (``offered``)."""
        i = len(self.path)
        return self._offered[i] if i < len(self._offered) else None

    def pick(self, branches: Branches, continues: bool = False) -> int:
        """The face standing for the branch taken at this roll."""
        i = len(self.path)
        if i < len(self._prefix):
            b = self._prefix[i]
        elif self._stream is None:
            if i >= MAX_DICE_PER_PLAY:
                raise TooManyDice(f"a play read more than {MAX_DICE_PER_PLAY} dice")
            b = self.path[-1] if continues else 0
            if self._uniform is not None:
                b += self._uniform(len(branches) - b)
        else:
            of_face = branch_of_face(branches)
            b = of_face[draw_index(self._stream.index, len(of_face))]
        self.path.append(b)
        self.branches.append(branches)
        self.continues.append(continues)
        return branches[b][0]

    def choices(self, start: int) -> float:
        """The product of the branches the walk could take at each roll from ``start`` on (in
        a batch, those from the previous roll's branch on)."""
        product = 1.0
        for j in range(start, len(self.path)):
            low = self.path[j - 1] if self.continues[j] else 0
            product *= len(self.branches[j]) - low
        return product

    @property
    def weight(self) -> float:
        """The probability of the play: of each branch, and of each batch's branches in any
        order (the multinomial count of its orders)."""
        return path_weight(self.path, self.branches, self.continues)

    def d6(self) -> int:
        return self.pick(SIX_FACES)

    @property
    def rolls(self) -> Sequence[Roll]:
        return [
            Roll(i, branches[b][0])
            for i, (b, branches) in enumerate(zip(self.path, self.branches, strict=True))
        ]
