"""Takebacks (docs/architecture.md section 9): a request the opponent grants or declines (with an
event for each), applied only when granted; it may reach back into earlier turns; dice cannot be
fished (a redone shot rolls fresh dice bound to its new seq)."""

from __future__ import annotations

from hulldown.match.actions import Concede, Fire, Shoot, TakebackAnswer, TakebackRequest, Undo
from hulldown.match.history import game_hash
from hulldown.match.reducer import state_hash
from hulldown.match.timeline import fold_history
from hulldown.rules.dice import derive_die

from .driver import END, MATCH, SEED, Driver, dice_for, predator_move, rhino_move

SHOOT = Shoot(unit="predator-1", fire=(Fire(weapon="lascannon", target="rhino-1"),))


def _shot(match: Driver) -> tuple[int, int]:
    """Side a ends its movement phase and shoots; returns (seq before the shot, shot seq)."""
    match.ok("a", END)
    before = match.state.seq
    return before, match.ok("a", SHOOT)


def test_granted_takeback_restores_the_state_before_a_shot_and_the_redo_rolls_fresh_dice() -> None:
    match = Driver()
    before, shot = _shot(match)
    restored_hash = game_hash(match.timeline.state_at(before))
    first_rolls = match.event_rolls(shot)
    assert first_rolls and all(r.value == derive_die(SEED, MATCH, shot, r.i) for r in first_rolls)

    request = match.ok("a", TakebackRequest(to_seq=before))
    assert match.state.takeback == {"by": "a", "to_seq": str(before), "seq": str(request)}
    assert game_hash(match.state) != restored_hash  # nothing is applied before the answer
    grant = match.ok("b", TakebackAnswer(grant=True))

    assert game_hash(match.state) == restored_hash
    assert match.state.takeback == {}
    assert match.state.last_undo is not None and match.state.last_undo.kind == "takeback"
    assert match.log_texts()[-2:] == [
        f"Side a asks to take the match back to seq {before}; side b may grant or decline.",
        f"Side b grants side a's takeback: the state as of seq {before} is restored.",
    ]

    redo = match.ok("a", SHOOT)
    assert redo == grant + 1
    redo_rolls = match.event_rolls(redo)
    # Dice are bound to the new seq: re-derivable from it, and not the first shot's dice.
    assert [r.value for r in redo_rolls] == [derive_die(SEED, MATCH, redo, r.i) for r in redo_rolls]
    first_faces = [derive_die(SEED, MATCH, shot, i) for i in range(4)]
    redo_faces = [derive_die(SEED, MATCH, redo, i) for i in range(4)]
    assert first_faces != redo_faces
    assert match.timeline.undone_by == {shot: grant}


def test_declined_takeback_changes_nothing_but_the_log() -> None:
    match = Driver()
    before, _shot_seq = _shot(match)
    shot_hash = game_hash(match.state)
    match.ok("a", TakebackRequest(to_seq=before))
    match.ok("b", TakebackAnswer(grant=False))
    assert game_hash(match.state) == shot_hash
    assert match.state.takeback == {}
    assert match.log_texts()[-1] == f"Takeback to seq {before}: side b declines it."
    assert match.timeline.undone_by == {}


def test_pending_takeback_holds_the_match_until_answered() -> None:
    match = Driver()
    before, _ = _shot(match)
    match.ok("a", TakebackRequest(to_seq=before))
    for side, action in (("a", END), ("a", Undo()), ("b", TakebackRequest(to_seq=1))):
        rejection = match.rejected(side, action)  # type: ignore[arg-type]
        assert rejection.code == "takeback_pending"
        assert rejection.values == {"by": "a", "to_seq": before}
    own = match.rejected("a", TakebackAnswer(grant=True))
    assert own.code == "own_takeback"
    match.ok("a", TakebackAnswer(grant=False))  # the requester withdraws
    assert match.state.takeback == {} and match.log_texts()[-1].endswith("side a withdraws it.")
    assert match.rejected("b", TakebackAnswer(grant=True)).code == "no_takeback_pending"
    match.ok("a", END)


def test_a_takeback_may_reach_back_into_earlier_turns() -> None:
    match = Driver()
    match.ok("a", predator_move())  # 2 (turn 1, side a)
    target = match.state.seq
    target_hash = game_hash(match.state)
    for _ in range(3):
        match.ok("a", END)  # 3, 4, 5
    match.ok("b", rhino_move())  # 6 (side b's turn)
    for _ in range(3):
        match.ok("b", END)  # 7, 8, 9 -> turn 2, side a
    assert match.state.turn == 2 and match.state.active == "a"

    match.ok("a", TakebackRequest(to_seq=target))
    match.ok("b", TakebackAnswer(grant=True))
    state = match.state
    assert game_hash(state) == target_hash
    assert (state.turn, state.active, state.phase) == (1, "a", "movement")
    assert sorted(match.timeline.undone_by) == [3, 4, 5, 6, 7, 8, 9]
    # The turn/phase index keeps the undone branch, marked.
    undone_turns = [p for p in match.timeline.turns() if p.undone_by is not None]
    assert [(p.turn, p.seq) for p in undone_turns] == [(2, 9)]
    folded = fold_history(MATCH, match.timeline.events, dice_for)
    assert state_hash(folded) == state_hash(state)


def test_takeback_targets_must_be_on_the_line_of_play() -> None:
    match = Driver()
    match.ok("a", predator_move())  # 2
    match.ok("a", END)  # 3 -> shooting (the state as of 3 is in an undone branch after 4)
    match.ok("a", Undo())  # 4 -> as of 2
    match.ok("a", END)  # 5 -> shooting again
    match.ok("a", SHOOT)  # 6
    rejection = match.rejected("a", TakebackRequest(to_seq=3))
    assert rejection.code == "not_on_line"
    assert "seq 3 is not a state on the current line" in rejection.message
    assert match.rejected("a", TakebackRequest(to_seq=6)).code == "bad_takeback_target"
    assert match.rejected("a", TakebackRequest(to_seq=0)).code == "bad_takeback_target"
    for target in (5, 2, 1):
        assert match.act("a", TakebackRequest(to_seq=target)) is None
        match.ok("a", TakebackAnswer(grant=False))


def test_undo_of_a_turn_taken_back_by_the_opponent_needs_consent_too() -> None:
    """Side b asks to take back side a's move (its consent is a's grant): the rules are symmetric."""
    match = Driver()
    match.ok("a", predator_move())
    match.ok("b", TakebackRequest(to_seq=1))
    match.ok("a", TakebackAnswer(grant=True))
    assert match.state.line is None
    assert match.state.units["predator-1"].models["predator-1-m"].pos.x == 10.0


def test_concede_is_allowed_while_a_takeback_is_pending() -> None:
    match = Driver()
    before, _ = _shot(match)
    match.ok("a", TakebackRequest(to_seq=before))
    match.ok("b", Concede())
    assert match.state.ended and match.state.winner == "a" and match.state.end_reason == "concession"
    assert match.rejected("a", Undo()).code == "match_ended"
    # The match is over: no request is left pending in its final state (nor in its views).
    assert match.state.takeback == {}
    assert match.rejected("b", TakebackAnswer(grant=True)).code == "match_ended"
