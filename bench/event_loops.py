"""The event loop a benchmark's in-process server runs on: ``auto`` picks uvloop where it is
installed, as ``hulldown serve`` does (uvicorn's ``auto``); ``asyncio`` the standard loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

CHOICES = ("auto", "asyncio")


def runner(choice: str) -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """``asyncio.run`` or, for ``auto`` with uvloop installed, ``uvloop.run``."""
    if choice == "auto":
        try:
            import uvloop
        except ImportError:
            return asyncio.run
        return uvloop.run
    return asyncio.run


def name(run: Callable[[Coroutine[Any, Any, Any]], Any]) -> str:
    return "asyncio" if run is asyncio.run else "uvloop"
