"""The deployment: docker-compose.yml and deploy/haproxy.cfg are valid, and the topology they
describe works for real: Debian's haproxy, run on deploy/haproxy.cfg itself, in front of two
``hive-server`` processes on one Redis. Players connect through the proxy, the process a player
is on is killed outright in the middle of a move, and the players reconnect through the proxy
and finish the game with every acknowledged move recorded exactly once. Then a ``hive-bot``
plays a challenge through the proxy."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import random
import re
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from protocol import CreateGame, Update
from protocol.client import Client
from server.embedded import RedisProcess
from server.storage.store import Store
from tests.server.conftest import free_port
from tests.server.deployment import COMPOSE_FILE, ROOT, compose_text, system_tool
from tests.server.support import (
    ServerProcess,
    create_bot,
    decisive_game,
    hive_bot,
    http_get,
    lobby_with_bot,
    play,
    play_to_the_end,
    published,
    start_game,
    updated,
    watch,
)
from tests.support import until

HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"


def _answered_from(port: int) -> int | None:
    """``GET /healthz`` through the proxy on ``port``: the client port it was sent from, if
    it was answered 200 (else None: refused, or 503 from haproxy with no process up)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.connect()
        assert connection.sock is not None
        local: int = connection.sock.getsockname()[1]
        connection.request("GET", "/healthz")
        answer = connection.getresponse()
        answer.read()
        return local if answer.status == 200 else None
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


class Haproxy:
    """Debian's haproxy in the foreground, on deploy/haproxy.cfg, its log in ``log``."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log.open("wb") as out:  # the child keeps its own descriptor
            self.process = await asyncio.create_subprocess_exec(
                system_tool("haproxy"),
                "-f",
                str(HAPROXY_CFG),
                "-db",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
                env={**os.environ, **self.env},
            )

    def exited(self) -> str | None:
        """Its log if it has exited."""
        if self.process is None or self.process.returncode is None:
            return None
        return self.log.read_text(errors="replace")

    def sent_to(self, client_port: int) -> str | None:
        """The process haproxy sent the latest connection from ``client_port`` to, as its log
        says (``option logasap``: as soon as the process answered); no header tells clients."""
        said = re.findall(
            rf"^127\.0\.0\.1:{client_port} \[[^\]]*\] hive hive_(?:servers|games)/(\S+) ",
            self.log.read_text(errors="replace"),
            re.MULTILINE,
        )
        return said[-1] if said and said[-1] != "<NOSRV>" else None

    def state(self, server: str) -> str | None:
        """What haproxy's health checks last said of ``server`` ("UP, reason: ...", "DOWN,
        reason: ..."); None: nothing yet (a server starts as up, unannounced)."""
        said = re.findall(
            rf"^Server hive_servers/{server} is ((?:UP|DOWN), reason: [^,]*)",
            self.log.read_text(errors="replace"),
            re.MULTILINE,
        )
        return said[-1] if said else None

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.terminate()
        try:
            async with asyncio.timeout(10):
                await self.process.wait()
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


