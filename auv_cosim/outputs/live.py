"""``run --live [--port N]``: the run served to Foxglove while it flies.

A Foxglove WebSocket server (the SDK's, ``foxglove.start_server``) on 127.0.0.1 only (a viewer
on the same machine; another address is never taken by default), publishing the channels of
the MCAP file (``foxglove``): open Foxglove, "Open connection", ``ws://127.0.0.1:PORT``.

The run never waits for a viewer: the SDK queues each client's messages and drops the oldest
when a client falls behind (``message_backlog_size``), and a message logged with no client
connected costs only its encoding; a viewer that connects, lags or goes away changes neither
the pace nor the results. With ``--realtime`` every point is published as it is made
(``every = 1``); without, the rows come in the loop's blocks (it flies at hundreds of times real
time: mostly useful to see the end). The drawn scene (vehicle, waypoints, surface, floor) is
sent again every ``STATIC_EVERY_S`` of wall time, for a viewer that connects late.
"""

from __future__ import annotations

import sys
import time

from .foxglove import FoxgloveObserver

STATIC_EVERY_S = 1.0
HOST = "127.0.0.1"


class LiveView(FoxgloveObserver):
    def __init__(self, port: int = 8765, paced: bool = False, echo: bool = True):
        super().__init__(self._open_server, every=1 if paced else None)
        self.port = port
        self.echo = echo
        self.server = None
        self._static_at = 0.0

    def _open_server(self, ctx):
        import foxglove

        self.server = foxglove.start_server(name="auv-cosim", host=HOST, port=self.port, context=ctx)
        if self.echo:
            print(f"live: Foxglove WebSocket on ws://{HOST}:{self.server.port}", file=sys.stderr, flush=True)
        return [self.server]

    @property
    def bound_port(self) -> int | None:
        return self.server.port if self.server is not None else None

    def rows(self, block) -> None:
        super().rows(block)
        now = time.monotonic()
        if now - self._static_at >= STATIC_EVERY_S:
            self._static_at = now
            self.publisher.log_static(self.publisher._last_ns)
