"""One play of an action: the action applied by the rules core with a given dice source, then
every decision it raises answered by a policy, as the reducer would apply the answers. A decision
taken in the middle of the action (docs/decisions.md) is answered inside the fold with the
server's proposal (``context.Proposing``); the play notes it among the decisions it raised.

The state a play starts from has every unit renamed to a token naming its id (``unit_token``),
so the combat log the play writes can be attributed to units without ambiguity (two units may
share a name). Names only ever reach log text, never a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from msgspec.structs import replace

from ..match.actions import Decide, PlayAction
from ..match.editions import rules_for
from ..match.state import Answer as GivenAnswer
from ..match.state import Decision, LogEntry, MatchState, Side
from .answer import DecisionPolicy as Policy
from .context import OddsContext
from .dice_sources import Script

# An action raising more decisions than this in one play stops answering them (the answer
# reports the decision still pending). Decisions taken in the middle of the action (answered
# inside the fold) do not count.
MAX_DECISIONS = 8
PROPOSAL: Policy = "proposal"
_TOKEN = re.compile("\u27e6([^\u27e7]+)\u27e7")

# The policy's answer to a decision: the option, how it was chosen, and - when the engine already
# knows the exact distribution of the play from the decision on - that distribution, so the play
# stops there.
Answer = tuple[str, Policy, "list[tuple[float, Play]] | None"]
Chooser = Callable[[MatchState, Decision], Answer]


def unit_token(uid: str) -> str:
    return f"\u27e6{uid}\u27e7"


def tokens_in(text: str) -> list[str]:
    """Unit ids named in a log line of a play, in order of appearance."""
    return _TOKEN.findall(text)


def untokenised(text: str, names: dict[str, str]) -> str:
    """A play's text with the unit tokens turned back into the units' names."""
    return _TOKEN.sub(lambda m: names.get(m.group(1), m.group(1)), text)


def tokenised(state: MatchState) -> MatchState:
    """The state with every unit's name replaced by its token (see module doc)."""
    units = {uid: replace(unit, name=unit_token(uid)) for uid, unit in state.units.items()}
    return replace(state, units=units, log=())


@dataclass(frozen=True)
class Raised:
    """A decision the play raised, the option the policy chose and how (``policy``)."""

    kind: str
    side: Side
    rule: str
    options: tuple[str, ...]
    chosen: str
    prompt: str
    policy: Policy


def proposed(decision: Decision) -> Raised:
    """A decision taken in the middle of the action, answered with the server's proposal."""
    return Raised(
        decision.kind,
        decision.side,
        decision.rule,
        decision.options,
        decision.proposal,
        decision.prompt,
        PROPOSAL,
    )


@dataclass(frozen=True)
class Play:
    """One play. ``then``: the play stopped at a decision the policy answered (the last of
    ``raised``), and goes on as each of these weighted plays from that decision's state."""

    start: MatchState
    end: MatchState
    entries: tuple[LogEntry, ...]
    raised: tuple[Raised, ...]
    pending: Decision | None
    then: list[tuple[float, Play]] | None = None
    # What the answer has read from this play already (module ``observe``): a play is read by
    # the stopping checks and again by the aggregation.
    read: dict[object, object] = field(default_factory=dict, compare=False, repr=False)

    def continued(self) -> list[tuple[float, Play]]:
        """The play as whole plays with their weights (itself, or itself joined to each play
        that goes on from its decision)."""
        if self.then is None:
            return [(1.0, self)]
        return [
            (w, Play(self.start, q.end, self.entries + q.entries, self.raised + q.raised, q.pending))
            for w, q in self.then
        ]


@dataclass(frozen=True)
class Resume:
    """An action the match paused on, in the middle, for a decision (match/suspend.py), played
    again from its start: ``faces`` are the dice it drew before pausing, handed out first;
    ``answers`` the answers to its decisions so far, the last being the one asked about."""

    faces: tuple[int, ...]
    answers: tuple[GivenAnswer, ...]


def _apply(
    state: MatchState,
    side: Side,
    action: PlayAction,
    script: Script,
    entries: list[LogEntry],
    raised: list[Raised],
    resume: Resume | None = None,
) -> MatchState:
    """The reducer's step for a game action (``match.reducer.evolve``): the edition applies the
    action with the event's dice (here the engine's script); the new state takes the event's seq.
    The decisions taken in its middle (answered with the proposal) are added to ``raised``."""
    seq = state.seq + 1
    first_n = state.log_count + len(entries)
    if resume is None:
        ctx = OddsContext(state.edition, seq, script, first_n)
    else:
        ctx = OddsContext(state.edition, seq, script, first_n, resume.faces, resume.answers)
    new = rules_for(state.edition).apply(state, side, action, ctx)
    ctx.flush()
    entries.extend(ctx.entries)
    raised.extend(proposed(d) for d in ctx.midway.asked)
    return replace(new, seq=seq)


def play(
    state: MatchState,
    side: Side,
    action: PlayAction,
    dice: Script,
    choose: Chooser,
    resume: Resume | None = None,
) -> Play:
    """Apply ``action`` by ``side`` then answer each decision it raises with ``choose`` (and stop
    at a decision whose continuation the engine already knows exactly). ``resume``: ``action``
    is one the match paused on, played again from its start (:class:`Resume`)."""
    entries: list[LogEntry] = []
    raised: list[Raised] = []
    new = _apply(state, side, action, dice, entries, raised, resume)
    answered = 0
    while new.pending is not None and answered < MAX_DECISIONS:
        decision = new.pending
        choice, policy, then = choose(new, decision)
        answered += 1
        raised.append(
            Raised(
                decision.kind, decision.side, decision.rule, decision.options, choice, decision.prompt, policy
            )
        )
        if then is not None:
            return Play(state, new, tuple(entries), tuple(raised), None, then)
        new = _apply(new, decision.side, Decide(decision.id, choice), dice, entries, raised)
    return Play(state, new, tuple(entries), tuple(raised), new.pending)
