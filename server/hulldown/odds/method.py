"""Exact or sampled: the choice the engine makes for ``method: "auto"`` (docs/odds.md, "Exact or
sampled").

Before walking, the engine makes a few random plays (the probe). From them it has an estimate of
the number of leaves of the dice tree (``estimated_leaves``) and the CPU time one play of the
rules costs (the median over the probe's plays, so the first play, which fills the
geometry memo, does not count more than any other). The walk plays again only the leaves the
probe has not met (``tree``: a known leaf is not played twice), so it costs about the leaves left
times the cost of a play; ``auto`` walks only when that is within ``EXACT_BUDGET_S``, else it
samples - a sampled answer's cost is bounded by its samples (and is usually far less: its
samples share plays).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from .answer import MethodChoice

# CPU seconds an estimated exact walk may cost for ``auto`` to walk it: a quarter of the sampled
# answer's goal of 200 ms for anything, so that a walk whose estimate was too low, cut at
# WALK_SLACK budgets, still ends within the goal even when its plays cost more than the probe's
# (a loaded machine: 0.3 ms a play in a walk whose probe measured 0.24 ms). A walk expected to
# take longer is not worth its exactness.
EXACT_BUDGET_S = 0.05
# A tree estimated above PROBE_MARGIN times ``max_plays`` leaves is never walked, whatever the
# method asked for. Above 1 because the estimate is noisy (a 40k7 template whose target falls back
# has 1,934 leaves and was estimated at 3,982): a walk asked for is still cut at ``max_plays``
# leaves (then sampled), so the margin costs at most that walk.
PROBE_MARGIN = 2.0
# An ``auto`` walk stops (and the answer is sampled, the leaves walked kept for the samples) after
# playing WALK_SLACK times the plays its budget buys: an estimate too low costs at most that.
WALK_SLACK = 2.0


@dataclass(frozen=True)
class ProbeEstimate:
    """What the probe tells about the tree: its estimated leaves, the distinct leaves it
    played (``known``), and the CPU seconds of a play."""

    leaves: float
    known: int
    seconds_per_play: float

    @property
    def exact_seconds(self) -> float:
        """The estimated cost of walking the leaves the probe has not played."""
        return max(0.0, self.leaves - self.known) * self.seconds_per_play


def walk_exactly(method: MethodChoice, estimate: ProbeEstimate, max_plays: int, budget_s: float) -> bool:
    """Whether to try the exact walk: never for ``sampled`` or a tree estimated above
    ``max_plays`` (times PROBE_MARGIN); always otherwise for ``exact``; for ``auto`` only when the
    estimated cost of the walk is within ``budget_s`` CPU seconds."""
    if method == "sampled" or estimate.leaves > max_plays * PROBE_MARGIN:
        return False
    return method == "exact" or estimate.exact_seconds <= budget_s


def walk_limit(method: MethodChoice, estimate: ProbeEstimate, max_plays: int, budget_s: float) -> int:
    """The most leaves the walk may visit: ``max_plays``; for ``auto`` also the leaves known and
    WALK_SLACK times the plays the budget buys at the measured cost of a play."""
    if method != "auto" or estimate.seconds_per_play <= 0:
        return max_plays
    affordable = WALK_SLACK * budget_s / estimate.seconds_per_play
    return int(min(max_plays, estimate.known + max(1.0, affordable)))


# The uniform plays' estimate is the median of the means of this many equal groups of them.
ESTIMATE_GROUPS = 4


def estimated_leaves(by_probability: list[float], uniform: list[float]) -> float:
    """The number of leaves, by the larger of two of Knuth's estimates: the mean of ``1 /
    P(path)`` over plays drawn by their probability (``by_probability``: skewed low, those plays
    almost never meet the many unlikely leaves) and, over plays taking a uniformly chosen branch
    at each roll, the product of the numbers of branches met (``uniform``, ``tree.Tree.uniform``:
    unbiased, but a rare deep path gives a huge product, so the median of the means of
    ESTIMATE_GROUPS groups is taken). An estimate too low costs at most WALK_SLACK budgets of
    walk; one too high only samples a tree that could have been walked."""
    low = sum(by_probability) / len(by_probability) if by_probability else 0.0
    if not uniform:
        return low
    size = max(1, len(uniform) // ESTIMATE_GROUPS)
    means = [statistics.mean(uniform[i : i + size]) for i in range(0, len(uniform), size)]
    return max(low, statistics.median(means))


R = TypeVar("R")
A = TypeVar("A")


@dataclass
class PlayTimer:
    """Times each call of a runner in CPU seconds of the calling thread (the route computes in a
    worker thread: other threads' work is not this answer's)."""

    seconds: list[float] = field(default_factory=list)

    def timed(self, run: Callable[[A], R]) -> Callable[[A], R]:
        def call(arg: A) -> R:
            start = time.thread_time()
            try:
                return run(arg)
            finally:
                self.seconds.append(time.thread_time() - start)

        return call

    def per_play(self) -> float:
        """The median CPU seconds of a play so far (0 before any play)."""
        return statistics.median(self.seconds) if self.seconds else 0.0
