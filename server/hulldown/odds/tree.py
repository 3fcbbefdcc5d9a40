"""The tree of an action's dice, grown as plays are made (docs/odds.md).

A play is identified by its *path*: the branch taken at each roll (``dice_sources.Script``). The
rules are a pure function of the state and the dice, so one path always gives the same play:
the tree keeps every play made, and

- the exact walk visits every leaf once (a prefix whose leaf is already known, e.g. from the
  probe, is not played again);
- a sample descends the known tree drawing a face from the independent stream at each roll and
  only plays the rules when it leaves the known tree (the rest of the path is drawn while
  playing). Equal paths are one play: the cost of a sampled answer is the number of *distinct*
  plays it meets, not the number of samples, and the samples are exactly as independent as
  plays drawn one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .dice_sources import Branches, FaceStream, Script, TooManyDice, branch_of_face, canonical, draw_index
from .plays import Play

Runner = Callable[[Script], Play]


@dataclass
class _Node:
    """A roll: its branches (faces grouped as the rules tell them apart), whether it continues a
    batch of exchangeable rolls, and the known subtrees."""

    branches: Branches
    continues: bool
    of_face: tuple[int, ...]  # branch index of faces 1-6 (1-n: a random choice among n)
    batch: int  # rolls of the batch starting here (``batch_lengths``)
    children: dict[int, _Node | Leaf] = field(default_factory=dict)
    # The known subtree of each face (index face - 1), None where not yet known: a sample's
    # roll of its own is one lookup.
    by_face: list[_Node | Leaf | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_face = [None] * len(self.of_face)

    def add(self, b: int, child: _Node | Leaf) -> None:
        self.children[b] = child
        for f in self.branches[b]:
            self.by_face[f - 1] = child


@dataclass
class Leaf:
    play: Play
    weight: float  # probability of the path
    dice: int  # rolls read


def batch_lengths(continues: list[bool]) -> list[int]:
    """For each roll, the rolls of the batch of exchangeable rolls that starts at it (1: a roll
    of its own; 0: a roll that continues a batch). A batch's length is fixed before its first
    roll (``face_classes.EXCHANGEABLE``: the rules count a known number of rolls), so every play
    through a node gives it the same length."""
    out = [0] * len(continues)
    start = 0
    for i, more in enumerate(continues):
        if not more:
            start = i
        out[start] += 1
    return out


class Tree:
    """The plays of one action from one state, by path (each batch of exchangeable rolls in
    non-decreasing order: its orders are one play)."""

    def __init__(self, run: Runner, *, equal_faces: bool = True) -> None:
        self._run = run
        self._equal_faces = equal_faces
        self._root: _Node | Leaf | None = None
        self.leaves = 0  # distinct plays made

    def _play(self, script: Script) -> tuple[Leaf, list[int]]:
        play = self._run(script)
        leaf = Leaf(play, script.weight, len(script.path))
        self.leaves += 1
        path = canonical(script.path, script.continues)
        branches, continues = script.branches, script.continues
        if not path:
            self._root = leaf
            return leaf, path
        lengths = batch_lengths(continues)
        if self._root is None:
            self._root = _Node(branches[0], continues[0], branch_of_face(branches[0]), lengths[0])
        node = self._root
        assert isinstance(node, _Node)
        for depth in range(len(path) - 1):
            child = node.children.get(path[depth])
            if child is None:
                nxt = depth + 1
                child = _Node(branches[nxt], continues[nxt], branch_of_face(branches[nxt]), lengths[nxt])
                node.add(path[depth], child)
            assert isinstance(child, _Node)
            # The rules give a batch its length before its first roll (``batch_lengths``).
            assert child.batch == lengths[depth + 1], "a batch of exchangeable rolls changed length"
            node = child
        node.add(path[-1], leaf)
        return leaf, path

    def sample(self, stream: FaceStream) -> Leaf:
        """One play drawn with the stream: from the known tree where it reaches, else played.
        A batch of exchangeable rolls is drawn whole (its length is known from the tree:
        ``batch_lengths``), put in order and looked up as one, so a play whose batch came in
        another order is met again; when the tree does not know the ordered batch, the play is
        made with the batch as its prefix."""
        node = self._root
        path: list[int] = []
        index = stream.index
        while isinstance(node, _Node):
            k = node.batch
            if k == 1:
                # A die: one face of the stream; a random choice among n: ``draw_index``.
                i = index() if len(node.of_face) == 6 else draw_index(index, len(node.of_face))
                path.append(node.of_face[i])
                child = node.by_face[i]
            else:
                of_face = node.of_face
                batch = sorted([of_face[index()] for _ in range(k)])
                path.extend(batch)
                child = node
                for x in batch:
                    child = child.children.get(x) if isinstance(child, _Node) else None
                    if child is None:
                        break
            if child is None:
                script = Script(path, stream, equal_faces=self._equal_faces, offered=self._offered(path))
                return self._play(script)[0]
            node = child
        if node is None:
            return self._play(Script((), stream, equal_faces=self._equal_faces))[0]
        return node

    def uniform(self, choose: Callable[[int], int]) -> float:
        """One path taking at each roll a branch chosen uniformly (``choose(n)`` in 0..n-1) among
        those the walk takes there, from the known tree where it reaches, else played: the
        product of those numbers of branches is Knuth's estimate of the number of leaves (its
        mean over such paths is the number of leaves exactly; paths drawn by their probability
        instead would almost never meet the many unlikely leaves). Raises TooManyDice."""
        node = self._root
        path: list[int] = []
        offered: list[Branches] = []
        product = 1.0
        while isinstance(node, _Node):
            low = path[-1] if node.continues else 0
            n = len(node.branches) - low
            b = low + choose(n)
            product *= n
            path.append(b)
            offered.append(node.branches)
            child = node.children.get(b)
            if child is None:
                script = Script(path, equal_faces=self._equal_faces, uniform=choose, offered=offered)
                self._play(script)
                return product * script.choices(len(path))
            node = child
        if node is None:
            script = Script((), equal_faces=self._equal_faces, uniform=choose)
            self._play(script)
            return script.choices(0)
        return product

    def walk(self, max_leaves: int) -> list[Leaf] | None:
        """Every leaf, or None when there are more than ``max_leaves`` (or a play reads more
        dice than a walk allows)."""
        stack: list[tuple[int, ...]] = [()]
        out: list[Leaf] = []
        while stack:
            if len(out) >= max_leaves:
                return None
            prefix = stack.pop()
            found = self._known(prefix)
            if found is None:
                try:
                    script = Script(prefix, equal_faces=self._equal_faces, offered=self._offered(prefix))
                    leaf, path = self._play(script)
                except TooManyDice:
                    return None
                sizes = [len(b) for b in script.branches]
                lows = [path[j - 1] if more else 0 for j, more in enumerate(script.continues)]
            else:
                leaf, path, sizes, lows = found
            out.append(leaf)
            # Past the prefix the first branch was taken: the others of each such roll are
            # siblings (in a batch, those after the previous roll's branch).
            for j in range(len(path) - 1, len(prefix) - 1, -1):
                base = tuple(path[:j])
                stack.extend((*base, b) for b in range(sizes[j] - 1, lows[j], -1))
        return out

    def _offered(self, prefix: Sequence[int]) -> list[Branches]:
        """The branches the known tree gives the rolls of ``prefix`` (as many as it knows)."""
        out: list[Branches] = []
        node = self._root
        for b in prefix:
            if not isinstance(node, _Node):
                break
            out.append(node.branches)
            node = node.children.get(b)
        return out

    def _known(self, prefix: tuple[int, ...]) -> tuple[Leaf, list[int], list[int], list[int]] | None:
        """The leaf of ``prefix`` then first branches, if already played."""
        node = self._root
        path: list[int] = []
        sizes: list[int] = []
        lows: list[int] = []
        while isinstance(node, _Node):
            low = path[-1] if node.continues else 0
            b = prefix[len(path)] if len(path) < len(prefix) else low
            sizes.append(len(node.branches))
            lows.append(low)
            path.append(b)
            child = node.children.get(b)
            if child is None:
                return None
            node = child
        if node is None:
            return None
        return node, path, sizes, lows
