"""``run --live [--port N]``: the run served to Foxglove while it flies.

A Foxglove WebSocket server (the SDK's, ``foxglove.start_server``) on 127.0.0.1 only (a viewer
on the same machine; another address is never taken by default), publishing the channels of
the MCAP file (``foxglove``): open Foxglove, "Open connection", ``ws://127.0.0.1:PORT``. The SDK's
server speaks only ``foxglove.sdk.v1``; ``PORT`` is a thin front (``ws_front``) that also takes
older viewers offering ``foxglove.websocket.v1`` (the same protocol by its older name) and relays
each client to the SDK's server on a loopback port of its own.

The run never waits for a viewer: the SDK queues each client's messages and drops the oldest
when a client falls behind (``message_backlog_size``), and a message logged with no client
connected costs only its encoding; a viewer that connects, lags or goes away changes neither
the pace nor the results. With ``--realtime`` every point is published as it is made
(``every = 1``); without, the rows come in the loop's blocks (it flies at hundreds of times real
time: mostly useful to see the end). The drawn scene (vehicle, waypoints, surface, floor) and
the track flown so far are sent again every ``STATIC_EVERY_S`` of wall time, for a viewer that
connects late.
"""

from __future__ import annotations

import sys
import time

from .foxglove import FoxgloveObserver
from .ws_front import ProtocolFront

STATIC_EVERY_S = 1.0
HOST = "127.0.0.1"


class LiveError(Exception):
    """The server could not be started (the port taken, not a port): before anything runs."""


class _Sink:
    """What the observer closes at the end of the run."""

    def __init__(self, close):
        self.close = close


class LiveView(FoxgloveObserver):
    """The server is started when the view is made, before the run (a port that cannot be
    had is a ``LiveError`` then), and stopped when the run ends."""

    def __init__(self, port: int = 8765, paced: bool = False, echo: bool = True):
        import foxglove

        ctx = foxglove.Context()
        super().__init__(lambda _ctx: [_Sink(self.stop)], every=1 if paced else None, context=ctx)
        self.echo = echo
        self._static_at = 0.0
        if not 0 <= port <= 65535:
            raise LiveError(f"{port} is not a TCP port (0 to 65535; 0: any free one)")
        self.server = self.front = None
        try:
            self.front = ProtocolFront(HOST, port, backend_port=0)
        except OSError as e:
            raise LiveError(f"cannot serve on {HOST}:{port}: {e}") from None
        try:   # the SDK's server on a loopback port of its own, behind the front
            self.server = foxglove.start_server(name="auv-cosim", host=HOST, port=0, context=ctx)
        except Exception as e:   # the SDK's FoxgloveError comes as a RuntimeError
            self.front.close()
            raise LiveError(f"cannot start the Foxglove server on {HOST}: {e}") from None
        self.front.backend_port = self.server.port
        if self.echo:
            print(f"live: Foxglove WebSocket on ws://{HOST}:{self.front.port} (foxglove.sdk.v1 and foxglove.websocket.v1)",
                  file=sys.stderr, flush=True)

    @property
    def bound_port(self) -> int | None:
        return self.front.port if self.front is not None else None

    def stop(self) -> None:
        """The front, then the SDK's server (the sink's close)."""
        try:
            if self.front is not None:
                self.front.close()
        finally:
            if self.server is not None:
                self.server.stop()
            self.front = self.server = None

    def rows(self, block) -> None:
        super().rows(block)
        now = time.monotonic()
        if now - self._static_at >= STATIC_EVERY_S:
            self._static_at = now
            self.publisher.log_flown(self.publisher._last_ns)
