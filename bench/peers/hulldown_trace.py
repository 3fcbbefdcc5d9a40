"""Per-action timeline of the hulldown server, for finding where the mover's latency goes.

Enabled by ``HULLDOWN_BENCH_TRACE=<file>`` (hulldown_server.py installs it; peer-hulldown.js then
puts the client's send time, process.hrtime.bigint(), in every action_id). Wraps, without changing
what they do: the uvicorn websocket protocol's receive, the frame outlet's writes, the event store's append and the
hub's broadcast. Appends one JSON line per action to <file> with monotonic_ns stamps (the same clock
as the Node driver's):

    client_send  the player's send (from the action_id)
    recv         uvicorn has the act frame (before the ASGI queue)
    append0/1    RedisEventStore.begin_append called / the append's reply in hand
    submit0/1    MatchRuntime.submit entered / returned
    rules0/1     run_rules_of_kind called / returned on the loop (with a trip to the rules pool, the
                 hand-over and back; inline, the decision itself)
    decide0/1    decide entered / returned, on the loop or a worker (validate, fold, hash, encode)
    pool         the act's rules call went to the pool (its kind not known to be quick)
    diff0/1      view_patch (the patch, computed while Redis runs the append)
    bcast0/1     Hub.broadcast called / returned (the patch is queued for every socket)
    (and one line per garbage collection: generation, start, duration; and one per follow-up
    work item, the next act's hash or a snapshot's save: kind, start, duration)
    sent1, sent2 the first two patch frames written to a socket (the players, when the hub sends to
                 them first), sent_last the last one, sent_n how many
    ack          the ack frame written to the mover's socket

An action's line is written in a loop callback right after the live socket has handled the act
(its frames are out by then), not when the next act arrives, where the write would sit on that
act's path: the trace then adds about 0.12 ms less to the mover (1.74 against 1.86 ms p50 in one
pair of runs, 2026-12-03).

A diagnostic, not the benchmark: the bench results are produced without it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import time
from typing import Any

ACTION_STAMP = re.compile(r'"action_id":"bench-[ab]-\d+-(\d+)"')


def install(path: str) -> None:
    from uvicorn.protocols.websockets import websockets_sansio_impl as ws_impl

    from hulldown.live import hub as hub_mod
    from hulldown.store import redis_store

    out = open(path, "a", buffering=1)  # noqa: SIM115
    now = time.monotonic_ns
    current: dict[str, Any] = {}

    def flush() -> None:
        if current:
            out.write(json.dumps(current) + "\n")
            current.clear()

    proto = ws_impl.WebSocketsSansIOProtocol
    original_receive = proto.send_receive_event_to_app

    def send_receive_event_to_app(self: Any) -> None:
        t = now()
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        match = ACTION_STAMP.search(data.decode(errors="replace")) if b'"act"' in data else None
        if match is not None:
            flush()
            current.update({"client_send": int(match.group(1)), "recv": t})
        original_receive(self)

    proto.send_receive_event_to_app = send_receive_event_to_app  # type: ignore[method-assign]

    # Messages handed straight to the live socket's reader (web/ws_protocol.py) skip the above.
    from hulldown.web import ws_protocol as direct_protocol

    original_hand_over = direct_protocol.FrameWritingProtocol._hand_over

    def hand_over(self: Any, to: Any, data: bytes, kind: str) -> None:
        t = now()
        match = ACTION_STAMP.search(data.decode(errors="replace")) if b'"act"' in data else None
        if match is not None:
            flush()
            current.update({"client_send": int(match.group(1)), "recv": t})
        original_hand_over(self, to, data, kind)

    direct_protocol.FrameWritingProtocol._hand_over = hand_over  # type: ignore[method-assign]

    original_data_received = proto.data_received

    def data_received(self: Any, data: bytes) -> None:
        t = now()
        original_data_received(self, data)
        if current and "recv" in current and "dr0" not in current:
            current["dr0"], current["dr1"] = t, now()

    proto.data_received = data_received  # type: ignore[method-assign]

    original_app_receive = proto.receive

    async def app_receive(self: Any) -> Any:
        message = await original_app_receive(self)
        if current and "queued" not in current:
            current["queued"] = now()
        return message

    proto.receive = app_receive  # type: ignore[method-assign]

    # Every frame the server writes to a live socket goes through its outlet (web/ws_protocol.py).
    from hulldown.web import ws_protocol

    outlet_cls = ws_protocol.FrameOutlet
    original_send = outlet_cls.send

    def send(self: Any, message: Any, then: Any = None) -> bool:
        written = original_send(self, message, then)
        for sent in (message, then):
            text = sent.text if sent is not None else ""
            if text and current:
                t = now()
                if text.startswith('{"type":"patch"'):
                    n = current["sent_n"] = current.get("sent_n", 0) + 1
                    if n <= 2:
                        current[f"sent{n}"] = t
                    current["sent_last"] = t
                elif text.startswith('{"type":"ack"'):
                    current["ack"] = t
        return written

    outlet_cls.send = send  # type: ignore[method-assign]

    store_cls = redis_store.RedisEventStore
    original_begin_append = store_cls.begin_append

    async def begin_append(self: Any, *args: Any, **kwargs: Any) -> Any:
        # append0: the append command is about to be written; append1: its reply is in hand.
        if current:
            current["append0"] = now()
        result_of = await original_begin_append(self, *args, **kwargs)

        async def result() -> Any:
            answer = await result_of()
            if current:
                current["append1"] = now()
            return answer

        return result

    store_cls.begin_append = begin_append  # type: ignore[method-assign]

    hub_cls = hub_mod.Hub
    original_broadcast = hub_cls.broadcast

    def broadcast(self: Any, text: str, *args: Any, **kwargs: Any) -> None:
        if current and "bcast0" not in current:
            current["bcast0"] = now()
            current["targets"] = len(self.connections) if hasattr(self, "connections") else None
        original_broadcast(self, text, *args, **kwargs)
        if current and "bcast1" not in current:
            current["bcast1"] = now()

    hub_cls.broadcast = broadcast  # type: ignore[method-assign]

    # Finer stamps inside the runtime, where the names exist (the runtime changes; skip what is gone).
    from hulldown.live import runtime as runtime_mod

    def stamp_sync(owner: Any, name: str, key: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if current and f"{key}0" not in current:
                current[f"{key}0"] = now()
                result = original(*args, **kwargs)
                current[f"{key}1"] = now()
                return result
            return original(*args, **kwargs)

        setattr(owner, name, wrapper)

    def stamp_async(owner: Any, name: str, key: str, written: bool = False) -> None:
        """``written``: the action's line is complete when this returns; it is written to the
        file in a later callback of the loop, once this action's frames are out, rather than when
        the next action arrives (where the write would sit on that action's path)."""
        original = getattr(owner, name, None)
        if original is None:
            return

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            if current and f"{key}0" not in current:
                current[f"{key}0"] = now()
                result = await original(*args, **kwargs)
                current[f"{key}1"] = now()
                if written:
                    asyncio.get_running_loop().call_soon(flush)
                return result
            return await original(*args, **kwargs)

        setattr(owner, name, wrapper)

    stamp_async(runtime_mod.MatchRuntime, "submit", "submit")
    # The receive path: the reader's handling of the frame (web/live_reader.py), the strict
    # decode; the act started without a task (submitnow0/1), Redis' reply handled (reply0/1).
    from hulldown.web import live_reader

    stamp_sync(live_reader, "decode_frame", "decodef")
    stamp_sync(live_reader.LiveReader, "_handle", "handle")
    stamp_sync(runtime_mod.MatchRuntime, "submit_now", "submitnow")
    stamp_sync(runtime_mod.MatchRuntime, "_appended_now", "reply")
    stamp_sync(redis_store.RedisEventStore, "append_now", "appendnow")
    original_acted = live_reader.LiveReader._acted

    def acted(self: Any, *args: Any, **kwargs: Any) -> None:
        original_acted(self, *args, **kwargs)
        if current:
            current["acted"] = now()
            asyncio.get_running_loop().call_soon(flush)

    live_reader.LiveReader._acted = acted  # type: ignore[method-assign]
    # The act's rules call: rules0/1 on the loop, decide0/1 wherever it runs.
    stamp_async(runtime_mod, "run_rules_of_kind", "rules")
    stamp_sync(runtime_mod, "decide", "decide")
    # pool: the act's rules call went to the pool (a kind not known to be quick) rather than inline.
    from hulldown.live import rules_pool

    original_on_pool = rules_pool._on_pool

    async def on_pool(*args: Any, **kwargs: Any) -> Any:
        if current:
            current["pool"] = current.get("pool", 0) + 1
        return await original_on_pool(*args, **kwargs)

    rules_pool._on_pool = on_pool  # type: ignore[assignment]
    stamp_sync(runtime_mod, "view_patch", "diff")

    # Work left for after an act (the next act's hash, a due snapshot's save): one
    # {"follow": "hash" | "snapshot", "t": start, "ns": duration} line each (the snapshot's
    # write until Redis' reply).
    def follow_up_line(kind: str, t: int) -> None:
        out.write(json.dumps({"follow": kind, "t": t, "ns": now() - t}) + "\n")

    def follow_up(owner: Any, name: str, kind: str) -> None:
        original = getattr(owner, name, None)
        if original is None:  # as the stamps above: an older runtime may not have it
            return
        if asyncio.iscoroutinefunction(original):

            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                t = now()
                try:
                    return await original(*args, **kwargs)
                finally:
                    follow_up_line(kind, t)

            setattr(owner, name, timed_async)
            return

        def timed(*args: Any, **kwargs: Any) -> Any:
            t = now()
            try:
                return original(*args, **kwargs)
            finally:
                follow_up_line(kind, t)

        setattr(owner, name, timed)

    follow_up(runtime_mod.MatchRuntime, "_hash_now", "hash")
    follow_up(redis_store.RedisEventStore, "save_snapshot", "snapshot")

    # Garbage-collector pauses: one {"gc": generation, "t": start, "ns": duration} line each.
    gc_start: list[int] = [0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_start[0] = now()
        else:
            t = gc_start[0]
            out.write(json.dumps({"gc": info["generation"], "t": t, "ns": now() - t}) + "\n")

    gc.callbacks.append(on_gc)
