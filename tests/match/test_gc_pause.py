"""The cyclic collector is paused while a timeline folds many events in a row
(match/gc_pause.py; docs/architecture.md section 7, "Cold fold"): off inside, back as it was
after, one shared count for nested and concurrent folds - and a fold makes no reference cycles,
so pausing the collector keeps no garbage alive."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from hulldown.match.actions import Pivot
from hulldown.match.gc_pause import collections_paused
from hulldown.match.timeline import Timeline, fold_history
from tests.undo.driver import END, MATCH, Driver, dice_for, predator_move, rhino_move


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collector_is_off_inside_and_back_on_after(collector_on: None) -> None:
    with collections_paused():
        assert not gc.isenabled()
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer fold still holds it off
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on: None) -> None:
    gc.disable()
    with collections_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_collector_comes_back_after_an_exception(collector_on: None) -> None:
    with pytest.raises(KeyError), collections_paused():
        raise KeyError("boom")
    assert gc.isenabled()


def test_concurrent_folds_turn_it_back_on_only_after_the_last(collector_on: None) -> None:
    first_inside, second_done, release = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def long_fold() -> None:
        with collections_paused():
            first_inside.set()
            release.wait(10)

    def short_fold() -> None:
        first_inside.wait(10)
        with collections_paused():
            pass
        seen.append(gc.isenabled())  # the long fold is still running
        second_done.set()

    threads = [threading.Thread(target=long_fold), threading.Thread(target=short_fold)]
    for thread in threads:
        thread.start()
    assert second_done.wait(10)
    release.set()
    for thread in threads:
        thread.join(10)
    assert seen == [False]
    assert gc.isenabled()


def _played_log() -> Driver:
    """Two game turns of the duel: moves, a pivot and every phase end, both sides."""
    match = Driver()
    for turn in range(2):
        match.ok("a", predator_move(14.0) if turn == 0 else Pivot(unit="predator-1", heading=30.0))
        for _ in range(3):
            match.ok("a", END)
        match.ok("b", rhino_move(36.0 - turn))
        for _ in range(3):
            match.ok("b", END)
    return match


def test_a_cold_fold_makes_no_reference_cycles(collector_on: None) -> None:
    events = _played_log().timeline.events
    assert len(events) > 15
    gc.collect()
    gc.disable()
    try:
        folded = fold_history(MATCH, events, dice_for)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert folded.seq == events[-1].seq
    assert unreachable == 0, f"the fold left {unreachable} objects in reference cycles"


def test_extend_folds_the_same_state_as_pushing_one_by_one(collector_on: None) -> None:
    played = _played_log()
    one_by_one = Timeline(MATCH, dice_for)
    for event in played.timeline.events:
        one_by_one.push(event)
    extended = Timeline(MATCH, dice_for)
    assert extended.extend(played.timeline.events) == one_by_one.state == played.state
    assert gc.isenabled()