@dataclass
class Topology:
    """Redis, two ``hive-server`` processes named as haproxy names them (``server1``,
    ``server2``), and haproxy in front. A step may kill and restart processes; it leaves them
    all up and serving behind the proxy when it ends."""

    redis: RedisProcess
    servers: dict[str, ServerProcess]
    proxy: Haproxy
    port: int

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def served_by(self) -> str | None:
        """Which process answers ``/healthz`` through the proxy now (None: none does)."""
        gone = self.proxy.exited()
        if gone is not None:
            raise AssertionError(f"haproxy exited:\n{gone}")
        client_port = await asyncio.to_thread(_answered_from, self.port)
        if client_port is None:
            return None

        async def logged() -> str | None:
            return self.proxy.sent_to(client_port)

        return await until(logged, "haproxy logs the request")

    async def wait_serving(self, name: str) -> None:
        """Wait until haproxy passes requests to the process ``name`` (its checks found it up)."""

        async def serving() -> bool | None:
            return await self.served_by() == name or None

        await until(serving, f"haproxy sends requests to {name}")

    def freeze(self, name: str) -> None:
        """Stop the process ``name`` (SIGSTOP): what it is sent now stays unread."""
        process = self.servers[name].process
        assert process is not None
        process.send_signal(signal.SIGSTOP)

    async def kill(self, name: str) -> None:
        """Kill the process ``name`` outright (SIGKILL), as a crash would."""
        assert await self.servers[name].stop(signal.SIGKILL) == -signal.SIGKILL

    async def checked(self, name: str, state: str) -> None:
        """Wait until haproxy's health checks last said ``state`` of the process ``name``."""

        async def said() -> str | None:
            found = self.proxy.state(name)
            return found if found is not None and found.startswith(state) else None

        await until(said, f"haproxy's checks say {name} is {state}")

    async def restart(self, name: str) -> None:
        """Start the process ``name`` again, on the same port, once haproxy's checks have seen
        it die; wait until they see it up (its /healthz answered 200) and haproxy uses it."""
        await self.checked(name, "DOWN")
        again = ServerProcess(*self.servers[name].args)
        self.servers[name] = again
        await again.start()
        await self.checked(name, "UP, reason: Layer7 check passed")
        await self.wait_serving(name)

    async def connect(self, player: Player, stack: contextlib.AsyncExitStack) -> None:
        """(Re)connect ``player`` through the proxy with its token; retried while haproxy still
        sends the connection to a process that has just died."""

        async def connected() -> Client | None:
            try:
                return await stack.enter_async_context(
                    Client.connect(self.ws_url, token=player.token)
                )
            except (OSError, InvalidHandshake, ConnectionClosed):
                return None

        player.client = await until(connected, f"{player.name} reconnects through the proxy")


@contextlib.asynccontextmanager
async def deployed(redis: RedisProcess, folder: Path) -> AsyncIterator[Topology]:
    """The topology of docker-compose.yml on this machine, stopped on exit whatever happens."""
    names = ("server1", "server2")
    servers = {
        name: ServerProcess(
            "--port",
            str(free_port()),
            "--redis-url",
            redis.url,
            "--data",
            str(folder / name),
            "--bot-workers",
            "1",
            # A person plays a whole game against a beginner bot as fast as it answers (100
            # moves in a second or two): past the default burst of 60 they would be refused.
            "--message-burst",
            "1000",
        )
        for name in names
    }
    port = free_port()
    env = {"HIVE_PROXY_BIND": f"127.0.0.1:{port}"}
    for number, server in enumerate(servers.values(), 1):
        env[f"HIVE_SERVER{number}"] = f"127.0.0.1:{server.args[1]}"
    topology = Topology(redis, servers, Haproxy(env, folder / "haproxy.log"), port)
    try:
        for server in servers.values():
            await server.start()
        await topology.proxy.start()

        seen: set[str] = set()

        async def both_seen() -> bool | None:
            found = await topology.served_by()
            if found is not None:
                seen.add(found)
            return seen == set(names) or None

        await until(both_seen, "haproxy sends requests to both processes")
        yield topology
    except BaseException:
        print("haproxy's log:", topology.proxy.log.read_text(errors="replace"), sep="\n")
        for name, server in topology.servers.items():
            print(f"{name}'s log:\n" + "".join(server.log))
        raise
    finally:
        try:
            await topology.proxy.stop()
        finally:
            for server in topology.servers.values():
                if server.process is not None:
                    await server.stop()


# -- players -------------------------------------------------------------------------------------


@dataclass
class Player:
    """A player seen from outside: its token, its connection now, the last update it got."""

    name: str
    token: str
    client: Client
    last: Update
    proxy: Haproxy

    @property
    def server(self) -> str:
        """The process haproxy put this connection on (its log says)."""
        found = self.proxy.sent_to(self.client.ws.local_address[1])
        assert found is not None, f"haproxy logged no connection of {self.name}"
        return found


