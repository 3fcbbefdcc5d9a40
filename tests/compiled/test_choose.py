"""Which modules the compiled build compiles (docs/compiled-core.md)."""

from __future__ import annotations

from pathlib import Path

import hulldown
from hulldown.compile.choose import NOT_COMPILABLE, STRUCT_REASON, choose, defines_struct

PACKAGE = Path(hulldown.__file__).parent


def test_a_struct_class_is_found_by_its_base_or_its_class_keywords() -> None:
    assert defines_struct("import msgspec\nclass A(msgspec.Struct):\n    x: int\n")
    assert defines_struct("class A(Base, frozen=True):\n    x: int\n")
    assert not defines_struct("class A:\n    x: int = 0\n\ndef f() -> None:\n    pass\n")


def test_the_pure_core_is_compiled_and_struct_modules_stay_interpreted() -> None:
    choice = choose(PACKAGE)
    assert "match/reducer.py" in choice.compiled
    assert "rules/wh40k7/geo.py" in choice.compiled
    assert "odds/context.py" in choice.compiled
    # The state's structs (msgspec) stay interpreted, as do the modules mypyc cannot compile.
    assert choice.interpreted["match/state.py"] == STRUCT_REASON
    for name, reason in NOT_COMPILABLE.items():
        assert choice.interpreted[name] == reason
    # Nothing outside the pure core, no package __init__, nothing twice.
    assert all(name.split("/")[0] in ("match", "rules", "odds") for name in choice.compiled)
    assert not any(name.endswith("__init__.py") for name in choice.compiled)
    assert not set(choice.compiled) & set(choice.interpreted)


def test_every_module_named_not_compilable_exists() -> None:
    # A stale entry would hide that the module was renamed or removed.
    for name in NOT_COMPILABLE:
        assert (PACKAGE / name).is_file(), name
