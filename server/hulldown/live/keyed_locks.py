"""One asyncio lock per key, kept only while someone holds or waits for it.

A plain ``dict.setdefault(key, Lock())`` keeps a lock for every key ever asked for - including
ids of matches that do not exist, which anyone can ask for - so memory grows without bound. Here
an entry lives exactly as long as it has users.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field


@dataclass
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class KeyedLocks:
    """``async with locks.hold(key):`` serialises the blocks of one key."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._entries[key]

    def locked(self, key: str) -> bool:
        """Someone holds or waits for ``key``'s lock."""
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
