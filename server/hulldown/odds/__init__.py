"""Know the odds before you commit: the distribution of an action's outcomes under the rules
core, exact where the dice tree is small enough, sampled from independent dice otherwise
(docs/odds.md). Pure: no I/O, and never the match's dice."""

from .answer import BEST_ANSWER, DecisionOdds, OddsAnswer, Prob, UnitOdds
from .engine import DEFAULT_SAMPLES, MAX_EXACT_PLAYS, OddsOptions, compute_odds

__all__ = [
    "BEST_ANSWER",
    "DEFAULT_SAMPLES",
    "MAX_EXACT_PLAYS",
    "DecisionOdds",
    "OddsAnswer",
    "OddsOptions",
    "Prob",
    "UnitOdds",
    "compute_odds",
]
