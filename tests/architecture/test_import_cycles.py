"""Dependencies inside a package point one way (docs/architecture.md section 2): no module of a
package imports, directly or through its siblings, a module that imports it back.

Every module under ``server/hulldown`` is parsed (nothing is imported); each import of a sibling
module - at module level or deferred inside a function, relative (``from .x import y``,
``from . import x``) or absolute (``from hulldown.rules.hh3.x import y``) - is an edge of its
package's graph. A cycle in any package's graph fails the test, naming the modules around it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "hulldown"
ROOT_NAME = "hulldown"

Graph = dict[str, set[str]]


def packages() -> list[Path]:
    return sorted({path.parent for path in PACKAGE.rglob("*.py")})


def dotted(package: Path) -> str:
    return ".".join((ROOT_NAME, *package.relative_to(PACKAGE).parts))


def sibling_imports(path: Path, package_name: str, siblings: set[str]) -> Iterator[str]:
    """The sibling modules ``path`` (of ``package_name``) imports, wherever the import stands."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                target = package_name + ("." + node.module if node.module else "")
            elif node.level == 0 and node.module is not None:
                target = node.module
            else:
                continue
            if target == package_name:
                # ``from . import x``: each imported name that is a sibling module is an edge
                yield from (alias.name for alias in node.names if alias.name in siblings)
            else:
                yield from sibling_of(target, package_name, siblings)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield from sibling_of(alias.name, package_name, siblings)


def sibling_of(target: str, package_name: str, siblings: set[str]) -> Iterator[str]:
    prefix = package_name + "."
    if target.startswith(prefix):
        first = target[len(prefix) :].split(".")[0]
        if first in siblings:
            yield first


def package_graph(package: Path) -> Graph:
    modules = {path.stem: path for path in package.glob("*.py")}
    siblings = set(modules) - {"__init__"}
    package_name = dotted(package)
    return {
        name: {t for t in sibling_imports(path, package_name, siblings) if t != name}
        for name, path in modules.items()
    }


def find_cycle(graph: Graph) -> list[str] | None:
    """One cycle of ``graph`` as the modules around it (first repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, successors = stack[-1]
            step = next(successors, None)
            if step is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif step in on_path:
                return [*path[path.index(step) :], step]
            elif step not in done:
                stack.append((step, iter(sorted(graph.get(step, set())))))
                path.append(step)
                on_path.add(step)
    return None


def test_the_graphs_see_the_packages_and_their_imports() -> None:
    names = {dotted(package) for package in packages()}
    assert {"hulldown.rules.hh3", "hulldown.rules.wh40k7", "hulldown.match"} <= names
    hh3 = package_graph(PACKAGE / "rules" / "hh3")
    assert "edition" in hh3
    assert "movement" in hh3["edition"], "the hh3 dispatch table imports its movement module"


def test_find_cycle_names_the_modules_around_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a", "b"}, "b": set()}) == ["a", "a"]


def test_deferred_and_absolute_imports_are_edges(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("def f() -> None:\n    from .b import g\n")
    (package / "b.py").write_text("from . import c\n")
    (package / "c.py").write_text("import os\n")
    (package / "d.py").write_text("from hulldown.pkg.a import f\nfrom .. import x\n")
    siblings = {"a", "b", "c", "d"}
    assert set(sibling_imports(package / "a.py", "hulldown.pkg", siblings)) == {"b"}
    assert set(sibling_imports(package / "b.py", "hulldown.pkg", siblings)) == {"c"}
    assert set(sibling_imports(package / "c.py", "hulldown.pkg", siblings)) == set()
    assert set(sibling_imports(package / "d.py", "hulldown.pkg", siblings)) == {"a"}


@pytest.mark.parametrize("package", packages(), ids=dotted)
def test_package_imports_point_one_way(package: Path) -> None:
    cycle = find_cycle(package_graph(package))
    assert cycle is None, f"{dotted(package)} has an import circle: {' -> '.join(cycle or [])}"
