"""Fixtures: a real Redis on a free port, the real server on port 0, real websocket clients."""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from protocol.client import Client
from server.embedded import RedisProcess
from server.runtime import Parts, running
from server.settings import Settings
from tests.server.postgres import PostgresProcess
from tests.server.sentinels import Topology
from tests.support import until


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    """A real ``redis-server`` of this test's own, on a free TCP port, persisting to tmp_path."""
    process = RedisProcess(tmp_path / "redis", port=free_port())
    process.start()
    try:
        yield process
    finally:
        process.stop()


@dataclass
class Running:
    """A server started by a test: its websocket URL, HTTP base URL and hub."""

    ws_url: str
    http_url: str
    hub: Parts
    settings: Settings

    @property
    def metrics_url(self) -> str:
        """Its ``/metrics``, on the port of its own (``Settings.metrics_port``)."""
        assert self.hub.metrics.port is not None
        return f"http://127.0.0.1:{self.hub.metrics.port}/metrics"

    @property
    def redis_url(self) -> str:
        assert self.settings.redis_url is not None
        return self.settings.redis_url

    def connect(
        self,
        nickname: str | None = None,
        token: str | None = None,
        *,
        address: str | None = None,
    ) -> Any:
        """A client that has said hello; ``address``: the one it says it comes from in
        ``X-Forwarded-For`` (believed by a server that trusts 127.0.0.1 as a proxy)."""
        headers = None if address is None else {"X-Forwarded-For": address}
        return Client.connect(self.ws_url, nickname=nickname, token=token, headers=headers)


StartServer = Callable[..., contextlib.AbstractAsyncContextManager[Running]]

BASE_SETTINGS = Settings(
    port=0, metrics_port=0, bot_workers=1, sweep_interval=0.02, puzzle_mining_interval=0
)


@pytest.fixture
async def start_server(redis_server: RedisProcess, tmp_path: Path) -> AsyncIterator[StartServer]:
    """Start a server on this test's Redis, with its database a SQLite file of this test's
    (under ``data``): ``async with start_server(**settings) as srv`` (``redis_url`` may name
    another database of it)."""

    @contextlib.asynccontextmanager
    async def start(**overrides: Any) -> AsyncIterator[Running]:
        defaults = {"redis_url": redis_server.url, "data": tmp_path / "data"}
        settings = replace(BASE_SETTINGS, **{**defaults, **overrides})
        async with running(settings) as (server, hub):
            port = server.sockets[0].getsockname()[1]
            yield Running(f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", hub, settings)

    yield start
    try:
        await _no_connection_left(redis_server)
    finally:
        await _no_task_left()


async def _no_connection_left(redis_server: RedisProcess) -> None:
    """Fail when a connection to the test's Redis is still open once its servers stopped
    (and the test closed its own clients): one left open by a task that ran on unwatched
    would otherwise surface as an "unclosed Connection" warning in a later test, when the
    garbage collector finds it. (Redis drops a closed connection from its list on its next
    turn: it is asked until the list is empty.)"""
    async with contextlib.aclosing(aioredis.Redis.from_url(redis_server.url)) as admin:
        me = await admin.client_id()
        left: list[dict[str, Any]] = []

        async def closed() -> bool:
            nonlocal left
            left = [c for c in await admin.client_list() if int(c["id"]) != me]
            return not left

        await until(
            closed,
            lambda: f"connections left open in Redis once the servers stopped: {left}",
            timeout=CLOSE_SECONDS,
        )


CLOSE_SECONDS = 5.0
"""How long Redis gets to drop the connections of the servers of a test once they stopped."""
LEFT_SECONDS = 60.0
"""How long the tasks a server test left running get to end once cancelled (SQLAlchemy's
graceful close of an aiosqlite connection took over 15 s once, on a loaded machine)."""


async def _no_task_left() -> None:
    """Cancel the tasks a test left running (its servers have stopped) and fail, with each one's
    stack, when one will not end: closing the test's event loop would otherwise wait for it
    without end (a task that swallows its cancellation), and the test would hang to its timeout
    with no word of which task it was."""
    me = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not me and not task.done()]
    if not left:
        return
    for task in left:
        task.cancel()
    _, pending = await asyncio.wait(left, timeout=LEFT_SECONDS)
    if pending:
        stacks = io.StringIO()
        for task in pending:
            task.print_stack(file=stacks)
            asyncio.tasks._unregister_task(task)  # (else closing the loop waits for it forever)
        raise AssertionError(
            f"{len(pending)} tasks would not end when cancelled:\n{stacks.getvalue()}"
        )


@pytest.fixture
async def srv(start_server: StartServer) -> AsyncIterator[Running]:
    """A server with the default test settings."""
    async with start_server() as running_server:
        yield running_server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresProcess]:
    """A real PostgreSQL server for the whole session (each test gets a database of its own
    from ``database_url``), on a free port in a temporary folder. Without Debian's
    ``postgresql`` the tests that need it fail, saying so: they never skip."""
    process = PostgresProcess()
    process.start()
    try:
        yield process
    finally:
        process.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new empty database of each kind the server runs on: a SQLite file, and a
    database of the session's PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'archive.sqlite3'}"
    server: PostgresProcess = request.getfixturevalue("postgres_server")
    return server.create()


@pytest.fixture
def sentinel_topology(tmp_path: Path) -> Iterator[Topology]:
    """A primary, a replica and three sentinels of this test's own (Debian's ``redis-server``
    on free ports; ``tests.server.sentinels``), ready to fail over."""
    topology = Topology(tmp_path / "ha")
    try:
        topology.start()
        yield topology
    finally:
        topology.stop()
