"""The functional core stays pure (docs/architecture.md section 2): ``rules/``, ``match/`` and
``odds/`` import nothing from the shell and no I/O framework."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "hulldown"
FORBIDDEN = {
    "asyncio",
    "redis",
    "starlette",
    "uvicorn",
    "websockets",
    "httpx",
    "socket",
    "subprocess",
    "random",
}
FORBIDDEN_INTERNAL = {"store", "live", "web", "cli", "serve", "client"}


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            prefix = "." * node.level
            names.append(prefix + (node.module or ""))
    return names


PURE_PACKAGES = ("rules", "match", "odds", "missions")


def pure_files() -> list[Path]:
    return sorted(path for package in PURE_PACKAGES for path in (PACKAGE / package).rglob("*.py"))


def test_there_are_pure_files_to_check() -> None:
    assert len(pure_files()) >= 10
    for package in PURE_PACKAGES:
        assert any(p.relative_to(PACKAGE).parts[0] == package for p in pure_files()), package


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_module_imports_no_io(path: Path) -> None:
    for name in imported_modules(path):
        top = name.lstrip(".").split(".")[0]
        if name.startswith("."):
            assert top not in FORBIDDEN_INTERNAL, f"{path.name} imports the shell module {name}"
        else:
            assert top not in FORBIDDEN, f"{path.name} imports {name}"


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import asyncio\nfrom ..store import x\n")
    assert imported_modules(sample) == ["asyncio", "..store"]
