"""The whole suite again against the compiled build (docs/compiled-core.md): the same tests, with
``build/compiled`` (``hulldown compile``, built here when missing or stale) first on the path.

The compiled core must behave exactly as the interpreted one; mypyc changes semantics in places
(early-bound module globals, native classes, checked attribute types, the order modules load in),
so the proof is the suite itself. Minutes: the build (about 3 on two cores) and a second run of
the suite. Part of the default suite; deselect with ``-m 'not compiled'``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import hulldown
from hulldown.compile.build import build, is_current
from hulldown.compile.status import running_compiled

ROOT = Path(__file__).resolve().parents[2]
COPY = ROOT / "build" / "compiled"
SUITE_TIMEOUT_S = 45 * 60

pytestmark = pytest.mark.compiled


@pytest.mark.skipif(running_compiled(), reason="this is the compiled run")
def test_the_suite_passes_against_the_compiled_core(tmp_path: Path) -> None:
    package = Path(hulldown.__file__).parent
    if not is_current(package, COPY):
        build(package, COPY, ROOT / "pyproject.toml", jobs=os.cpu_count() or 1)
    env = {**os.environ, "PYTHONPATH": str(COPY)}
    probe = subprocess.run(
        [sys.executable, "-c", "from hulldown.compile.status import describe; print(describe())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.startswith("core: compiled with mypyc"), probe.stdout + probe.stderr
    report = tmp_path / "compiled-suite.txt"
    with report.open("w") as out:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", str(ROOT / "tests")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=SUITE_TIMEOUT_S,
        )
    lines = report.read_text().splitlines()
    summary = [line for line in lines if line.startswith(("FAILED", "ERROR"))] + lines[-1:]
    assert run.returncode == 0, "the compiled run failed:\n" + "\n".join(summary[-60:])
    assert " passed" in lines[-1] and "failed" not in lines[-1], lines[-1]
