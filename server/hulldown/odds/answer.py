"""The answer of the odds engine: plain msgspec structs, the JSON of ``POST /matches/{id}/odds``
and ``hulldown odds --json`` (docs/odds.md, client-protocol/SPEC.md section 9)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ..match.state import Side

Method = Literal["exact", "sampled"]
MethodChoice = Literal["auto", "exact", "sampled"]
# How a decision the action raises was answered in the plays: ``best_answer`` (its owner's best
# answer, as ``policy`` says), ``choice`` (the option ``choices`` fixed for its kind),
# ``first_option`` (a decision raised while weighing another more than engine.MAX_DECISION_DEPTH
# deep, or met after engine.WEIGH_BUDGET_S of CPU), ``proposal`` (a decision taken in the middle
# of the action, docs/decisions.md: the server's proposal, as with ``auto_decide``).
DecisionPolicy = Literal["best_answer", "choice", "first_option", "proposal"]
# The policy for the decisions an action raises: each decision is answered with the option that
# leaves its owner best off (fewest own Hull Points / wounds lost, most of the opponent's lost,
# in expectation); ``choices`` fix the option of a decision kind instead. A decision taken in the
# middle of an action (docs/decisions.md) takes the proposal: the rules run with the answerer of
# ``odds.context.Proposing``, which notes it for the answer's ``decisions``.
BEST_ANSWER = "best_answer"
BEST_ANSWER_NOTE = (
    "each decision the action raises is answered by its owner's best answer: the option with the "
    "fewest Hull Points / wounds the owner expects to lose, minus those the opponent expects to lose; "
    "a decision taken in the middle of an action (placing models, allocating a wound, aiming a blast "
    "marker or a template, a challenge) takes the server's proposal; decisions lists every decision "
    "the plays met, whose it is, how likely and how it was answered"
)


class Prob(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A probability ``p`` and its standard error ``se`` (0 when exact)."""

    p: float
    se: float = 0.0


class UnitOdds(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What the action may do to one unit. ``final`` maps a final Hull Point / wound count to its
    probability; ``damage_results`` each damage-table result (at least once); ``statuses`` each
    status gained; ``reaches`` a charge's success (the charging unit only)."""

    unit: str
    name: str
    side: Side
    measure: Literal["hp", "wounds"]
    start: int
    no_effect: Prob
    destroyed: Prob
    expected_lost: float
    expected_lost_se: float
    final: dict[str, Prob]
    summary: str
    glancing: Prob | None = None
    penetrating: Prob | None = None
    damage_results: dict[str, Prob] = {}
    statuses: dict[str, Prob] = {}
    reaches: Prob | None = None


class DecisionOdds(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A decision the action may raise - before its dice or in their middle (docs/decisions.md):
    whose (``side``), under which ``rule``, the chance the action raises it at least once
    (``raised``), the options offered, how it was answered (``policy``: the one that answered it
    in the likeliest share of the plays) and the chance each option is chosen at least once."""

    kind: str
    side: Side
    rule: str
    raised: Prob
    options: tuple[str, ...]
    chosen: dict[str, Prob]
    policy: DecisionPolicy
    prompt: str


class OddsAnswer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The distribution of an action's outcomes at the match's current state."""

    edition: str
    seq: int
    by: Side
    action: dict[str, Any]
    method: Method
    plays: int
    samples: int
    policy: str
    choices: dict[str, str]
    units: list[UnitOdds]
    decisions: list[DecisionOdds]
    summary: list[str]
    still_pending: Prob
    policy_note: str = BEST_ANSWER_NOTE
