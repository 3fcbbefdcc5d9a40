"""Whether this process runs the compiled build, for the start-up log line (docs/compiled-core.md)."""

from __future__ import annotations

import importlib
from pathlib import Path

from .build import PACKAGE_NAME, read_manifest

# A module every fold runs: loaded from an extension when the compiled copy is the one imported.
PROBE_MODULE = "hulldown.match.reducer"


def running_compiled() -> bool:
    """The probe module was loaded from a C extension."""
    probe = importlib.import_module(PROBE_MODULE)
    return str(getattr(probe, "__file__", "")).endswith((".so", ".pyd"))


def describe() -> str:
    """One line: the interpreted core, or the compiled one with its module counts."""
    package_root = Path(importlib.import_module(PACKAGE_NAME).__file__ or "").parent
    manifest = read_manifest(package_root.parent)
    if not running_compiled():
        return "core: interpreted (plain Python)"
    if manifest is None:
        return "core: compiled (no manifest found beside the package)"
    return (
        f"core: compiled with mypyc {manifest.mypy} ({len(manifest.compiled)} modules, "
        f"{len(manifest.interpreted)} interpreted; docs/compiled-core.md)"
    )
