"""The odds engine: the distribution of an action's outcomes under the rules core (docs/odds.md).

Exact where it is exact: the reducer is a pure function of the state and the dice, so every
sequence of dice the action can consume is walked by re-running the rules with a scripted dice
prefix and noting how many dice each play read (a play that read k dice has probability 6^-k).
Decisions the action raises are answered by the policy; the best answer to a decision is worked
out once per distinct decision state (equal states have equal futures: the rules never read the
log, so states are compared without it). When the tree has more than ``max_plays`` leaves - or,
for ``method: "auto"``, when walking it is estimated to cost more than ``EXACT_BUDGET_S``
(module ``method``) - the answer is estimated from independent samples instead (``method:
"sampled"``), each probability with its standard error. No die of the match is ever used.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import cast

import msgspec
from msgspec.structs import replace

from ..match.actions import Action, Concede, Decide, PlayAction, TakebackAnswer, TakebackRequest, Undo
from ..match.rejection import Rejection, reject
from ..match.state import Decision, MatchState, Side
from ..match.suspend import answer_of, decode_action
from ..match.validate import validate
from ..rules.memo import memo_scope
from .aggregate import aggregate
from .answer import BEST_ANSWER, MethodChoice, OddsAnswer
from .dice_sources import FaceStream, Script, TooManyDice, uniform_choice
from .method import EXACT_BUDGET_S, PlayTimer, ProbeEstimate, estimated_leaves, walk_exactly, walk_limit
from .observe import amount, measure_of
from .plays import Answer, Play, Resume, play, tokenised
from .stopping import Event, events_of, largest_se
from .tree import Leaf, Tree

# Leaves walked before the exact answer gives way to the sampled one (a sampled answer plays the
# rules at most DEFAULT_SAMPLES times, usually far fewer: its samples share plays, module ``tree``).
# ``auto`` also samples a smaller tree whose walk would cost more than EXACT_BUDGET_S (``method``).
MAX_EXACT_PLAYS = 3000
# The most samples of a sampled answer: the standard error of any probability is then at most
# sqrt(0.25 / 2500) = 1%.
DEFAULT_SAMPLES = 2500
MAX_SAMPLES = 100_000
# A sampled answer stops early, at the end of a batch of SAMPLE_BATCH samples and with at least
# MIN_SAMPLES, once the standard error of every probability it reports is at most TARGET_SE
# (module ``stopping``).
TARGET_SE = 0.01
SAMPLE_BATCH = 250
MIN_SAMPLES = 500
# Samples behind each option of a decision when its tree is too large to walk, and the share of
# the exact budget each option may walk.
DECISION_SAMPLES = 400
DECISION_BUDGET_SHARE = 4
# Decisions nested deeper than this (a decision raised while weighing another) take their first
# option.
MAX_DECISION_DEPTH = 3
# Random plays made first (the probe): PROBE_PLAYS drawn by their probability (the first samples
# of a sampled answer) and, unless the answer is sampled, UNIFORM_PROBE_PLAYS taking a uniformly
# chosen branch at each roll, whose mean product of branches is Knuth's estimate of the number
# of leaves (module ``method``: a tree estimated above PROBE_MARGIN times ``max_plays`` leaves is
# sampled without trying to walk it; ``auto`` weighs the estimated cost of the walk). Every play
# of the probe is timed and kept in the tree of plays.
PROBE_PLAYS = 32
UNIFORM_PROBE_PLAYS = 32
# The seed of the sampled stream: a constant of this module, never the match's seed.
SAMPLE_SEED = 0x6F646473  # "odds"
# The stream of the probe's uniform choices is seeded with SAMPLE_SEED ^ UNIFORM_SALT.
UNIFORM_SALT = 0x756E69666F726D  # "uniform"
# CPU seconds of the computing thread an answer may take (the route computes in a worker thread;
# docs/odds.md, "What an answer may cost"). Weighing the options of decisions - each a
# distribution of its own, nested up to MAX_DECISION_DEPTH deep - stops after WEIGH_BUDGET_S: a
# decision state not weighed by then takes its first option (policy ``first_option``). A sampled
# answer draws no further batch after SAMPLING_BUDGET_S (it has fewer samples, each standard error
# says so). Past MAX_ANSWER_CPU_S the answer is refused (``odds_too_costly``): an exact walk of
# many costly plays, which no budget above cuts short, would otherwise hold a core for minutes.
WEIGH_BUDGET_S = 1.0
SAMPLING_BUDGET_S = 3.0
MAX_ANSWER_CPU_S = 10.0
# Decision states are compared by this encoding: maps in key order, so two equal states whose
# units were updated in another order are one state.
_state_key = msgspec.msgpack.Encoder(order="deterministic")


@dataclass(frozen=True)
class OddsOptions:
    method: MethodChoice = "auto"
    samples: int = DEFAULT_SAMPLES
    max_plays: int = MAX_EXACT_PLAYS
    choices: dict[str, str] = field(default_factory=dict)
    sample_seed: int = SAMPLE_SEED
    # 0: a sampled answer always takes ``samples`` samples.
    target_se: float = TARGET_SE
    # False: walk the six faces of every roll (the merged walk's reference, tests/odds).
    equal_faces: bool = True
    # CPU seconds an ``auto`` answer's estimated exact walk may cost (module ``method``).
    exact_budget_s: float = EXACT_BUDGET_S
    # CPU seconds after which no decision is weighed, no sample batch drawn, the answer refused.
    weigh_budget_s: float = WEIGH_BUDGET_S
    sampling_budget_s: float = SAMPLING_BUDGET_S
    max_cpu_s: float = MAX_ANSWER_CPU_S


class AnswerTooCostly(Exception):
    """The answer has taken more than ``OddsOptions.max_cpu_s`` CPU seconds."""


@dataclass(frozen=True)
class Distribution:
    """Plays with their weights (summing to 1); ``samples`` the samples behind a sampled one."""

    exact: bool
    plays: list[tuple[float, Play]]
    samples: int = 0


class _Engine:
    def __init__(self, options: OddsOptions) -> None:
        self.options = options
        self._best: dict[bytes, str] = {}
        # Exact distributions of the play from a decision state answered an option.
        self._exact_then: dict[tuple[bytes, str], list[tuple[float, Play]]] = {}
        self._weighed: set[tuple[bytes, str]] = set()
        self._depth = 0
        self._started = time.thread_time()

    def spent(self) -> float:
        """CPU seconds of this thread since the answer began."""
        return time.thread_time() - self._started

    def _play(
        self, state: MatchState, side: Side, action: PlayAction, script: Script, resume: Resume | None
    ) -> Play:
        if self.spent() > self.options.max_cpu_s:
            raise AnswerTooCostly()
        return play(state, side, action, script, self.choose, resume)

    def distribution(
        self,
        state: MatchState,
        side: Side,
        action: PlayAction,
        *,
        samples: int,
        max_plays: int,
        method: MethodChoice = "exact",
        resume: Resume | None = None,
    ) -> Distribution:
        """The distribution of the play; ``method`` as the answer's (``exact``: walk any tree
        of at most ``max_plays`` leaves, ``auto``: only one whose walk fits the budget).
        ``resume``: ``action`` is one the match paused on (plays.Resume)."""
        stream = FaceStream(self.options.sample_seed)
        timer = PlayTimer()
        tree = Tree(
            timer.timed(lambda script: self._play(state, side, action, script, resume)),
            equal_faces=self.options.equal_faces,
        )
        probe = [tree.sample(stream) for _ in range(min(PROBE_PLAYS, samples))]
        leaves = math.inf
        if method != "sampled":
            # Knuth's estimate of the number of leaves (module doc of ``method``); the uniform
            # choices from their own stream, a constant of the engine.
            choose = uniform_choice(FaceStream(self.options.sample_seed ^ UNIFORM_SALT))
            with contextlib.suppress(TooManyDice):  # a play too long to walk: the tree is sampled
                uniform = [tree.uniform(choose) for _ in range(UNIFORM_PROBE_PLAYS)]
                leaves = estimated_leaves([1.0 / leaf.weight for leaf in probe], uniform)
        estimate = ProbeEstimate(leaves, tree.leaves, timer.per_play())
        budget = self.options.exact_budget_s
        if walk_exactly(method, estimate, max_plays, budget):
            walked = tree.walk(walk_limit(method, estimate, max_plays, budget))
            if walked is not None:
                plays = [(leaf.weight * w, p) for leaf in walked for w, p in leaf.play.continued()]
                return Distribution(True, plays)
        return Distribution(False, *self._sampled(tree, stream, action, probe, samples))

    def _sampled(
        self, tree: Tree, stream: FaceStream, action: PlayAction, drawn: list[Leaf], samples: int
    ) -> tuple[list[tuple[float, Play]], int]:
        """Samples after the probe, until ``samples`` or every standard error is small enough."""
        seen: dict[int, dict[Event, float]] = {}
        counts: dict[Event, float] = {}
        target = self.options.target_se

        def count(batch: list[Leaf]) -> None:
            """Add a batch's samples to the event counts (each distinct play once)."""
            leaves = {id(leaf): leaf for leaf in batch}
            for k, n in Counter(id(leaf) for leaf in batch).items():
                events = seen.get(k)
                if events is None:
                    events = seen[k] = {}
                    for w, p in leaves[k].play.continued():
                        for event in events_of(p, action):
                            events[event] = events.get(event, 0.0) + w
                for event, w in events.items():
                    counts[event] = counts.get(event, 0.0) + n * w

        counted = 0
        # A distribution weighing a decision's option samples within the weighing budget.
        budget = self.options.weigh_budget_s if self._depth > 0 else self.options.sampling_budget_s
        while len(drawn) < samples and self.spent() <= budget:
            for _ in range(min(SAMPLE_BATCH - len(drawn) % SAMPLE_BATCH, samples - len(drawn))):
                drawn.append(tree.sample(stream))
            if target > 0 and len(drawn) >= MIN_SAMPLES and len(drawn) < samples:
                count(drawn[counted:])
                counted = len(drawn)
                if largest_se(counts, len(drawn)) <= target:
                    break
        return _merged(drawn), len(drawn)

    def choose(self, state: MatchState, decision: Decision) -> Answer:
        """The policy: a fixed choice for the kind if asked for, else the owner's best answer;
        with the exact distribution of the play from the decision on when there is one."""
        fixed = self.options.choices.get(decision.kind)
        if fixed is not None and fixed in decision.options:
            return fixed, "choice", self._then(state, decision, fixed)
        if len(decision.options) == 1:
            return decision.options[0], "best_answer", None
        if self._depth >= MAX_DECISION_DEPTH:
            return decision.options[0], "first_option", None
        key = _state_key.encode(replace(state, log=(), log_count=0))
        known = self._best.get(key)
        if known is not None:
            return known, "best_answer", self._exact_then.get((key, known))
        if self.spent() > self.options.weigh_budget_s:
            return decision.options[0], "first_option", None
        best, best_score = decision.options[0], math.inf
        for option in decision.options:
            dist = self._option(state, decision, option, key)
            score = _loss_balance(dist, decision.side)
            if score < best_score - 1e-12:
                best, best_score = option, score
        self._best[key] = best
        return best, "best_answer", self._exact_then.get((key, best))

    def _option(
        self, state: MatchState, decision: Decision, option: str, key: bytes, samples: int = DECISION_SAMPLES
    ) -> Distribution:
        """The distribution of the play from a decision answered ``option`` (kept when exact:
        every play reaching this decision state with this answer goes on as it)."""
        self._depth += 1
        try:
            dist = self.distribution(
                state,
                decision.side,
                Decide(decision.id, option),
                samples=samples,
                max_plays=max(1, self.options.max_plays // DECISION_BUDGET_SHARE),
            )
        finally:
            self._depth -= 1
        if dist.exact:
            self._exact_then[(key, option)] = dist.plays
        return dist

    def _then(self, state: MatchState, decision: Decision, option: str) -> list[tuple[float, Play]] | None:
        if self._depth >= MAX_DECISION_DEPTH or self.spent() > self.options.weigh_budget_s:
            return None
        key = _state_key.encode(replace(state, log=(), log_count=0))
        if (key, option) not in self._exact_then and (key, option) not in self._weighed:
            self._weighed.add((key, option))
            # Only an exact continuation is of use here: a tree too large costs just its probe.
            self._option(state, decision, option, key, samples=PROBE_PLAYS)
        return self._exact_then.get((key, option))


def _merged(drawn: list[Leaf]) -> list[tuple[float, Play]]:
    """Samples of the same play are one play weighing their share of the samples (a play that
    goes on from a decision is each of its continuations, weighed within that share)."""
    leaves = {id(leaf): leaf for leaf in drawn}
    counts = Counter(id(leaf) for leaf in drawn)
    return [(counts[k] / len(drawn) * w, p) for k, leaf in leaves.items() for w, p in leaf.play.continued()]


def _loss_balance(dist: Distribution, side: Side) -> float:
    """Expected Hull Points / wounds ``side`` loses minus those its opponent loses."""
    total = 0.0
    for weight, p in dist.plays:
        for uid, before in p.start.units.items():
            after = p.end.units.get(uid, before)
            measure = measure_of(before)
            lost = amount(before, measure) - amount(after, measure)
            total += weight * (lost if before.side == side else -lost)
    return total


def compute_odds(
    state: MatchState, side: Side, action: Action, options: OddsOptions | None = None
) -> OddsAnswer | Rejection:
    """The odds of ``side`` taking ``action`` now, or the rejection validation gives it."""
    options = options or OddsOptions()
    if isinstance(action, Undo | TakebackRequest | TakebackAnswer | Concede):
        return reject(
            "odds_not_applicable",
            "docs/odds.md",
            f"{type(action).__name__} rolls no dice and changes no unit: there are no odds to give",
        )
    rejection = validate(state, side, action)
    if rejection is not None:
        return rejection
    start, actor, played, resume = _paused_or_not(state, side, action)
    engine = _Engine(options)
    samples = max(1, min(options.samples, MAX_SAMPLES))
    try:
        with memo_scope():
            dist = engine.distribution(
                tokenised(start),
                actor,
                played,
                samples=samples,
                max_plays=options.max_plays,
                method=options.method,
                resume=resume,
            )
    except AnswerTooCostly:
        return reject(
            "odds_too_costly",
            "docs/odds.md, What an answer may cost",
            f"the answer took more than {options.max_cpu_s:g} s of CPU and was stopped; ask with "
            f'method "sampled" (its samples stop at {options.sampling_budget_s:g} s) or a smaller max_plays',
            limit_s=options.max_cpu_s,
        )
    answer = aggregate(
        start,
        side,
        played,
        dist.plays,
        samples=dist.samples,
        choices=options.choices,
        policy=BEST_ANSWER,
    )
    if played is not action:  # the answer names the action asked about
        answer = replace(answer, action=msgspec.to_builtins(action))
    return answer


def _paused_or_not(
    state: MatchState, side: Side, action: Action
) -> tuple[MatchState, Side, PlayAction, Resume | None]:
    """What to play: the action itself; or, for the answer to a decision taken in the middle of
    an action the match paused on (docs/decisions.md), that action again from its start by its
    side, with the dice it drew and the answers it has (the reducer resumes it so,
    match/suspend.py). The outcome is then the whole action's, from the state before it."""
    paused = state.suspended
    if not isinstance(action, Decide) or paused is None:
        return state, side, cast(PlayAction, action), None
    start = replace(state, pending=paused.before, suspended=None)
    resume = Resume(paused.faces, (*paused.answers, answer_of(action)))
    return start, paused.by, decode_action(paused.action), resume
