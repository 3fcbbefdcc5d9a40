"""Free undo (docs/architecture.md section 9): a side may undo its own last action at once while
it revealed no dice and the opponent has not acted since; undo restores the exact state as of an
earlier seq (same game hash) by snapshot + fold; several in a row; across a phase boundary."""

from __future__ import annotations

import re
from pathlib import Path

from hulldown.match.actions import PLAY_ACTION_KINDS, Fire, Shoot, Undo
from hulldown.match.history import ACTION_LABELS, game_hash
from hulldown.match.reducer import state_hash
from hulldown.match.timeline import fold_history

from .driver import END, MATCH, Driver, dice_for, predator_move, rhino_move

SHOOT = Shoot(unit="predator-1", fire=(Fire(weapon="lascannon", target="rhino-1"),))


def test_undo_own_move_restores_the_exact_state_of_the_seq_before() -> None:
    match = Driver()
    before = match.state
    moved_at = match.ok("a", predator_move())
    assert match.state.units["predator-1"].models["predator-1-m"].pos.x == 14.0
    undo_at = match.ok("a", Undo())

    after = match.state
    assert undo_at == moved_at + 1 == 3  # the stream never rewinds
    assert after.seq == 3
    assert game_hash(after) == game_hash(before) == game_hash(match.timeline.state_at(1))
    assert state_hash(after) != state_hash(before)  # seq and log differ
    assert after.units == before.units and after.line is None
    assert after.last_undo is not None and (after.last_undo.seq, after.last_undo.to) == (3, 1)
    # The undone move stays in the log, followed by the undo's line.
    texts = match.log_texts()
    assert any(e.seq == 2 for e in after.log)
    assert texts[-1] == "Side a undoes its move (seq 2): the state as of seq 1 is restored."


def test_several_undos_in_a_row_walk_back_across_a_phase_boundary() -> None:
    """Same player turn: move (movement phase), end phase (-> shooting), then two undos."""
    match = Driver()
    at_1 = match.state
    match.ok("a", predator_move())
    at_2 = match.state
    match.ok("a", END)
    assert match.state.phase == "shooting"

    match.ok("a", Undo())  # takes back the end of the movement phase
    assert match.state.phase == "movement"
    assert game_hash(match.state) == game_hash(at_2)
    assert match.state.line is not None and match.state.line.seq == 2

    match.ok("a", Undo())  # then the move itself
    assert game_hash(match.state) == game_hash(at_1)
    assert match.state.line is None
    assert match.rejected("a", Undo()).code == "nothing_to_undo"

    # Play goes on from the restored state at fresh seqs.
    assert match.ok("a", predator_move(13.0)) == 6
    assert match.state.units["predator-1"].models["predator-1-m"].pos.x == 13.0


def test_undo_back_across_the_end_of_a_player_turn_while_the_opponent_has_not_acted() -> None:
    match = Driver()
    for _ in range(3):
        match.ok("a", END)
    assert match.state.active == "b"
    match.ok("a", Undo())
    assert match.state.active == "a" and match.state.phase == "assault"


def test_undo_of_an_action_that_revealed_dice_is_refused_with_the_reason() -> None:
    match = Driver()
    match.ok("a", END)
    shot = match.ok("a", SHOOT)
    rejection = match.rejected("a", Undo())
    assert rejection.code == "dice_revealed"
    assert rejection.values["seq"] == shot and rejection.values["to_seq"] == shot - 1
    assert "takeback" in rejection.message and f"seq {shot}" in rejection.message


def test_a_player_cannot_undo_the_opponents_action() -> None:
    match = Driver()
    match.ok("a", predator_move())
    rejection = match.rejected("b", Undo())
    assert rejection.code == "not_your_action"
    assert rejection.values == {"seq": 2, "by": "a"}
    assert "side a's" in rejection.message


def test_no_undo_after_the_opponent_acted() -> None:
    """Side a ends its turn; side b moves and undoes its own move: a's end of turn is the last
    action on the line again, but side b acted after it, so a needs a takeback."""
    match = Driver()
    for _ in range(3):
        ended = match.ok("a", END)
    match.ok("b", rhino_move())
    match.ok("b", Undo())
    assert match.state.line is not None and match.state.line.seq == ended and match.state.line.by == "a"
    rejection = match.rejected("a", Undo())
    assert rejection.code == "opponent_acted"
    assert rejection.values["seq"] == ended and rejection.values["opponent_seq"] == ended + 2
    assert "takeback" in rejection.message


def test_an_undo_refusal_names_the_action_as_a_player_reads_it() -> None:
    """The refusals name the action by its label ("your End Phase", "your Shooting", "the last
    action (Move ...)"), never by its wire tag ("end_phase")."""
    match = Driver()
    for _ in range(3):
        ended = match.ok("a", END)
    match.ok("b", rhino_move())
    match.ok("b", Undo())
    late = match.rejected("a", Undo())
    assert f"after your End Phase at seq {ended}" in late.message and "end_phase" not in late.message
    other = Driver()
    other.ok("a", predator_move())
    assert "the last action (Move at seq 2)" in other.rejected("b", Undo()).message
    other.ok("a", END)
    shot = other.ok("a", SHOOT)
    assert f"your Shooting at seq {shot} revealed" in other.rejected("a", Undo()).message


def test_the_history_fold_of_the_log_reproduces_the_live_state() -> None:
    match = Driver()
    match.ok("a", predator_move())
    match.ok("a", END)
    match.ok("a", Undo())
    match.ok("a", Undo())
    match.ok("a", predator_move(12.0))
    match.ok("a", END)
    match.ok("a", SHOOT)
    folded = fold_history(MATCH, match.timeline.events, dice_for)
    assert state_hash(folded) == state_hash(match.state)
    # Every earlier state too (refolded from the timeline's checkpoints).
    for seq in range(1, match.state.seq + 1):
        replay = fold_history(MATCH, match.timeline.events[:seq], dice_for)
        assert state_hash(match.timeline.state_at(seq)) == state_hash(replay)


def test_undone_actions_are_marked_not_hidden() -> None:
    match = Driver()
    match.ok("a", predator_move())  # 2
    match.ok("a", END)  # 3
    match.ok("a", Undo())  # 4 undoes 3
    match.ok("a", Undo())  # 5 undoes 2
    match.ok("a", predator_move(13.0))  # 6
    timeline = match.timeline
    assert timeline.undone_by == {3: 4, 2: 5}
    assert timeline.restores == {4: 2, 5: 1}
    assert [step.seq for step in timeline.line] == [6]
    assert [e.seq for e in timeline.events] == [1, 2, 3, 4, 5, 6]
    shooting = [p for p in timeline.phases if p.phase == "shooting"]
    assert len(shooting) == 1 and shooting[0].seq == 3 and shooting[0].undone_by == 4


def test_the_table_names_every_action_as_the_server_does() -> None:
    """The table's ACTION_LABELS (web/static/js/option-label.js) are the server's, and both name
    every play action."""
    js = (Path(__file__).parents[2] / "server/hulldown/web/static/js/option-label.js").read_text()
    body = js.split("export const ACTION_LABELS = {", 1)[1].split("};", 1)[0]
    table = dict(re.findall(r'(\w+): "([^"]*)"', body))
    assert table == ACTION_LABELS
    tags = {kind.__struct_config__.tag for kind in PLAY_ACTION_KINDS}
    assert tags <= set(ACTION_LABELS), tags - set(ACTION_LABELS)
