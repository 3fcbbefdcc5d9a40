"""Validation before append: the generic checks every edition shares, then the edition's own.

Validation and application are separate (docs/architecture.md section 2, One dispatch table per
edition): ``validate`` only reads the state at version ``v`` and returns a :class:`Rejection` or
``None``.
"""

from __future__ import annotations

from . import doc_refs
from .actions import (
    Action,
    Concede,
    Decide,
    EndPhase,
    Fight,
    Move,
    PlaceMarker,
    RollOff,
    Shoot,
    TakebackAnswer,
    TakebackRequest,
    Undo,
)
from .bounds import check_bounds
from .editions import rules_for
from .history import StateAt, check_history_action, check_pending_takeback
from .rejection import Rejection, reject
from .setup import check_setup
from .state import MatchState, Side
from .suspend import check_answer


def validate(
    state: MatchState, side: Side, action: Action, state_at: StateAt | None = None
) -> Rejection | None:
    """Is ``side`` allowed to take ``action`` in ``state``? ``None`` when legal. ``state_at``
    gives earlier states (the live runtime passes it so takeback targets are checked)."""
    out_of_bounds = check_bounds(action)
    if out_of_bounds is not None:
        return out_of_bounds
    if state.ended:
        return reject("match_ended", doc_refs.END_OF_MATCH, f"the match is over ({state.end_reason})")
    if isinstance(action, Concede):
        return None
    waiting = check_pending_takeback(state, side, action)
    if waiting is not None:
        return waiting
    if isinstance(action, Undo | TakebackRequest | TakebackAnswer):
        # Undo and takebacks are checked against the line of play (match/history.py); a
        # takeback's target is checked only when ``state_at`` can reach earlier states.
        return check_history_action(state, side, action, state_at)
    if state.pending is not None:
        pending = state.pending
        if not isinstance(action, Decide):
            return reject(
                "decision_pending",
                pending.rule,
                f"side {pending.side} must first answer decision {pending.id}: {pending.prompt}",
                decision=pending.id,
                side=pending.side,
            )
        if pending.side != side:
            return reject(
                "not_your_decision",
                pending.rule,
                f"decision {pending.id} belongs to side {pending.side}",
                decision=pending.id,
            )
        if action.decision != pending.id:
            return reject("unknown_decision", pending.rule, f"no pending decision {action.decision}")
        if action.choice not in pending.options:
            return reject(
                "invalid_choice",
                pending.rule,
                f"{action.choice!r} is not one of {', '.join(pending.options)}",
                choice=action.choice,
            )
        if action.place and pending.placement is None:
            return reject(
                "place_not_asked",
                pending.rule,
                f"decision {pending.id} places no models: answer it with a choice only",
                decision=pending.id,
            )
        if action.aim is not None and pending.aim is None:
            return reject(
                "aim_not_asked",
                pending.rule,
                f"decision {pending.id} aims nothing: answer it without aim",
                decision=pending.id,
            )
        if state.suspended is not None:
            # A decision in the middle of an action: its rules check the answer (match/suspend.py).
            return check_answer(state, action)
        return rules_for(state.edition).validate(state, side, action)
    if isinstance(action, Decide):
        return reject("no_decision_pending", doc_refs.DECISIONS, "there is no pending decision to answer")
    if side != state.active:
        return reject(
            "not_your_turn", doc_refs.TURNS, f"it is side {state.active}'s turn", active=state.active
        )
    if not isinstance(action, EndPhase | Decide | RollOff | PlaceMarker):
        unit = state.units.get(action.unit)
        if unit is None:
            return reject("unknown_unit", doc_refs.ACTING, f"no unit {action.unit!r}", unit=action.unit)
        if unit.side != side:
            return reject("not_your_unit", doc_refs.TURNS, f"unit {unit.id} belongs to side {unit.side}")
        if unit.destroyed:
            return reject("unit_destroyed", doc_refs.ACTING, f"unit {unit.id} has been destroyed")
    setup = check_setup(state, action)
    if setup is not None:
        return setup
    if (
        state.edition not in AIM_EDITIONS
        and isinstance(action, Shoot)
        and any(f.aim is not None for f in action.fire)
    ):
        return reject(
            "unsupported_field",
            "docs/decisions.md",
            f"aim is the 40k7 firer's aim of a blast marker or template; {state.edition} has no such rule",
        )
    if state.edition not in TARGET_MODEL_EDITIONS and _names_target_model(action):
        return reject(
            "unsupported_field",
            "docs/rules-notes.md (hh3, Paragon)",
            f"target_model is the hh3 Paragon's choice of model; {state.edition} has no such rule",
        )
    if isinstance(action, Fight) and action.smash and state.edition != "40k7":
        return reject(
            "unsupported_field",
            "docs/rules-notes.md (40k7, Close combat: Smash)",
            f"smash is the 40k7 Smash special rule's Smash Attack; {state.edition} has no such rule",
        )
    if isinstance(action, Move) and action.flight is not None and state.edition != "40k7":
        return reject(
            "no_hover_mode",
            doc_refs.ACTING,
            f"flight modes (Zoom / Hover) are 40k7 Flyer rules, not {state.edition}",
            edition=state.edition,
        )
    return rules_for(state.edition).validate(state, side, action)


# Editions whose firers aim blast markers and templates (docs/decisions.md): 40k7.
AIM_EDITIONS = ("40k7",)
# Editions whose rules let an attacker name the model its hits go to (hh3: the Paragon).
TARGET_MODEL_EDITIONS = ("hh3",)


def _names_target_model(action: Action) -> bool:
    if isinstance(action, Shoot):
        return any(f.target_model is not None for f in action.fire)
    if isinstance(action, Fight):
        return action.target_model is not None
    return False
