"""The replay feed ``/matches/{id}/replay`` (docs/architecture.md section 10).

``replay_open`` -> ``replay_state`` (the view as of ``from_seq``) -> ``replay_frame``s, each the
event at ``seq`` and the JSON Patch from the view before it, either on request (``replay_step``)
or at the match's own pace (``replay_play``: the gaps between the events' server timestamps,
divided by ``speed``, capped at ``max_gap``). ``replay_seek`` jumps anywhere. A finished match
replays to its end; a live one is followed as it goes. Undone branches are marked in the frames,
never hidden. Spectators of a delayed match never get past the delayed seq.
"""

from __future__ import annotations

import asyncio
import contextlib

from redis.exceptions import RedisError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..live import observe
from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..match.state import MatchState
from ..match.timeline import Timeline
from ..match.views import view_json, view_patch
from ..wire import protocol
from .access import Access, check_access
from .rate_limit import RateLimit
from .socket_frames import (
    Refused,
    close_store_unavailable,
    decode_frame,
    error_text,
    read_first,
    receive_frame,
)

OPEN_TIMEOUT = 10.0
MAX_STEP = 1000
IDLE_POLL = 1.0
MAX_PAUSE = 86_400.0  # seconds: the longest pause between two frames in "play", whatever the pace
# A step's frames are folded and diffed on the event loop one at a time, the loop given a turn
# after each: a step of 1,000 on a match at the definition's limits took ~950 ms in one go, and
# every match of the process waited; one frame is ~1 ms, under the rules pool's inline budget.
FRAMES_PER_TURN = 1


def _text(message: protocol.ReplayServerMessage) -> str:
    return protocol.encode(message).decode()


_error = error_text


async def replay_socket(websocket: WebSocket) -> None:
    live: LiveService = websocket.app.state.live
    max_frame: int = websocket.app.state.settings.max_frame
    rate: int = websocket.app.state.settings.rate
    match_id = websocket.path_params["match_id"]
    await websocket.accept()
    try:
        opened = await _read_open(websocket, max_frame)
        if opened is None:
            return
        runtime = await live.get(match_id)
        if runtime is None:
            await websocket.send_text(_error("unknown_match", f"no match {match_id}", fatal=True))
            await websocket.close(code=4404)
            return
        with runtime.in_use():  # from here: not evicted while the token is checked
            access = await check_access(live, match_id, opened.token)
            if access is None:
                await websocket.send_text(
                    _error("unauthorised", "this match is private: bad token", fatal=True)
                )
                await websocket.close(code=4401)
                return
            with observe.connected("replay"):
                await ReplaySession(websocket, live, runtime, access, opened, max_frame, rate).run()
    except WebSocketDisconnect:
        return
    except RedisError as exc:
        await close_store_unavailable(websocket, exc)


async def _read_open(websocket: WebSocket, max_frame: int) -> protocol.ReplayOpen | None:
    return await read_first(
        websocket,
        protocol.replay_decoder,
        protocol.ReplayOpen,
        max_frame=max_frame,
        timeout=OPEN_TIMEOUT,
        timeout_code="open_timeout",
        first_code="open_first",
    )


