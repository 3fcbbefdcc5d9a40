"""The Lua scripts of the store, loaded from the package and registered on a client.

redis-py's ``register_script`` runs EVALSHA and falls back to EVAL (loading the script) when
the server answers NOSCRIPT, e.g. after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript


@cache
def script_source(name: str) -> str:
    return Path(__file__).with_name(name).read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Scripts:
    append: AsyncScript
    version: AsyncScript
    create: AsyncScript
    create_rate: AsyncScript

    @classmethod
    def register(cls, client: Redis | RedisCluster) -> Scripts:
        return cls(
            append=client.register_script(script_source("append.lua")),
            version=client.register_script(script_source("version.lua")),
            create=client.register_script(script_source("create.lua")),
            create_rate=client.register_script(script_source("create_rate.lua")),
        )
