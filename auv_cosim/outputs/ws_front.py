"""A thin WebSocket front for the live view: one port for clients of either name of the Foxglove
WebSocket protocol.

The Foxglove SDK's server accepts only the subprotocol ``foxglove.sdk.v1``; older viewers
(Foxglove Studio 1.x, Lichtblick before it learnt the new name, ``@foxglove/ws-protocol``'s
client, whose default it is) offer ``foxglove.websocket.v1`` and are refused with HTTP 400. The
two names are one protocol (the same JSON and binary messages), so the front accepts a client
offering either, opens a connection of its own to the SDK's server (on a loopback port of its
own, ``foxglove.sdk.v1``) and relays every frame both ways, unchanged, until either side
closes. A client offering both names gets ``foxglove.sdk.v1``.

The front never holds the run: it runs on its own thread and event loop, and the SDK's server
still queues each client's messages and drops the oldest of one that falls behind (the relay
reads from it no faster than its client takes them).
"""

from __future__ import annotations

import asyncio
import threading

#: the subprotocols a client may offer, the first preferred
SUBPROTOCOLS = ("foxglove.sdk.v1", "foxglove.websocket.v1")
#: the one the SDK's server speaks
BACKEND_SUBPROTOCOL = "foxglove.sdk.v1"


class ProtocolFront:
    """Serves ``host:port`` (0: any free port; ``port`` then says which) and relays each client to
    the SDK's server at ``host:backend_port``. A port that cannot be had raises ``OSError`` here,
    before anything runs."""

    def __init__(self, host: str, port: int, backend_port: int):
        self.host, self.backend_port = host, backend_port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="foxglove-front", daemon=True)
        self.thread.start()
        try:
            self.server = asyncio.run_coroutine_threadsafe(self._serve(port), self.loop).result(timeout=30)
        except BaseException:
            self._stop_loop()
            raise
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, port: int):
        from websockets.asyncio.server import serve

        return await serve(self._relay, self.host, port, subprotocols=list(SUBPROTOCOLS), max_size=None,
                           compression=None)

    async def _relay(self, client) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        try:
            async with connect(f"ws://{self.host}:{self.backend_port}", subprotocols=[BACKEND_SUBPROTOCOL],
                               max_size=None, compression=None) as backend:
                pumps = [asyncio.create_task(_pump(client, backend)), asyncio.create_task(_pump(backend, client))]
                _, pending = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    task.cancel()
        except (OSError, WebSocketException, asyncio.TimeoutError):
            pass   # the SDK's server went away (the run ended): the client's connection closes

    def close(self) -> None:
        async def shut():
            self.server.close()
            await self.server.wait_closed()

        try:
            asyncio.run_coroutine_threadsafe(shut(), self.loop).result(timeout=10)
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


async def _pump(src, dst) -> None:
    """Every frame of ``src`` to ``dst`` (text as text, binary as binary) until one closes."""
    from websockets.exceptions import ConnectionClosed

    try:
        async for frame in src:
            await dst.send(frame)
    except ConnectionClosed:
        pass
    finally:
        await dst.close()