@dataclass
class Match:
    """A game between two players through the proxy, and the moves acknowledged so far (each
    seen in an update by both players)."""

    game: str
    white: Player
    black: Player
    acknowledged: list[str]

    @property
    def players(self) -> tuple[Player, Player]:
        return self.white, self.black

    @property
    def mover(self) -> Player:
        return self.white if len(self.acknowledged) % 2 == 0 else self.black

    async def caught_up(self, ply: int) -> None:
        """Wait until both players have seen ``ply`` moves."""
        for player in self.players:
            while len(player.last.state.moves) < ply:
                player.last = await updated(player.client, self.game)

    async def play_moves(self, moves: tuple[str, ...]) -> None:
        for move in moves:
            await play(self.mover.client, self.mover.last, move)
            await self.caught_up(len(self.acknowledged) + 1)
            self.acknowledge(move)

    def acknowledge(self, move: str) -> None:
        self.acknowledged.append(move)
        for player in self.players:
            assert player.last.state.moves == self.acknowledged, player.name


async def crash_mid_move(
    topology: Topology,
    stack: contextlib.AsyncExitStack,
    game: Match,
    move: str,
    *,
    committed: bool,
) -> str:
    """The mover sends ``move`` and its process is killed outright (SIGKILL): after Redis holds
    the move (``committed``), or before the process could read it (it is stopped, SIGSTOP, when
    the move is sent). Whoever was on that process reconnects through the proxy with its token
    and asks for what it missed since the last version it saw; the mover plays the move again
    only if it was lost. Returns the process killed."""
    mover = game.mover
    victim = mover.server
    if committed:
        async with published(topology.redis.url) as wait:
            await play(mover.client, mover.last, move)
            await wait(game.game, "move")
        await topology.kill(victim)
    else:
        topology.freeze(victim)
        try:
            await play(mover.client, mover.last, move)
        finally:
            await topology.kill(victim)
    dropped = [p for p in game.players if p.server == victim]
    for player in dropped:
        with pytest.raises(ConnectionClosed):  # the proxy closes the connection
            while True:  # an update that went out before the kill still arrives first
                message = await player.client.recv(timeout=10)
                if isinstance(message, Update) and message.game == game.game:
                    player.last = message
        seen = player.last.version
        await topology.connect(player, stack)
        assert player.server != victim
        assert player.client.welcome.games == [game.game]
        player.last = await watch(player.client, game.game, since=seen)
        assert not player.last.snapshot and player.last.version >= seen
    ply = len(game.acknowledged) + 1
    if committed:
        assert mover.last.state.moves[-1:] == [move]
    else:
        assert len(mover.last.state.moves) == ply - 1
        await play(mover.client, mover.last, move)
    await game.caught_up(ply)
    game.acknowledge(move)
    return victim


async def a_game_survives_the_loss_of_its_processes(topology: Topology) -> None:
    """Two players, one on each process. The mover's process dies with the move unread: the
    mover reconnects to the other process and plays it again. The dead process comes back;
    then the other one (both players on it now) dies just after committing a move: both
    reconnect and learn of it from what they missed. The game ends, and its record holds every
    acknowledged move exactly once, in order."""
    moves = decisive_game()
    async with contextlib.AsyncExitStack() as stack:
        white = await stack.enter_async_context(Client.connect(topology.ws_url, nickname="ada"))
        black = await stack.enter_async_context(Client.connect(topology.ws_url, nickname="bob"))
        game_id, w, b = await start_game(white, black)
        game = Match(
            game_id,
            Player("ada", white.welcome.token, white, w, topology.proxy),
            Player("bob", black.welcome.token, black, b, topology.proxy),
            [],
        )
        assert game.white.server != game.black.server  # leastconn: one player on each

        await game.play_moves(moves[:8])
        first = await crash_mid_move(topology, stack, game, moves[8], committed=False)
        assert game.white.server == game.black.server != first
        await game.play_moves(moves[9:14])
        await topology.restart(first)
        await game.play_moves(moves[14:18])
        second = await crash_mid_move(topology, stack, game, moves[18], committed=True)
        assert second != first and game.white.server == game.black.server == first
        await game.play_moves(moves[19:])
        await topology.restart(second)

    final = game.white.last.state
    assert (final.status, final.reason) == ("over", "queen")
    assert game.acknowledged == list(moves)
    status, _, body = await http_get(f"{topology.http_url}/games/{game_id}.txt")
    assert status == 200
    assert body.decode().strip().split(";")[3:] == list(moves)
    client = aioredis.Redis.from_url(topology.redis.url)
    try:
        events = await Store(client).events_after(game_id, 0)
    finally:
        await client.aclose()
    assert events is not None
    assert [e.text for e in events if e.kind == "move"] == list(moves)  # each once, in order
    assert [e.version for e in events] == list(range(1, len(events) + 1))


