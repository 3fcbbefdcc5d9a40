#!/usr/bin/env python3
"""Regenerate client-protocol/schemas/*.json and client-protocol/openapi.json from the code.

    python client-protocol/generate_schemas.py            # write
    python client-protocol/generate_schemas.py --check    # exit 1 if the committed files are stale

Same as ``python -m hulldown.wire.schemas``. tests/protocol/test_schemas.py fails when the committed
files differ from what the msgspec types generate.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from hulldown.wire.schemas import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
