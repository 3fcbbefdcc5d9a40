"""Each edition declares once, in its dispatch table, how it handles every kind of play action
(match/dispatch.py): a table that leaves a kind neither handled nor unsupported fails here."""

from __future__ import annotations

import typing

import pytest

from hulldown.match import actions
from hulldown.match.context import ApplyContext
from hulldown.match.dispatch import DispatchTable
from hulldown.match.editions import EDITIONS
from hulldown.match.state import MatchState
from hulldown.rules.dice import FixedDice
from hulldown.wire import protocol


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_edition_declares_every_play_action(edition: str) -> None:
    table = EDITIONS[edition]
    assert table.edition == edition
    assert table.missing() == []


def test_a_table_that_forgets_a_kind_is_reported() -> None:
    table = DispatchTable("toy", ("only",), "toy rule")
    table.on(actions.EndPhase, lambda state, side, action: None, lambda state, side, action, ctx: state)
    missing = table.missing()
    assert "Move" in missing and "Abandon" in missing and "EndPhase" not in missing
    assert "Decide" not in missing  # decide is dispatched by decision kind


def test_a_kind_declared_twice_is_refused() -> None:
    table = DispatchTable("toy", ("only",), "toy rule")
    table.unsupported(actions.Abandon, "toy rule", "no squadrons")
    with pytest.raises(ValueError, match="declared twice"):
        table.unsupported(actions.Abandon, "toy rule", "no squadrons")


def test_unsupported_kinds_are_refused_and_change_nothing() -> None:
    table = DispatchTable("toy", ("only",), "toy rule")
    table.unsupported(actions.Abandon, "toy rule 7", "no squadrons here")
    state = MatchState(match_id="m", edition="40k7", seq=3)
    action = actions.Abandon(unit="u", model="m1")
    rejection = table.validate(state, "a", action)
    assert rejection is not None
    assert (rejection.code, rejection.rule, rejection.message) == (
        "unsupported_action",
        "toy rule 7",
        "no squadrons here",
    )
    assert table.apply(state, "a", action, ApplyContext(4, FixedDice([]), 0)) is state


def test_the_play_actions_and_the_shared_actions_make_up_the_protocol_actions() -> None:
    play = set(typing.get_args(actions.PlayAction))
    shared = set(typing.get_args(actions.SharedAction))
    assert play == set(actions.PLAY_ACTION_KINDS)
    assert not play & shared
    assert play | shared == set(typing.get_args(actions.Action))
    assert set(typing.get_args(actions.Action)) == set(
        typing.get_args(typing.get_type_hints(protocol.Act)["action"])
    )
