"""Scenarios: what a match starts from (units with profiles, positions, facings, terrain).

``POST /matches`` and ``hulldown simulate`` both turn a :class:`Scenario` into the first event of
a match, after checking it is coherent.
"""

from __future__ import annotations

from msgspec.structs import replace

from ..missions.model import Mission
from . import doc_refs
from .definition import DefinitionError, checked, read_definition, to_document
from .events import MatchCreated
from .problems import summary
from .rejection import Rejection, reject
from .rules_version import RULES_VERSION
from .scenario_types import CreateMatch, Scenario
from .state import Battlefield, Edition, Options, Terrain, Unit


def check_scenario(scenario: Scenario, edition: Edition | None = None) -> Rejection | None:
    """Every id unique, every unit with models, every model on the battlefield; given the
    ``edition``, every check of a match definition too (docs/match-definition.md)."""
    if edition is not None:
        definition = read_definition(to_document(CreateMatch(edition=edition, scenario=scenario)))
        found = definition if isinstance(definition, DefinitionError) else checked(definition)
        if isinstance(found, DefinitionError):
            first = found.problems[0]
            return reject(
                "bad_scenario",
                doc_refs.SCENARIO,
                summary(list(found.problems)),
                path=first.path,
                problems=len(found.problems),
            )
    seen: set[str] = set()
    model_ids: set[str] = set()
    bf = scenario.battlefield
    if bf.width <= 0 or bf.height <= 0:
        return reject("bad_scenario", doc_refs.SCENARIO, "the battlefield must have a positive size")
    for unit in scenario.units:
        if unit.id in seen:
            return reject("bad_scenario", doc_refs.SCENARIO, f"unit id {unit.id!r} is used twice")
        seen.add(unit.id)
        if not unit.models:
            return reject("bad_scenario", doc_refs.SCENARIO, f"unit {unit.id!r} has no models")
        for mid, model in unit.models.items():
            if mid != model.id:
                return reject(
                    "bad_scenario", doc_refs.SCENARIO, f"model key {mid!r} differs from its id {model.id!r}"
                )
            if mid in model_ids:
                return reject("bad_scenario", doc_refs.SCENARIO, f"model id {mid!r} is used twice")
            model_ids.add(mid)
            if (
                not (0 <= model.pos.x <= bf.width and 0 <= model.pos.y <= bf.height)
                and unit.embarked_in is None
            ):
                return reject("bad_scenario", doc_refs.SCENARIO, f"model {mid!r} is off the battlefield")
        for wid, weapon in unit.weapons.items():
            if wid != weapon.id:
                return reject(
                    "bad_scenario", doc_refs.SCENARIO, f"weapon key {wid!r} differs from its id {weapon.id!r}"
                )
            if weapon.model not in unit.models:
                return reject(
                    "bad_scenario",
                    doc_refs.SCENARIO,
                    f"weapon {wid!r} is carried by unknown model {weapon.model!r}",
                )
    terrain_ids = [t.id for t in scenario.terrain]
    if len(set(terrain_ids)) != len(terrain_ids):
        return reject("bad_scenario", doc_refs.SCENARIO, "terrain ids must be unique")
    for piece in scenario.terrain:
        if len(piece.points) < 3:
            return reject("bad_scenario", doc_refs.SCENARIO, f"terrain {piece.id!r} needs at least 3 points")
    return None


def prepared_units(units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """Units as they start: Hull Points from the profile when not given."""
    return tuple(replace(u, hp=u.profile.hp) if u.hp == 0 and u.profile.hp > 0 else u for u in units)


def match_created(
    edition: Edition, scenario: Scenario, options: Options, commitment: str, mission: Mission | None = None
) -> MatchCreated:
    return MatchCreated(
        edition=edition,
        battlefield=scenario.battlefield,
        terrain=scenario.terrain,
        units=prepared_units(scenario.units),
        options=options,
        commitment=commitment,
        first=scenario.first,
        mission=mission,
        rules_version=RULES_VERSION,  # match/rules_version.py: the rules this server folds with
    )


__all__ = ["Battlefield", "CreateMatch", "Options", "Scenario", "Terrain", "check_scenario", "match_created"]
