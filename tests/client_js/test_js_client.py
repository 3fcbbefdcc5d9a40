"""The JavaScript client (client-protocol/hulldown-client.js) and the TypeScript declarations
generated from the JSON Schemas: the declarations are current and compile (``tsc --noEmit``),
tsc refuses a wrong use of them, and the client's own tests pass under Node against a real
server (test/client.test.mjs) and scripted fake servers (test/faults.test.mjs). The npm packages are installed by ``./dev test`` (``npm ci`` in client-protocol/)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import msgspec
import pytest

from tests.scenarios import duel

from ..server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DIR = ROOT / "client-protocol"
STATIC_JS = ROOT / "server" / "hulldown" / "web" / "static" / "js"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the JS client tests need Node >= 18"
)


def _node_modules() -> Path:
    modules = PROTOCOL_DIR / "node_modules"
    if not (modules / "typescript").is_dir() or not (modules / "json-schema-to-typescript").is_dir():
        pytest.fail("client-protocol/node_modules is missing: run ./dev test (it runs npm ci there)")
    return modules


def _run(
    args: list[str], env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=PROTOCOL_DIR,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def test_the_served_client_is_the_documented_one() -> None:
    """One module, two places: client-protocol/ (documented, packaged) and the server's static
    tree (served at /static/js/, used by the viewer and the table)."""
    for name in ("hulldown-client.js", "jsonpatch.js"):
        assert (PROTOCOL_DIR / name).read_text() == (STATIC_JS / name).read_text(), f"{name} copies differ"


@needs_node
def test_generated_declarations_are_current_and_compile() -> None:
    modules = _node_modules()
    generated = _run([str(NODE), "scripts/generate-types.mjs", "--check"])
    assert generated.returncode == 0, generated.stderr
    tsc = _run([str(NODE), str(modules / "typescript" / "bin" / "tsc"), "--noEmit", "-p", "tsconfig.json"])
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr


@needs_node
def test_tsc_refuses_a_wrong_use_of_the_declarations(tmp_path: Path) -> None:
    modules = _node_modules()
    wrong = PROTOCOL_DIR / "test" / "wrong-use.tmp.ts"
    wrong.write_text(
        'import type { MatchState } from "../types/index.js";\n'
        "export const hp = (view: MatchState): string => view.units['x'].hull_points;\n"
    )
    try:
        config = tmp_path / "tsconfig.json"
        include = [str(PROTOCOL_DIR / "types" / "*.d.ts"), str(wrong)]
        config.write_text(json.dumps({"extends": str(PROTOCOL_DIR / "tsconfig.json"), "include": include}))
        tsc = _run([str(NODE), str(modules / "typescript" / "bin" / "tsc"), "--noEmit", "-p", str(config)])
    finally:
        wrong.unlink()
    assert tsc.returncode != 0
    assert "Property 'hull_points' does not exist on type 'Unit'" in tsc.stdout


@needs_node
def test_the_js_client_passes_its_tests_against_a_real_server(server: ServerProcess) -> None:
    _node_modules()
    served = httpx.get(f"{server.http}/static/js/hulldown-client.js", timeout=10)
    assert served.status_code == 200 and "export class HulldownClient" in served.text
    scenario = msgspec.json.encode(duel()).decode()
    result = _run(
        [str(NODE), "--test", "--test-reporter=tap", "test/"],
        env={"HULLDOWN_URL": server.http, "HULLDOWN_SCENARIO": scenario},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# skipped 0" in result.stdout
    assert "# pass 16" in result.stdout  # 9 against the server, 7 against fake servers
