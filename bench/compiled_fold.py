"""The cold fold with the rules core compiled by mypyc, beside the same code interpreted (prints JSON).

An experiment, not a build option: hulldown ships and runs as plain Python. This measures what
compiling the pure core would buy, so the choice can be made on a number. It copies ``server/``
to a temporary folder, compiles there with mypyc (from the test dependencies; gcc and the Python
headers needed) every module of ``hulldown/match``, ``hulldown/rules`` and ``hulldown/odds``
that it can (see ``not_compiled``), then folds the same stored events (``bench/replay.py``'s
match) in whole processes that alternate between the interpreted checkout and the compiled copy,
each process checking that its final state hash is the one the log was built to.

    python bench/compiled_fold.py --events 30000 --pairs 3

Modules left interpreted, and why (each reported in the output):
- those that define msgspec structs (``class X(msgspec.Struct, ...)``): a compiled module checks
  a struct field's default (``msgspec.field(...)``) against the field's type when the class is
  made, and fails to import;
- ``rules/geometry/shapes.py``: mypyc rejects its value-restricted ``TypeVar`` returns;
- ``match/arrivals.py``: mypyc stops with an internal error on ``x in (a, *rest)``;
- ``match/setup.py`` and ``match/setup_special.py``: compiled as modules of their own, they would
  load the rules packages their functions import before their own bodies run, and those packages
  import them.

Compiling takes about 3 minutes on 2 cores (one C extension per module, a compiler per core).
Measured (docs/architecture.md section 7): 1.45x fewer instructions per folded event, 1.13-1.23x
the cold fold's speed, nothing on the live server's path. Not a test: nothing is asserted but the
hashes.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hulldown/match", "hulldown/rules", "hulldown/odds")
MYPYC_BLOCKED = {
    "hulldown/rules/geometry/shapes.py": "mypyc rejects the value-restricted TypeVar returns",
    "hulldown/match/arrivals.py": "mypyc internal error on `x in (a, *rest)`",
    # Compiled as modules of their own, these would load the rules packages their functions
    # import before their own bodies run, and those packages import them: a half-made module.
    "hulldown/match/setup.py": "imports the editions inside a function (they import it when they load)",
    "hulldown/match/setup_special.py": "imports a rules package inside a function (it imports this)",
}

# One extension per module (``separate``), so ``build_ext -j`` runs a compiler on every core.
BUILD_CHILD = """
import sys
from mypyc.build import mypycify
from setuptools import setup
config, jobs, *paths = sys.argv[1:]
setup(name="hulldown-compiled", ext_modules=mypycify(["--config-file", config, *paths], separate=True),
      script_args=["build_ext", "--inplace", "-j", jobs])
"""

# One process's fold: the events built by bench/replay.py, decoded, folded from nothing.
FOLD_CHILD = """
import json, pickle, sys
sys.path.insert(0, {bench!r})
import replay
from hulldown.match.reducer import state_hash
payloads, expected = pickle.load(open({data!r}, "rb"))
seconds, state = replay.cold_replay(payloads)
import hulldown.rules.wh40k7.geo as geo
print(json.dumps({{"events_per_s": len(payloads) / seconds, "same_hash": state_hash(state) == expected,
                   "geo_compiled": geo.__file__.endswith(".so")}}))
"""


def defines_struct(path: Path) -> bool:
    """A class with keyword arguments (``frozen=True``, ``tag=...``) or a ``Struct`` base."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if node.keywords or any(b.endswith("Struct") for b in bases):
                return True
    return False


def choose(tree: Path) -> tuple[list[str], dict[str, str]]:
    compiled: list[str] = []
    not_compiled: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((tree / package).rglob("*.py")):
            name = str(path.relative_to(tree))
            if path.name == "__init__.py":
                continue
            if name in MYPYC_BLOCKED:
                not_compiled[name] = MYPYC_BLOCKED[name]
            elif defines_struct(path):
                not_compiled[name] = "defines msgspec structs"
            else:
                compiled.append(name)
    return compiled, not_compiled


def fold_once(pythonpath: Path, data: Path) -> dict[str, float | bool]:
    code = FOLD_CHILD.format(bench=str(ROOT / "bench"), data=str(data))
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    result: dict[str, float | bool] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    import replay
    from hulldown.match.reducer import state_hash

    with tempfile.TemporaryDirectory(prefix="hulldown-mypyc-") as tmp:
        work = Path(tmp)
        tree = work / "server"
        shutil.copytree(ROOT / "server", tree, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        compiled, not_compiled = choose(tree)
        t0 = time.perf_counter()
        build = subprocess.run(
            [
                sys.executable,
                "-c",
                BUILD_CHILD,
                str(ROOT / "pyproject.toml"),
                str(os.cpu_count() or 1),
                *compiled,
            ],
            cwd=tree,
            capture_output=True,
            text=True,
        )
        compile_s = time.perf_counter() - t0
        if build.returncode != 0:
            sys.stderr.write(build.stdout[-4000:] + build.stderr[-4000:])
            raise SystemExit("mypyc failed")
        payloads, _, live = replay.build(args.events, 10**9)
        data = work / "events.pickle"
        data.write_bytes(pickle.dumps((payloads, state_hash(live))))
        runs: dict[str, list[dict[str, float | bool]]] = {"interpreted": [], "compiled": []}
        for _ in range(args.pairs):
            runs["interpreted"].append(fold_once(ROOT / "server", data))
            runs["compiled"].append(fold_once(tree, data))
    rates = {k: [round(float(r["events_per_s"])) for r in v] for k, v in runs.items()}
    print(
        json.dumps(
            {
                "bench": "compiled_fold",
                "events": len(payloads),
                "modules_compiled": len(compiled),
                "not_compiled": not_compiled,
                "compile_s": round(compile_s, 1),
                "cold_fold_events_per_s": rates,
                "median_ratio_compiled_over_interpreted": round(
                    statistics.median(rates["compiled"]) / statistics.median(rates["interpreted"]), 2
                ),
                "same_final_hash": all(bool(r["same_hash"]) for v in runs.values() for r in v),
                "compiled_copy_used": all(bool(r["geo_compiled"]) for r in runs["compiled"])
                and not any(bool(r["geo_compiled"]) for r in runs["interpreted"]),
            }
        )
    )


if __name__ == "__main__":
    main()
