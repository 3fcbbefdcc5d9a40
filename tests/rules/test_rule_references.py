"""What users read cites what users have: every rejection's rule and every log line's rule names
an edition's rule section (40k7 / hh3 / 40k11) or a page of this repository's documentation -
never an internal design document, the shared rules digest, a seed or an issue."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

from hulldown.match.dice_binding import event_dice
from hulldown.match.events import Event
from hulldown.match.reducer import evolve_logged
from hulldown.match.scenario import match_created
from hulldown.match.state import MatchState, Options
from hulldown.wire.rejection_catalogue import catalogue

CITES = re.compile(r"^(40k7 |hh3 |40k11 |docs/[a-z-]+\.md|client-protocol/SPEC\.md)")
FORBIDDEN = re.compile(r"DESIGN|RULES|\bseed\b|\bissue")


def test_every_rejection_rule_cites_an_edition_section_or_a_docs_page() -> None:
    bad = [
        (code, r.rule)
        for code, raised in catalogue().items()
        for r in raised
        if not r.rule.startswith("{") and (not CITES.match(r.rule) or FORBIDDEN.search(r.rule))
    ]
    assert bad == []


def test_docs_pages_cited_exist() -> None:
    root = Path(__file__).resolve().parents[2]
    pages = {
        m.group(0)
        for raised in catalogue().values()
        for r in raised
        if (m := re.match(r"(docs/[a-z-]+\.md|client-protocol/SPEC\.md)", r.rule))
    }
    assert pages and all((root / page).is_file() for page in pages)


def test_every_log_line_of_a_40k7_game_has_a_rule_citing_a_section() -> None:
    """A random 40k7 game (the playthrough's scenario): every line it writes has a rule that cites
    a section or a docs page, and no bare "dice rolled" line, no "(s)" plurals, no raw floats."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from wh40k7.random_play import battle_scenario, choose

    seed = b"0123456789abcdef0123456789abcdef"
    rules: set[str] = set()
    texts: list[str] = []
    for game in (1,):
        match_id, rng = f"refs-{game}", random.Random(game)
        created = match_created("40k7", battle_scenario(), Options(), "c")
        event = Event(seq=1, at=0.0, by="system", action_id="c", body=created)
        state, _ = evolve_logged(
            MatchState(match_id=match_id, edition="40k7", seq=0), event, event_dice(seed, match_id, event)
        )
        key, in_phase = None, 0
        for n in range(150):
            if state.ended or state.turn > 3:
                break
            side, action = choose(state, rng, in_phase)
            event = Event(seq=state.seq + 1, at=0.0, by=side, action_id=f"a{n}", body=action)
            state, lines = evolve_logged(state, event, event_dice(seed, match_id, event))
            rules.update(line.rule for line in lines)
            texts.extend(line.text for line in lines)
            now = (state.active, state.phase, state.turn)
            in_phase, key = (in_phase + 1 if now == key else 0), now
    assert texts
    assert [r for r in rules if not CITES.match(r) or FORBIDDEN.search(r)] == []
    assert [
        t for t in texts if t == "dice rolled" or "(s)" in t or "(ies)" in t or re.search(r"\d\.\d{4,}", t)
    ] == []