async def a_games_connections_meet_on_one_process(topology: Topology) -> None:
    """Connections that name a game (``/ws?game=ID``, as a game's page does) go to one process,
    the game's, whichever process their players were on: there a move is made and heard."""
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client.connect(topology.ws_url, nickname=name))
            for name in ("dee", "eve")
        ]
        game_id, w, b = await start_game(*clients)
        players = [
            Player(name, c.welcome.token, c, last, topology.proxy)
            for name, c, last in zip(("dee", "eve"), clients, (w, b), strict=True)
        ]
        url = f"{topology.ws_url}?game={game_id}"
        for player in players:
            player.client = await stack.enter_async_context(Client.connect(url, token=player.token))
            player.last = await watch(player.client, game_id)
        white, black = players
        assert white.server == black.server
        await play(white.client, white.last, "wS1")
        assert (await updated(black.client, game_id)).state.moves == ["wS1"]


async def only_the_sites_own_pages_connect_through_the_proxy(topology: Topology) -> None:
    """A page of the site, loaded through the proxy, opens the websocket (its ``Origin`` is
    the proxy's host and port, which haproxy passes on in ``Host``); another site's page is
    refused with 403, by whichever process the proxy picks."""
    own = {"Origin": topology.http_url}
    async with Client.connect(topology.ws_url, nickname="fay", headers=own) as fay:
        assert fay.welcome.player
    for _ in range(len(topology.servers)):
        with pytest.raises(InvalidStatus) as refused:
            async with Client.connect(
                topology.ws_url, nickname="mal", headers={"Origin": "https://evil.example"}
            ):
                pass
        assert refused.value.response.status_code == 403


async def a_hive_bot_plays_through_the_proxy(topology: Topology) -> None:
    """An operator creates a bot account on the deployment's Redis; ``hive-bot`` connects
    through the proxy, as does a person, who challenges it by name and plays it to the end."""
    status, token, err = await create_bot(topology.redis.url, "proxy-bot")
    assert status == 0, err
    args = ("--server", topology.ws_url, "--token", token.strip(), "--level", "beginner")
    async with hive_bot(*args) as bot, Client.connect(topology.ws_url, nickname="cy") as cy:
        await bot.wait_for("connected")
        await lobby_with_bot(cy, "proxy-bot")  # whichever process each of them is on
        await cy.send(CreateGame("Base", opponent="bots", challenge="proxy-bot"))
        game_id = (await cy.expect(Update)).game
        end = await play_to_the_end(cy, await updated(cy, game_id), random.Random(6))
        assert end.state.result is not None
        await bot.wait_for(f"game {game_id} over")


