"""Snapshot policy. The interval is the caller's configuration."""

from __future__ import annotations


def should_snapshot(seq: int, every: int) -> bool:
    """True when a snapshot should be taken after the event at ``seq``.

    Snapshots are taken at every multiple of ``every``; ``every <= 0`` disables them.
    """
    return every > 0 and seq > 0 and seq % every == 0
