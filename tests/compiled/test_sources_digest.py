"""A compiled copy is current only for the sources it was built from (docs/compiled-core.md)."""

from __future__ import annotations

import json
from pathlib import Path

from hulldown.compile.build import MANIFEST_NAME, Manifest, is_current, read_manifest, sources_digest


def _package(root: Path) -> Path:
    package = root / "hulldown"
    (package / "match").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "match" / "reducer.py").write_text("X = 1\n")
    return package


def test_the_digest_follows_the_sources_and_ignores_byte_code_and_extensions(tmp_path: Path) -> None:
    package = _package(tmp_path / "src")
    before = sources_digest(package)
    (package / "match" / "__pycache__").mkdir()
    (package / "match" / "__pycache__" / "reducer.cpython-311.pyc").write_bytes(b"\0")
    (package / "match" / "reducer.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\0")
    assert sources_digest(package) == before
    (package / "match" / "reducer.py").write_text("X = 2\n")
    assert sources_digest(package) != before


def test_a_copy_is_current_only_with_the_digest_of_the_sources(tmp_path: Path) -> None:
    package = _package(tmp_path / "src")
    copy = tmp_path / "copy"
    assert read_manifest(copy) is None
    assert not is_current(package, copy)
    manifest = Manifest(str(package), sources_digest(package), "3.11", "2.4", ["match/reducer.py"], {}, 1.0)
    (copy / "hulldown").mkdir(parents=True)
    (copy / "hulldown" / MANIFEST_NAME).write_text(json.dumps(manifest.__dict__))
    assert read_manifest(copy) == manifest
    assert is_current(package, copy)
    (package / "match" / "reducer.py").write_text("X = 3\n")
    assert not is_current(package, copy)


def test_a_manifest_of_another_format_means_the_copy_is_rebuilt(tmp_path: Path) -> None:
    package = _package(tmp_path / "src")
    copy = tmp_path / "copy"
    (copy / "hulldown").mkdir(parents=True)
    for text in ('{"sources_digest": "x"}', "not json"):
        (copy / "hulldown" / MANIFEST_NAME).write_text(text)
        assert read_manifest(copy) is None
        assert not is_current(package, copy)
