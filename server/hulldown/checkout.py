"""The source checkout the running package comes from, for the files beside it (``examples/``,
``client-protocol/``): two folders above the package, or for the compiled copy the checkout it
was built from, as its manifest records (docs/compiled-core.md)."""

from __future__ import annotations

import json
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
# Written into the compiled copy's package folder by compile/build.py.
MANIFEST_NAME = "COMPILED.json"


def checkout_root() -> Path:
    manifest = PACKAGE_ROOT / MANIFEST_NAME
    if manifest.is_file():
        source = json.loads(manifest.read_text(encoding="utf-8")).get("source")
        if isinstance(source, str):
            return Path(source).parents[1]
    return PACKAGE_ROOT.parents[1]