class ReplaySession:
    """One replay connection: a cursor state, a mode and (while playing) a pacing task."""

    def __init__(
        self,
        websocket: WebSocket,
        live: LiveService,
        runtime: MatchRuntime,
        access: Access,
        opened: protocol.ReplayOpen,
        max_frame: int,
        rate: int,
    ) -> None:
        self.websocket = websocket
        self.live = live
        self.runtime = runtime
        self.access = access
        self.opened = opened
        self.max_frame = max_frame
        # The live socket's token bucket (HULLDOWN_RATE, burst 2x): a seek or a step folds and
        # diffs states on the event loop, so an unlimited stream of them held the loop.
        self.rate = rate
        self.limiter = RateLimit(rate)
        self.speed = opened.speed
        self.max_gap = opened.max_gap
        self.cursor: MatchState | None = None
        self._send_lock = asyncio.Lock()
        self._player: asyncio.Task[None] | None = None
        self._ended_at: int | None = None

    # ---- plumbing ------------------------------------------------------------------------

    async def send(self, text: str) -> None:
        async with self._send_lock:
            await self.websocket.send_text(text)

    def limit(self) -> int:
        return self.access.limit(self.runtime)

    async def timeline(self) -> Timeline:
        timeline = await self.live.timeline(self.runtime.match_id, self.limit())
        assert timeline is not None  # the runtime exists, so the match does
        return timeline

    def _known(self, mark: int | None) -> int | None:
        """An undo mark this viewer may know of (a delayed spectator: not beyond its limit)."""
        return mark if mark is not None and mark <= self.limit() else None

    # ---- the conversation ----------------------------------------------------------------

    async def run(self) -> None:
        await self.seek(self.opened.from_seq)
        if self.opened.mode == "play":
            self.play()
        try:
            while True:
                frame = await receive_frame(self.websocket, self.max_frame)
                if not self.limiter.allow():
                    await self.send(_error("rate_limited", f"more than {self.rate} messages per second"))
                    continue
                message = (
                    frame if isinstance(frame, Refused) else decode_frame(protocol.replay_decoder, frame)
                )
                if isinstance(message, Refused):
                    await self.send(message.text)
                    continue
                await self.handle(message)
        finally:
            await self.pause()

    async def handle(self, message: protocol.ReplayClientMessage) -> None:
        match message:
            case protocol.ReplayPlay():
                await self.pause()
                self.speed = message.speed
                if message.max_gap is not None:
                    self.max_gap = message.max_gap
                self.play()
            case protocol.ReplayPause():
                await self.pause()
            case protocol.ReplayStep():
                await self.pause()
                await self.step(max(1, min(message.count, MAX_STEP)))
            case protocol.ReplaySeek():
                playing = self._player is not None
                await self.pause()
                await self.seek(message.seq)
                if playing:
                    self.play()
            case protocol.Ping():
                await self.send(_text(protocol.Pong(nonce=message.nonce)))
            case protocol.ReplayOpen():
                await self.send(_error("already_open", "replay_open was already received"))

    # ---- moving the cursor ---------------------------------------------------------------

    async def seek(self, seq: int) -> None:
        last = self.limit()
        target = max(1, min(seq, last))
        timeline = await self.timeline()
        self.cursor = timeline.state_at(target)
        self._ended_at = None
        await self.send(
            _text(
                protocol.ReplayState(
                    match_id=self.runtime.match_id,
                    seq=target,
                    last=last,
                    view=view_json(self.cursor),
                    undone_by=self._known(timeline.undone_by.get(target)),
                )
            )
        )

    async def step(self, count: int) -> None:
        for done in range(count):
            if done and done % FRAMES_PER_TURN == 0:
                await asyncio.sleep(0)  # the loop's turn: other matches are served between frames
            if not await self.advance():
                await self.end(once=False)  # every step asked for at the end is answered
                return

    async def advance(self) -> bool:
        """Send the next frame if this viewer may see it."""
        cursor = self.cursor
        if cursor is None or cursor.seq >= self.limit():
            return False
        timeline = await self.timeline()
        event = timeline.events[cursor.seq - timeline.base]
        after = timeline.next_state(cursor)
        restores = timeline.restores.get(event.seq)
        undoes = sorted(s for s, u in timeline.undone_by.items() if u == event.seq) if restores else []
        frame = protocol.ReplayFrame(
            seq=event.seq,
            at=event.at,
            by=event.by,
            event=str(type(event.body).__struct_config__.tag),
            ops=view_patch(cursor, after),
            undone_by=self._known(timeline.undone_by.get(event.seq)),
            restores=restores,
            undoes=undoes,
        )
        self.cursor = after
        await self.send(_text(frame))
        return True

    async def end(self, *, once: bool = True) -> None:
        """Say that there is nothing more for now: ``once`` per position while playing (the
        player looks again every IDLE_POLL seconds), else every time (a step asked for)."""
        cursor = self.cursor
        if cursor is None or (once and self._ended_at == cursor.seq):
            return
        self._ended_at = cursor.seq
        visible = self.access.state(self.runtime)
        await self.send(_text(protocol.ReplayEnd(seq=cursor.seq, ended=visible.ended)))

    # ---- playing -------------------------------------------------------------------------

    def play(self) -> None:
        self._ended_at = None  # a player just started says where it stands, even at the end
        self._player = asyncio.create_task(self._play())

    async def pause(self) -> None:
        player, self._player = self._player, None
        if player is not None:
            player.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await player

    async def _play(self) -> None:
        """Play on until paused; the store failing under it ends the connection as it would any
        other request's (``store_unavailable``, close 1013), not the player alone, silently."""
        try:
            await self._play_on()
        except RedisError as exc:
            async with self._send_lock:
                await close_store_unavailable(self.websocket, exc)

    async def _play_on(self) -> None:
        while True:
            changed = self.runtime.changed
            cursor = self.cursor
            if cursor is None:
                return
            if cursor.seq >= self.limit():
                await self.end()
                if self.access.state(self.runtime).ended:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), IDLE_POLL)
                continue
            timeline = await self.timeline()
            previous = timeline.events[cursor.seq - 1 - timeline.base].at
            upcoming = timeline.events[cursor.seq - timeline.base].at
            gap = min(max(0.0, (upcoming - previous) / self.speed), MAX_PAUSE)
            if self.max_gap > 0:
                gap = min(gap, self.max_gap)
            await asyncio.sleep(gap)
            await self.advance()
