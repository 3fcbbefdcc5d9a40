"""The fan-out's express lane writes a clear socket's frame to the socket's descriptor itself,
and hands what the socket does not take at once to the transport, which holds it and pauses the
outlet (live/hub.py ``Hub.broadcast``, docs/architecture.md section 6); a socket whose write
fails leaves the others unharmed. Real sockets and a real asyncio transport; the peer reads the
bytes that arrive."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable

from hulldown.live.hub import Connection, Express, Hub
from hulldown.live.outgoing import Outgoing, text_frame


class _Outlet:
    """The outlet of a real transport, paused while the transport holds bytes (as FrameOutlet)."""

    def __init__(self) -> None:
        self.paused = False
        self.closed = False
        self.close_sent = False
        self.transport: asyncio.Transport | None = None
        self.sent: list[str] = []  # messages that went through ``send`` (none here)

    def express(self) -> Express | None:
        assert self.transport is not None
        return (self.transport, self, self, self.transport.get_extra_info("socket").fileno())

    def attach(self, drained: Callable[[], None]) -> None:
        pass

    def detach(self) -> None:
        pass

    def send(self, message: Outgoing, then: Outgoing | None = None) -> bool:
        self.sent.append(message.text)
        return False

    def abort(self) -> None:
        self.closed = True


class _Protocol(asyncio.Protocol):
    def __init__(self, outlet: _Outlet) -> None:
        self.outlet = outlet

    def pause_writing(self) -> None:
        self.outlet.paused = True

    def resume_writing(self) -> None:
        self.outlet.paused = False


async def _served(send_buffer: int) -> tuple[Hub, Connection, _Outlet, socket.socket]:
    """A hub with one spectator connection on a real transport over a socket pair; returns the
    peer's end, which reads nothing until the test reads it."""
    ours, peer = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    outlet = _Outlet()
    transport, _ = await asyncio.get_running_loop().connect_accepted_socket(lambda: _Protocol(outlet), ours)
    transport.set_write_buffer_limits(high=0)  # as FrameOutlet.attach: paused at the first byte held
    outlet.transport = transport
    connection = Connection(outlet, "spectator", 16, lambda: '{"type":"resync"}')
    hub = Hub()
    hub.add(connection)
    return hub, connection, outlet, peer


def _read_all(peer: socket.socket, count: int) -> bytes:
    """``count`` bytes from ``peer``, then whatever else arrives within 0.1 s (nothing should:
    a frame written twice would show here)."""
    received = b""
    peer.settimeout(5)
    while len(received) < count:
        chunk = peer.recv(count - len(received))
        assert chunk, "the socket closed before the frame arrived whole"
        received += chunk
    peer.settimeout(0.1)
    with contextlib.suppress(TimeoutError):
        received += peer.recv(1 << 16)
    return received


async def test_a_clear_socket_takes_the_frame_whole_and_stays_in_the_lane() -> None:
    hub, connection, outlet, peer = await _served(send_buffer=1 << 16)
    text = '{"type":"patch","seq":2,"ops":[]}'
    hub.broadcast(text)
    assert outlet.transport is not None and outlet.transport.get_write_buffer_size() == 0
    assert not outlet.paused and connection.express is not None and outlet.sent == []
    frame = text_frame(text.encode())
    assert _read_all(peer, len(frame)) == frame
    peer.close()
    outlet.transport.close()


async def test_what_the_socket_does_not_take_waits_in_the_transport_in_order() -> None:
    hub, connection, outlet, peer = await _served(send_buffer=4096)
    big = '{"type":"patch","seq":2,"ops":[' + ",".join(['{"op":"add","path":"/x","value":1}'] * 20_000) + "]}"
    hub.broadcast(big)
    assert outlet.transport is not None
    held = outlet.transport.get_write_buffer_size()
    frame = text_frame(big.encode())
    assert 0 < held < len(frame)  # part went to the socket at once, the rest waits
    assert outlet.paused and connection.express is None  # pushed back: off the lane
    hub.broadcast('{"type":"patch","seq":3,"ops":[]}')
    # the next one waits in the connection's queue, written neither to the socket nor the outlet
    assert [m.text for m in connection.pending] == ['{"type":"patch","seq":3,"ops":[]}']
    assert outlet.sent == [] and outlet.transport.get_write_buffer_size() == held
    reading = asyncio.get_running_loop().run_in_executor(None, _read_all, peer, len(frame))
    assert await reading == frame  # whole, once, in order
    peer.close()
    outlet.transport.close()


async def test_a_socket_whose_peer_is_gone_fails_alone() -> None:
    """The descriptor write to a socket whose peer went away fails (EPIPE): the transport is
    told, and takes the failure (it closes); the broadcast goes on to the next socket, which
    gets every frame whole and in order."""
    hub, gone, gone_outlet, gone_peer = await _served(send_buffer=1 << 16)
    _, healthy, healthy_outlet, healthy_peer = await _served(send_buffer=1 << 16)
    hub.add(healthy)  # both in one hub, the one that fails first (join order)
    assert gone.express is not None and healthy.express is not None
    gone_peer.close()

    first, second = '{"type":"patch","seq":2,"ops":[]}', '{"type":"patch","seq":3,"ops":[]}'
    hub.broadcast(first)
    assert gone_outlet.transport is not None and gone_outlet.transport.is_closing()
    await asyncio.sleep(0)  # the failed transport reports its loss
    hub.broadcast(second)  # the closed transport takes nothing more through the lane
    frames = text_frame(first.encode()) + text_frame(second.encode())
    assert _read_all(healthy_peer, len(frames)) == frames
    assert healthy.express is not None and not healthy_outlet.paused
    healthy_peer.close()
    assert healthy_outlet.transport is not None
    healthy_outlet.transport.close()
