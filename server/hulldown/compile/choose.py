"""Which modules of the package the compiled build compiles, and why the others stay interpreted
(docs/compiled-core.md)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

# The pure core: what a fold, a validation and a state hash run (docs/architecture.md section 2).
COMPILED_PACKAGES = ("match", "rules", "odds")

# Modules mypyc cannot compile today, with the reason (checked with mypy 2.4).
NOT_COMPILABLE = {
    "rules/geometry/shapes.py": "mypyc rejects its value-restricted TypeVar returns",
    "match/arrivals.py": "mypyc stops with an internal error on `x in (a, *rest)`",
    # The editions' rules packages import the set-up when they load, and these import a rules
    # package inside a function: compiled as a module of its own, such a module loads what its
    # functions call before its own body runs, i.e. the rules package, which then finds the
    # set-up half made.
    "match/setup.py": "imports the editions inside a function (they import it when they load)",
    "match/setup_special.py": "imports a rules package inside a function (it imports this when it loads)",
}

STRUCT_REASON = (
    "defines msgspec structs: compiled, a struct's field default (msgspec.field) is checked "
    "against the field's type when the class is made, and the module fails to import"
)


@dataclass
class Choice:
    """Paths relative to the package root (``match/reducer.py``)."""

    compiled: list[str] = field(default_factory=list)
    interpreted: dict[str, str] = field(default_factory=dict)


def defines_struct(source: str) -> bool:
    """A class with keyword arguments (``frozen=True``, ``tag=...``) or a ``...Struct`` base."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(base) for base in node.bases]
            if node.keywords or any(base.endswith("Struct") for base in bases):
                return True
    return False


def choose(package_root: Path) -> Choice:
    """The modules of ``COMPILED_PACKAGES`` under ``package_root`` (the ``hulldown`` folder) to
    compile; package ``__init__`` modules stay interpreted (they only import)."""
    choice = Choice()
    for package in COMPILED_PACKAGES:
        for path in sorted((package_root / package).rglob("*.py")):
            name = path.relative_to(package_root).as_posix()
            if path.name == "__init__.py":
                continue
            if name in NOT_COMPILABLE:
                choice.interpreted[name] = NOT_COMPILABLE[name]
            elif defines_struct(path.read_text(encoding="utf-8")):
                choice.interpreted[name] = STRUCT_REASON
            else:
                choice.compiled.append(name)
    return choice
