"""40k7 unit and vehicle types (40k7 Vehicles, the vehicle types; docs/rules-notes.md, 40k7).

A vehicle has the rules of every type it lists (seed 001: "types can be combined"). Types live in
``Unit.keywords`` in lower case: ``fast``, ``skimmer``, ``walker``, ``tank``, ``open-topped``,
``transport``, ``heavy``, ``chariot``, ``flyer``, ``super-heavy``, ``hover``; plus special rules
such as ``fearless``, ``skyfire``, ``assault_vehicle``, ``relentless``.
"""

from __future__ import annotations

from ...match.state import Unit

# Spellings accepted for each type (scenario files are written by people).
_ALIASES: dict[str, tuple[str, ...]] = {
    "open-topped": ("open-topped", "open_topped", "opentopped"),
    "super-heavy": ("super-heavy", "super_heavy", "superheavy", "super-heavy vehicle"),
}


def has_type(unit: Unit, name: str) -> bool:
    """Does the unit list this type or special rule (any accepted spelling)?"""
    aliases = _ALIASES.get(name)
    if aliases is None:
        return name in unit.keywords
    return any(alias in unit.keywords for alias in aliases)


def is_vehicle(unit: Unit) -> bool:
    """40k7 Vehicles: a unit with Armour Values (every vehicle, Walkers included)."""
    return unit.kind in ("vehicle", "walker") or unit.profile.armour is not None


def is_walker(unit: Unit) -> bool:
    """40k7 Walkers: moves, runs and charges like Infantry."""
    return is_vehicle(unit) and (unit.kind == "walker" or has_type(unit, "walker"))


# 40k7 Flyers, Hover: a Flyer with the ``hover`` type in Hover mode has this status (until the
# start of its next turn) and is then a Fast Skimmer, not Zooming.
HOVERING = "hovering"


def is_hovering(unit: Unit) -> bool:
    return HOVERING in unit.statuses and has_type(unit, "flyer")


def is_fast(unit: Unit) -> bool:
    return has_type(unit, "fast") or is_hovering(unit)


def is_skimmer(unit: Unit) -> bool:
    return has_type(unit, "skimmer") or is_hovering(unit)


def is_tank(unit: Unit) -> bool:
    return has_type(unit, "tank")


def is_heavy(unit: Unit) -> bool:
    return has_type(unit, "heavy")


def is_open_topped(unit: Unit) -> bool:
    return has_type(unit, "open-topped")


def is_transport(unit: Unit) -> bool:
    return has_type(unit, "transport") or unit.profile.capacity > 0


def is_chariot(unit: Unit) -> bool:
    return has_type(unit, "chariot")


def locks_in_combat(unit: Unit) -> bool:
    """Seed 001, Vehicles and Close Combat: enemy models in base contact with a vehicle are not
    locked in combat, "not including Walkers or Chariots": those lock like other models."""
    return not is_vehicle(unit) or is_walker(unit) or is_chariot(unit)


def is_flyer(unit: Unit) -> bool:
    return has_type(unit, "flyer")


def is_super_heavy(unit: Unit) -> bool:
    return has_type(unit, "super-heavy")


def is_zooming(unit: Unit) -> bool:
    """40k7 Flyers: a Flyer Zooms unless it is in Hover mode (``hovering``)."""
    return is_flyer(unit) and not is_hovering(unit)


def has_hover_mode(unit: Unit) -> bool:
    """40k7 Flyers, Hover: a Flyer with the Hover type may choose Hover mode."""
    return is_flyer(unit) and has_type(unit, "hover")


def is_assault_vehicle(unit: Unit) -> bool:
    """40k7 Open-topped: counts as an Assault Vehicle; or the Assault Vehicle special rule."""
    return is_open_topped(unit) or has_type(unit, "assault_vehicle") or has_type(unit, "assault vehicle")


def can_jink(unit: Unit) -> bool:
    """40k7 Skimmers / Flyers: Jink unless Heavy or Immobilised; never for Super-heavies."""
    if not is_vehicle(unit) or is_super_heavy(unit):
        return False
    if is_flyer(unit):
        return True
    return is_skimmer(unit) and not is_heavy(unit) and "immobilised" not in unit.statuses


def is_fearless(unit: Unit) -> bool:
    """Fearless units automatically pass Morale checks and Pinning tests; embarked units are
    Fearless while embarked (40k7 Transports, "Unshakable Nerve")."""
    return has_type(unit, "fearless") or unit.embarked_in is not None


def counts_stationary_for_shooting(unit: Unit) -> bool:
    """40k7 Heavy and Super-heavy vehicles always count as Stationary when they shoot; Walkers fire
    all their weapons after moving."""
    return is_heavy(unit) or is_super_heavy(unit) or is_walker(unit)


def is_infantry_like(unit: Unit) -> bool:
    """Units that are not vehicles: Infantry and other models with wounds (the minimal core)."""
    return not is_vehicle(unit)


def has_smash(unit: Unit) -> bool:
    """40k7 Special Rules, Smash [ext]: Monstrous Creatures (and Gargantuan ones) and Super-heavy
    Walkers have Smash (40k7 Super-heavy Walkers, Special Rules); any unit may list it as the
    keyword ``smash``. A Walker that is not Super-heavy has Hammer of Wrath only (40k7 Walkers,
    Special Rules): it has Smash only when its entry lists it."""
    return (is_walker(unit) and is_super_heavy(unit)) or unit.kind == "monster" or has_type(unit, "smash")
