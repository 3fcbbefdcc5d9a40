"""Build the compiled copy: copy the package, compile the chosen modules with mypyc there, write
its manifest, then put the copy in place in one rename (docs/compiled-core.md).

Needs mypy (``pip install 'hulldown[compiled]'``), a C compiler and the Python headers. The copy is
built next to its destination and only replaces it once complete, so a failed build leaves the
previous copy (or none) as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..checkout import MANIFEST_NAME
from .choose import choose

PACKAGE_NAME = "hulldown"
# Left out of the copy: byte code and extensions of an earlier build.
IGNORED = ("__pycache__", "*.so", "*.pyc", MANIFEST_NAME)

# The child process that compiles: mypyc's setuptools entry, one extension per module (separate)
# so that ``build_ext -j`` compiles them on every core.
_BUILD_CHILD = """
import sys
from mypyc.build import mypycify
from setuptools import setup
config, jobs, *paths = sys.argv[1:]
setup(
    name="hulldown-compiled",
    ext_modules=mypycify(["--config-file", config, *paths], separate=True),
    script_args=["build_ext", "--inplace", "-j", jobs],
)
"""


class BuildError(Exception):
    """mypyc or the C compiler failed; the message ends with the tail of their output."""


@dataclass(frozen=True)
class Manifest:
    source: str  # the package folder it was built from (hulldown/checkout.py reads it)
    sources_digest: str
    python: str
    mypy: str
    compiled: list[str]
    interpreted: dict[str, str]
    build_seconds: float


def sources_digest(package_root: Path) -> str:
    """SHA-256 over every file of the package (path and bytes) but byte code and extensions, and
    over the Python and mypy versions: a copy built from other sources is stale."""
    digest = hashlib.sha256(f"{sys.version}\n{_mypy_version()}\n".encode())
    for path in sorted(package_root.rglob("*")):
        if path.is_dir() or _ignored(path):
            continue
        digest.update(path.relative_to(package_root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def read_manifest(copy_root: Path) -> Manifest | None:
    """The manifest of a built copy (``copy_root/hulldown/COMPILED.json``), or None when there is
    none or it is not one this version writes (such a copy is rebuilt)."""
    path = copy_root / PACKAGE_NAME / MANIFEST_NAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Manifest(**data)
    except (ValueError, TypeError):
        return None


def is_current(package_root: Path, copy_root: Path) -> bool:
    manifest = read_manifest(copy_root)
    return manifest is not None and manifest.sources_digest == sources_digest(package_root)


def build(package_root: Path, copy_root: Path, mypy_config: Path, jobs: int = 2) -> Manifest:
    """Compile ``package_root`` (the ``hulldown`` folder) into ``copy_root/hulldown``."""
    copy_root.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=".compiling-", dir=copy_root.parent) as tmp:
        staging = Path(tmp) / "copy"
        shutil.copytree(package_root, staging / PACKAGE_NAME, ignore=shutil.ignore_patterns(*IGNORED))
        choice = choose(staging / PACKAGE_NAME)
        paths = [f"{PACKAGE_NAME}/{name}" for name in choice.compiled]
        result = subprocess.run(
            [sys.executable, "-c", _BUILD_CHILD, str(mypy_config.resolve()), str(jobs), *paths],
            cwd=staging,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            tail = (result.stdout + result.stderr)[-3000:]
            raise BuildError(f"mypyc failed (exit {result.returncode}):\n{tail}")
        shutil.rmtree(staging / "build", ignore_errors=True)
        for leftover in (staging / PACKAGE_NAME).rglob("*.c"):
            leftover.unlink()
        manifest = Manifest(
            source=str(package_root.resolve()),
            sources_digest=sources_digest(package_root),
            python=sys.version.split()[0],
            mypy=_mypy_version(),
            compiled=choice.compiled,
            interpreted=choice.interpreted,
            build_seconds=round(time.perf_counter() - started, 1),
        )
        (staging / PACKAGE_NAME / MANIFEST_NAME).write_text(json.dumps(asdict(manifest), indent=2) + "\n")
        _replace(staging, copy_root, Path(tmp))
    return manifest


def _replace(staging: Path, copy_root: Path, scratch: Path) -> None:
    """Swap the finished copy in: the old one is moved aside first, then removed."""
    if copy_root.exists():
        copy_root.rename(scratch / "old")
    staging.rename(copy_root)


def _ignored(path: Path) -> bool:
    return path.name == MANIFEST_NAME or "__pycache__" in path.parts or path.suffix in (".so", ".pyc")


def _mypy_version() -> str:
    try:
        from mypy.version import __version__
    except ImportError:
        return "none"
    return str(__version__)
