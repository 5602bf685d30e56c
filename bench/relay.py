"""A bare ``websockets`` relay: the yardstick of the load bench (no Redis, no rules, no msgpack
schema).

    python -m bench.relay --port P

A client's first binary frame names its group (any bytes); the relay echoes it back once the
client has joined. Every later frame of a client is forwarded as it is to the other members of
its group, with ``websockets.asyncio.server.broadcast`` as the game server sends its updates.
It runs until SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import signal

from websockets.asyncio.server import ServerConnection, broadcast, serve

from protocol import MAX_FRAME_BYTES


class Relay:
    """The groups and the websocket handler."""

    def __init__(self) -> None:
        self.groups: dict[bytes, set[ServerConnection]] = {}

    async def handle(self, ws: ServerConnection) -> None:
        first = await ws.recv()
        group = first if isinstance(first, bytes) else first.encode()
        members = self.groups.setdefault(group, set())
        members.add(ws)
        try:
            await ws.send(group)
            async for frame in ws:
                broadcast([member for member in members if member is not ws], frame)
        finally:
            members.discard(ws)
            if not members:
                self.groups.pop(group, None)


async def run(host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    relay = Relay()
    async with serve(relay.handle, host, port, max_size=MAX_FRAME_BYTES, compression=None):
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(run(args.host, args.port))


if __name__ == "__main__":
    main()
