"""Phase orders of each edition and the shared 'end phase' handling."""

from __future__ import annotations

from ..match import doc_refs
from ..match.context import ApplyContext
from ..match.state import MatchState
from ..match.turns import next_phase

# 40k7 rulebook, "The Turn": Movement, Psychic, Shooting, Assault (the Psychic phase is played for
# vehicles with Psychic Pilot and passes at once when the side to play has no Psyker:
# rules/wh40k7/psychic.py).
PHASES_40K7: tuple[str, ...] = ("movement", "psychic", "shooting", "assault")
# hh3 core rules, "The Turn": Start, Movement, Shooting, Assault, End (with its Statuses sub-phase).
PHASES_HH3: tuple[str, ...] = ("start", "movement", "shooting", "assault", "end")
# 40k11 core rules, "The Battle Round": Command, Movement, Shooting, Charge, Fight.
PHASES_40K11: tuple[str, ...] = ("command", "movement", "shooting", "charge", "fight")


# What each edition calls a turn of both players, in the log (40k11 core rules, The Battle Round:
# battle rounds; 40k7 and hh3: game turns, "turn N"). The table's header says the same
# (web/static/js/panels.js TURN_WORD).
TURN_WORD: dict[str, str] = {"40k11": "battle round"}


def end_phase(state: MatchState, phases: tuple[str, ...], ctx: ApplyContext) -> MatchState:
    """Close the current phase; after the last phase the other side's player turn begins."""
    new = next_phase(state, phases)
    if new.active != state.active:
        word = TURN_WORD.get(state.edition, "turn")
        ctx.log(
            f"Side {state.active} ends its turn; {word} {new.turn}, side {new.active} to play.",
            doc_refs.TURNS,
        )
    else:
        ctx.log(f"{state.phase.capitalize()} phase over; {new.phase} phase.", doc_refs.TURNS)
    return new
