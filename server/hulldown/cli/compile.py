"""``hulldown compile``: build the compiled copy of the package (docs/compiled-core.md).

    hulldown compile --into build/compiled      # then: PYTHONPATH=build/compiled hulldown serve

Builds only when the copy is missing or was built from other sources (``--force`` builds anyway).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from ..compile.build import BuildError, build, is_current, read_manifest


def add_compile_command(subparsers: Any) -> None:
    """Register ``hulldown compile`` on the CLI's sub-command parsers."""
    parser = subparsers.add_parser(
        "compile", help="compile the rules core with mypyc into a copy of the package (docs/compiled-core.md)"
    )
    parser.add_argument("--into", type=Path, required=True, help="the folder to build the copy in")
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help="the hulldown package folder to compile (default: the one running this command)",
    )
    parser.add_argument(
        "--mypy-config",
        type=Path,
        default=None,
        help="mypy settings for the compile (default: pyproject.toml of the checkout the source is in)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="C compilers run at once")
    parser.add_argument("--force", action="store_true", help="build even when the copy is current")
    parser.set_defaults(handler=_compile)


def _compile(args: argparse.Namespace) -> int:
    source: Path = args.source or Path(__file__).resolve().parents[1]
    if not (source / "__init__.py").is_file():
        return _fail(f"--source {source}: expected the hulldown package folder (with __init__.py)")
    config: Path = args.mypy_config or source.parents[1] / "pyproject.toml"
    if not config.is_file():
        return _fail(f"--mypy-config {config}: no such file (expected the checkout's pyproject.toml)")
    if importlib.util.find_spec("mypyc") is None:
        return _fail("mypyc is not installed: pip install 'hulldown[compiled]' (it comes with mypy)")
    if not args.force and is_current(source, args.into):
        print(f"hulldown compile: {args.into} is current", file=sys.stderr)
        return 0
    if (source.parent / args.into).resolve() == source.parent.resolve():
        return _fail("--into must not be the folder the package is in")
    print(f"hulldown compile: compiling {source} into {args.into} (minutes)...", file=sys.stderr)
    try:
        manifest = build(source, args.into, config, jobs=max(1, args.jobs))
    except BuildError as exc:
        return _fail(str(exc))
    assert read_manifest(args.into) == manifest
    print(
        f"hulldown compile: {len(manifest.compiled)} modules compiled, {len(manifest.interpreted)} "
        f"left interpreted, {manifest.build_seconds:.0f} s; run with PYTHONPATH={args.into}",
        file=sys.stderr,
    )
    return 0


def _fail(message: str) -> int:
    print(f"hulldown compile: {message}", file=sys.stderr)
    return 2