async def a_hung_process_is_left_within_seconds(topology: Topology) -> None:
    """A process hangs (SIGSTOP: stopped, as by swapping or a stuck call): haproxy's checks
    mark it down within seconds and cut its connections then, so that its clients reconnect to
    another process at once instead of when their keepalive pings give up (50 s), and a client
    connecting meanwhile (sent to the hung process: it has the fewest connections) is served by
    the other process. No answer names a process."""
    headers = await asyncio.to_thread(_headers_through, topology.port)
    assert not [v for v in headers.values() if re.search(r"server[12]|127\.0\.0\.1:", v)]
    async with contextlib.AsyncExitStack() as stack:
        on: dict[str, list[Client]] = {name: [] for name in topology.servers}
        for nickname in ("dee", "eve", "fay"):  # leastconn: two on one process, one on the other
            client = await stack.enter_async_context(
                Client.connect(topology.ws_url, nickname=nickname)
            )
            found = topology.proxy.sent_to(client.ws.local_address[1])
            assert found is not None
            on[found].append(client)
        hung, other = sorted(on, key=lambda name: len(on[name]))
        assert (len(on[hung]), len(on[other])) == (1, 2)
        started = time.monotonic()
        topology.freeze(hung)
        try:

            async def cut() -> float:
                with pytest.raises(ConnectionClosed):
                    while True:
                        await on[hung][0].recv(timeout=120)
                return time.monotonic() - started

            async def newcomer() -> float:
                async def connected() -> Client | None:
                    try:
                        return await stack.enter_async_context(
                            Client.connect(topology.ws_url, nickname="gil")
                        )
                    except (OSError, InvalidHandshake, ConnectionClosed):
                        return None

                client = await until(connected, "a newcomer is served", timeout=120)
                assert topology.proxy.sent_to(client.ws.local_address[1]) == other
                return time.monotonic() - started

            closed, served = await asyncio.gather(cut(), newcomer())
        finally:
            process = topology.servers[hung].process
            assert process is not None
            process.send_signal(signal.SIGCONT)
        print(
            f"hung process: its client cut after {closed:.1f} s, a newcomer served after "
            f"{served:.1f} s"
        )
        assert closed < 10 and served < 10
    await topology.checked(hung, "UP")
    await topology.wait_serving(hung)


def _headers_through(port: int) -> dict[str, str]:
    """The headers of ``GET /healthz`` through the proxy on ``port``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/healthz")
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200
        return dict(answer.getheaders())
    finally:
        connection.close()


# -- the tests -----------------------------------------------------------------------------------


async def test_the_deployed_topology_behind_haproxy(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    """The steps run one after the other on one topology; each leaves every process up and
    serving behind the proxy, so that the next one starts from the whole deployment."""
    async with deployed(redis_server, tmp_path) as topology:
        await a_hung_process_is_left_within_seconds(topology)
        await a_game_survives_the_loss_of_its_processes(topology)
        await a_games_connections_meet_on_one_process(topology)
        await only_the_sites_own_pages_connect_through_the_proxy(topology)
        await a_hive_bot_plays_through_the_proxy(topology)


def test_the_compose_file_is_valid() -> None:
    env = {**os.environ, "HIVE_BOT_TOKEN": "a-token"}
    for extra in ([], ["--profile", "bot"], ["--profile", "monitoring"], ["--profile", "ha"]):
        done = subprocess.run(
            [system_tool("docker-compose"), "-f", str(COMPOSE_FILE), *extra, "config", "-q"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    services = subprocess.run(
        [system_tool("docker-compose"), "-f", str(COMPOSE_FILE), "config", "--services"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert sorted(services) == [
        "bot",
        "bot-token",
        "haproxy",
        "postgres",
        "prometheus",
        "redis",
        "redis-replica",
        "sentinel1",
        "sentinel2",
        "sentinel3",
        "server1",
        "server2",
    ]


def test_the_compose_file_gives_haproxy_every_address_its_configuration_reads() -> None:
    config = re.sub(r"#.*", "", HAPROXY_CFG.read_text())
    wanted = set(re.findall(r'"\$\{(\w+)\}"', config))
    assert wanted == {"HIVE_PROXY_BIND", "HIVE_SERVER1", "HIVE_SERVER2"}
    resolved = compose_text(env={"HIVE_BOT_TOKEN": "a-token"})
    haproxy = resolved.split("\n  haproxy:\n", 1)[1].split("\n  redis:\n", 1)[0]
    given = set(re.findall(r"^      (HIVE_\w+): ", haproxy, re.MULTILINE))
    assert given == wanted


@pytest.mark.parametrize("server2", ["127.0.0.1:8082", "server2:8080"])
def test_haproxy_accepts_the_configuration(server2: str) -> None:
    """Debian's haproxy checks the file, with addresses as the test gives them and as docker
    compose does (a name that does not resolve here must not stop it)."""
    done = subprocess.run(
        [system_tool("haproxy"), "-c", "-f", str(HAPROXY_CFG)],
        env={
            **os.environ,
            "HIVE_PROXY_BIND": "127.0.0.1:8080",
            "HIVE_SERVER1": "127.0.0.1:8081",
            "HIVE_SERVER2": server2,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Configuration file is valid" in done.stdout
