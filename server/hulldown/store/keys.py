"""Key scheme of the event store.

Every key of one match shares the hash tag ``{<match_id>}`` so that a Redis Cluster keeps them
in one slot (the append script and snapshot transactions touch several of them at once). The
match index ``<prefix>:matches`` is the one global key: no command touches it together with a
match's keys, so it may live in any slot::

    <prefix>:{<match_id>}:events    stream, entry id 0-<seq>, field "e" = encoded event
    <prefix>:{<match_id>}:dedupe    hash   <by>:<action_id> -> seq (``dedupe_field``)
    <prefix>:{<match_id>}:meta      hash   str -> str
    <prefix>:{<match_id>}:snaps     hash   seq -> encoded snapshot
    <prefix>:{<match_id>}:snapidx   zset   member seq, score seq
    <prefix>:{<match_id>}:summary   hash   the public match list's entry (docs/operations.md)
    <prefix>:{<match_id>}:presence  hash   process id -> "<spectators> <players> <expires ms>"
    <prefix>:{<match_id>}:tail      shard channel (cluster only): SPUBLISHed seq of each append
    <prefix>:{<match_id>}:tailsync  string (cluster only, expiring): written by a tailer after a
                                    read so that its WAIT covers what it read
    <prefix>:matches                zset   member match_id, score creation time (ms)
    <prefix>:{listing}:live         zset   public matches still running, member <created ms>:<id>
    <prefix>:{listing}:ended        zset   public matches that ended, same members (all scores 0)
    <prefix>:{listing}:backfilled   string set once older matches were added to the list
    <prefix>:{listing}:backfilling  string (expiring): the process adding them holds it
    <prefix>:tail-wake:<token>      stream (ephemeral) used to wake a blocked tailer
    <prefix>:create-rate:<client>   string (expires after a minute): ``POST /matches`` requests
                                    of one client address in its current window
                                    (``create_rate_client``, web/create_limit.py)

Like the match index, a ``create-rate`` key is only ever touched on its own (one key per
command), so it needs no hash tag and may live in any slot.

The prefix defaults to ``hulldown``; tests use a unique prefix per test to isolate their keys.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

DEFAULT_PREFIX = "hulldown"


def dedupe_field(by: str, action_id: str) -> str:
    """The field of an action in the match's dedupe hash: its id within the sender's own ids
    (side ``a``, side ``b``, or ``system`` for the server's events). Each side numbers its acts as
    it likes - both may send ``1`` - and no act can take an id of the server's (``create``,
    ``system-reveal-seed``) or the other side's (docs/store.md, "Retries")."""
    return f"{by}:{action_id}"


# A client address as uvicorn reports it (IPv4, IPv6, maybe a scope id) is used in its key as it
# is; anything else - a name a trusted proxy forwarded, an empty address - by its digest, so a key
# stays short and has no braces, spaces or control characters whatever the client sent.
_PLAIN_CLIENT = re.compile(r"[0-9A-Za-z.:%_-]{1,64}")


def create_rate_client(client: str) -> str:
    """The part of a ``create-rate`` key that names the client address ``client``."""
    if _PLAIN_CLIENT.fullmatch(client):
        return client
    return "sha256-" + hashlib.sha256(client.encode("utf-8", "surrogatepass")).hexdigest()[:32]


_FORBIDDEN = frozenset("{}")
# Match keys built recently, remembered: every action builds a few and checking the id each time
# is a measurable part of the action's CPU (bench/latency.py).
MATCH_KEYS_CACHED = 16_384


def validate_match_id(match_id: str) -> str:
    """Return ``match_id`` if it can be used inside a key, else raise ``ValueError``.

    Braces would break the hash tag, whitespace and control characters make keys unreadable.
    """
    if not match_id:
        raise ValueError("match id must not be empty")
    if len(match_id) > 200:
        raise ValueError("match id must be at most 200 characters")
    if any(ch in _FORBIDDEN or ch.isspace() or not ch.isprintable() for ch in match_id):
        raise ValueError(f"match id {match_id!r} contains braces, whitespace or control characters")
    return match_id


@dataclass(frozen=True, slots=True)
class Keys:
    """Builds the Redis keys of the store under one prefix."""

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not self.prefix or any(ch in _FORBIDDEN or ch.isspace() for ch in self.prefix):
            raise ValueError(f"invalid key prefix {self.prefix!r}")

    def _match(self, match_id: str, kind: str) -> str:
        return _match_key(self.prefix, match_id, kind)

    def events(self, match_id: str) -> str:
        return self._match(match_id, "events")

    def dedupe(self, match_id: str) -> str:
        return self._match(match_id, "dedupe")

    def meta(self, match_id: str) -> str:
        return self._match(match_id, "meta")

    def snaps(self, match_id: str) -> str:
        return self._match(match_id, "snaps")

    def snapidx(self, match_id: str) -> str:
        return self._match(match_id, "snapidx")

    def summary(self, match_id: str) -> str:
        return self._match(match_id, "summary")

    def presence(self, match_id: str) -> str:
        return self._match(match_id, "presence")

    def tail_channel(self, match_id: str) -> str:
        return self._match(match_id, "tail")

    def tail_sync(self, match_id: str) -> str:
        return self._match(match_id, "tailsync")

    def matches(self) -> str:
        return f"{self.prefix}:matches"

    def listing(self, status: str) -> str:
        """The public list of ``live`` or ``ended`` matches (one hash tag: one cluster slot)."""
        if status not in ("live", "ended"):
            raise ValueError(f"listing status must be live or ended, got {status!r}")
        return f"{self.prefix}:{{listing}}:{status}"

    def listing_backfilled(self) -> str:
        """Set once the matches created before the list index were added to it."""
        return f"{self.prefix}:{{listing}}:backfilled"

    def listing_backfill_claim(self) -> str:
        """Held, expiring, by the one process adding the older matches to the list."""
        return f"{self.prefix}:{{listing}}:backfilling"

    def tail_wake(self, token: str) -> str:
        return f"{self.prefix}:tail-wake:{token}"

    def create_rate(self, client: str) -> str:
        """The counter of ``POST /matches`` requests from the address ``client`` (any string)."""
        return f"{self.prefix}:create-rate:{create_rate_client(client)}"


@lru_cache(maxsize=MATCH_KEYS_CACHED)
def _match_key(prefix: str, match_id: str, kind: str) -> str:
    """``<prefix>:{<match id>}:<kind>``; a bad match id raises (and is not remembered)."""
    return f"{prefix}:{{{validate_match_id(match_id)}}}:{kind}"
