"""The websocket wire protocol: every message in both directions, as msgspec tagged structs.

Client -> server: ``hello``, ``act``, ``resume``, ``ping``.
Server -> client: ``welcome``, ``patch``, ``ack``, ``rejected``, ``resync``, ``error``, ``pong``.
The JSON Schemas in ``client-protocol/schemas`` are generated from these types.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from ..match.actions import Action
from ..match.rejection import Value

PROTOCOL_VERSION = 1

Role = Literal["a", "b", "spectator"]


# ---- client -> server -------------------------------------------------------------------


class Hello(msgspec.Struct, frozen=True, tag="hello", tag_field="type", forbid_unknown_fields=True):
    """First message on a connection: a side token, or a spectator (with the match's spectator
    token when the match is private). ``resume_from`` asks for patches after that seq instead of a
    full view when the client already holds the view as of that seq."""

    token: str | None = None
    spectator: bool = False
    spectator_token: str | None = None
    resume_from: int | None = None
    protocol: int = PROTOCOL_VERSION


class Act(msgspec.Struct, frozen=True, tag="act", tag_field="type", forbid_unknown_fields=True):
    """Take an action. ``action_id`` is chosen by the client and makes retries safe; ``expect``
    (optional) is the seq the client based the action on: if the match has moved on, the action is
    rejected as ``stale`` instead of being applied to a state the player has not seen."""

    action_id: str
    action: Action
    expect: int | None = None


class Resume(msgspec.Struct, frozen=True, tag="resume", tag_field="type", forbid_unknown_fields=True):
    """Ask for every patch after ``from_seq`` (after a gap or a reconnect)."""

    from_seq: int


class Ping(msgspec.Struct, frozen=True, tag="ping", tag_field="type", forbid_unknown_fields=True):
    nonce: str = ""


ClientMessage = Hello | Act | Resume | Ping


# ---- server -> client -------------------------------------------------------------------


class Welcome(msgspec.Struct, frozen=True, tag="welcome", tag_field="type"):
    match_id: str
    role: Role
    seq: int
    view: Any
    protocol: int = PROTOCOL_VERSION
    delay_events: int = 0
    delay_seconds: float = 0.0
    delayed: bool = False


class Patch(msgspec.Struct, frozen=True, tag="patch", tag_field="type"):
    """RFC 6902 operations turning the view at ``seq - 1`` into the view at ``seq``."""

    seq: int
    ops: list[dict[str, Any]]


class Ack(msgspec.Struct, frozen=True, tag="ack", tag_field="type"):
    action_id: str
    seq: int
    duplicate: bool = False


class Rejected(msgspec.Struct, frozen=True, tag="rejected", tag_field="type"):
    action_id: str
    code: str
    rule: str
    message: str
    values: dict[str, Value] = {}


class Resync(msgspec.Struct, frozen=True, tag="resync", tag_field="type"):
    """A fresh full view, sent when a client is too far behind for patches."""

    seq: int
    view: Any
    reason: str = ""


class Error(msgspec.Struct, frozen=True, tag="error", tag_field="type"):
    """A protocol error (malformed frame, unknown type, wrong role...). The connection stays open
    unless ``fatal``."""

    code: str
    message: str
    fatal: bool = False


class Pong(msgspec.Struct, frozen=True, tag="pong", tag_field="type"):
    nonce: str = ""


ServerMessage = Welcome | Patch | Ack | Rejected | Resync | Error | Pong

# ---- the replay feed: /matches/{id}/replay ----------------------------------------------


# Replay pacing: ``speed`` divides the match's own gaps (more than 0); ``max_gap`` caps each
# pause in seconds (0: no cap); ``count`` frames at least 1.
Speed = Annotated[float, msgspec.Meta(gt=0)]
MaxGap = Annotated[float, msgspec.Meta(ge=0)]
StepCount = Annotated[int, msgspec.Meta(ge=1)]


class ReplayOpen(
    msgspec.Struct, frozen=True, tag="replay_open", tag_field="type", forbid_unknown_fields=True
):
    """First message on a replay connection. ``token``: a side token or the spectator token of a
    private match (a spectator of a delayed match replays only up to the delayed seq). Starts at
    ``from_seq`` (a ``replay_state``), then ``mode`` "step" waits for ``replay_step``; "play" sends
    frames at the match's own pace divided by ``speed``, each pause capped at ``max_gap`` seconds
    (0: no cap)."""

    from_seq: int = 1
    mode: Literal["step", "play"] = "step"
    speed: Speed = 1.0
    max_gap: MaxGap = 5.0
    token: str | None = None


class ReplayPlay(
    msgspec.Struct, frozen=True, tag="replay_play", tag_field="type", forbid_unknown_fields=True
):
    speed: Speed = 1.0
    max_gap: MaxGap | None = None


class ReplayPause(
    msgspec.Struct, frozen=True, tag="replay_pause", tag_field="type", forbid_unknown_fields=True
):
    pass


class ReplayStep(
    msgspec.Struct, frozen=True, tag="replay_step", tag_field="type", forbid_unknown_fields=True
):
    """Send the next ``count`` frames now (pauses playback; at most 1,000 at a time)."""

    count: StepCount = 1


class ReplaySeek(
    msgspec.Struct, frozen=True, tag="replay_seek", tag_field="type", forbid_unknown_fields=True
):
    """Jump to the state as of ``seq`` (a fresh ``replay_state``); the mode is kept."""

    seq: int


ReplayClientMessage = ReplayOpen | ReplayPlay | ReplayPause | ReplayStep | ReplaySeek | Ping


class ReplayState(msgspec.Struct, frozen=True, tag="replay_state", tag_field="type"):
    """The full view as of ``seq`` (after open or seek); frames continue from it."""

    match_id: str
    seq: int
    last: int
    view: Any
    undone_by: int | None = None


class ReplayFrame(msgspec.Struct, frozen=True, tag="replay_frame", tag_field="type"):
    """The event at ``seq`` and the RFC 6902 patch from the view at ``seq - 1`` to ``seq``.

    Undone branches are marked, not hidden: ``undone_by`` is the undo or granted takeback that
    later took this event back (when already known); an undo's own frame gives ``restores`` (the
    seq whose state it brings back) and ``undoes`` (the actions it takes back)."""

    seq: int
    at: float
    by: str
    event: str
    ops: list[dict[str, Any]]
    undone_by: int | None = None
    restores: int | None = None
    undoes: list[int] = []


class ReplayEnd(msgspec.Struct, frozen=True, tag="replay_end", tag_field="type"):
    """No more frames for now: ``seq`` is the last one this viewer may see. While the match
    goes on (``ended`` false) frames resume as new events arrive (in "play" mode)."""

    seq: int
    ended: bool


ReplayServerMessage = ReplayState | ReplayFrame | ReplayEnd | Error | Pong

replay_decoder = msgspec.json.Decoder(ReplayClientMessage)

client_decoder = msgspec.json.Decoder(ClientMessage)
server_decoder = msgspec.json.Decoder(ServerMessage)
encoder = msgspec.json.Encoder()


def encode(message: ServerMessage | ClientMessage | ReplayServerMessage | ReplayClientMessage) -> bytes:
    return encoder.encode(message)
