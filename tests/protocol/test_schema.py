"""docs/protocol.schema.json: generated from protocol/, in step with it, and true of
every frame a real server sends and of every frame its clients send."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import jsonschema
import msgpack
import pytest
from jsonschema.exceptions import best_match
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    SIGNED_OUT,
    AllowChallenges,
    AnalyseGame,
    AnswerChallenge,
    Block,
    BotReady,
    CancelGame,
    Challenge,
    ChangePassword,
    Chat,
    ClaimWin,
    CreateGame,
    CreateTournament,
    Draw,
    Follow,
    GetLeaderboard,
    GetOnline,
    GetPosition,
    GetProfile,
    GetPuzzle,
    GetTournaments,
    Hello,
    JoinGame,
    JoinTournament,
    LeaveAnalysis,
    LeaveTournament,
    LogIn,
    Logout,
    Message,
    Mute,
    Ping,
    Play,
    ProtocolError,
    PuzzleMove,
    Rematch,
    Resign,
    ShowSolution,
    SignUp,
    SpectatorChat,
    StartEngine,
    StopEngine,
    Takeback,
    TimeControl,
    Unwatch,
    Watch,
    WatchLobby,
    WatchTournament,
    decode,
    decode_server,
    encode,
    schema,
)
from server.archive import puzzles
from server.archive.db import tables
from server.game.clock import now_ms
from server.game.rating import LEADERBOARD_OPPONENTS
from tests.protocol.examples import EXAMPLES
from tests.puzzled import fixture_puzzles
from tests.server.conftest import Running
from tests.server.support import http_get

ROOT: Final = Path(__file__).resolve().parents[2]
SCHEMA: Final = schema.schema()
"""The schema, as a server serves it at /protocol.schema.json."""

REGISTRIES: Final = {"client": CLIENT_MESSAGES, "server": SERVER_MESSAGES}
SIDES: Final = {"client": "ClientMessage", "server": "ServerMessage"}


def _validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator of the definition ``name`` of the committed schema."""
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})


VALIDATORS: Final = {
    **{side: _validator(name) for side, name in SIDES.items()},
    **{
        f"{side}:{tag}": _validator(cls.__name__)
        for side, registry in REGISTRIES.items()
        for tag, cls in registry.items()
    },
}


def errors(side: str, body: Any) -> list[str]:
    """Why ``body`` is not a valid message of ``side`` (none: it is), by its own definition
    (clear messages) and by the side's ``oneOf`` (exactly one definition takes it)."""
    found = []
    tag = body.get("type") if isinstance(body, dict) else None
    own = VALIDATORS.get(f"{side}:{tag}")
    if own is None:
        found.append(f"no {side} message of type {tag!r}")
    elif (error := best_match(own.iter_errors(body))) is not None:
        found.append(f"{side} {tag} at {'.'.join(map(str, error.absolute_path))}: {error.message}")
    if (error := best_match(VALIDATORS[side].iter_errors(body))) is not None:
        found.append(f"{side} message: {error.message:.300}")
    return found


def check(side: str, body: Any) -> None:
    assert not errors(side, body), errors(side, body)


# -- the schema served ---------------------------------------------------------------------------


async def test_every_server_serves_the_schema(srv: Running) -> None:
    status, kind, body = await http_get(f"{srv.http_url}/protocol.schema.json")
    assert (status, kind) == (200, "application/schema+json")
    assert json.loads(body) == SCHEMA


def test_the_schema_is_a_draft_2020_12_schema_of_every_message() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for side, registry in REGISTRIES.items():
        listed = [ref["$ref"] for ref in SCHEMA["$defs"][SIDES[side]]["oneOf"]]
        assert listed == [f"#/$defs/{cls.__name__}" for cls in registry.values()]
        for tag, cls in registry.items():
            assert SCHEMA["$defs"][cls.__name__]["properties"]["type"] == {"const": tag}


def test_the_generator_refuses_a_type_the_decoder_cannot_read() -> None:
    builder = schema._Builder()
    for hint in (bytes, dict[str, int], set[str], complex):
        with pytest.raises(TypeError, match="no wire form"):
            builder.value(hint, client=False, where="X.field")


@pytest.mark.parametrize("side", list(REGISTRIES))
def test_the_example_of_every_message_is_valid(side: str) -> None:
    for message in EXAMPLES[side].values():
        check(side, msgpack.unpackb(encode(message)))


def test_a_client_may_leave_out_the_fields_with_a_default() -> None:
    check("client", {"type": "hello", "nickname": "ada"})
    check("client", {"type": "create"})
    check("client", {"type": "create", "time": {"kind": "clock", "base": 60}})
    check("client", {"type": "lobby"})


MISTAKES: Final[list[tuple[str, dict[str, Any]]]] = [
    ("client", {"type": "play", "game": "x", "move": "wS1"}),  # missing version
    ("client", {"type": "play", "game": "x", "version": "3", "move": "wS1"}),
    ("client", {"type": "play", "game": "x", "version": 3, "move": "wS1", "x": 1}),
    ("client", {"type": "play", "game": "x", "version": 2**53, "move": "wS1"}),
    ("client", {"type": "ping", "t": True}),
    ("client", {"type": "lobby", "subscribe": 1}),
    ("client", {"type": "draw", "game": "x", "action": "maybe"}),
    ("client", {"type": "chat", "game": "x", "text": "x" * 2001}),
    ("client", {"type": "create", "time": {"kind": "hourglass"}}),
    ("client", {"type": "create", "time": {"kind": "none", "hours": 1}}),
    ("client", {"type": "dance"}),
    ("client", {"type": "welcome", "player": "p", "nickname": "n", "token": "t", "server_time": 1}),
    ("server", {"type": "pong", "t": 1.0}),  # the server sends every field
    ("server", {"type": "error", "code": "oops", "message": "m", "request": None, "game": None}),
    ("server", {"type": "ping", "t": 1.0}),
]


@pytest.mark.parametrize(("side", "body"), MISTAKES)
def test_the_schema_refuses_what_the_decoder_refuses(side: str, body: dict[str, Any]) -> None:
    assert errors(side, body)
    if side == "client" or body["type"] != "pong":  # the decoder takes a field left out
        with pytest.raises(ProtocolError):
            decode(msgpack.packb(body), registry=REGISTRIES[side])


# -- every frame of a real server ---------------------------------------------------------------


class Log:
    def __init__(self) -> None:
        self.sent: set[str] = set()
        self.seen: collections.Counter[str] = collections.Counter()


class Checked:
    """A websocket whose every frame, both ways, is checked against the committed schema."""

    def __init__(self, ws: ClientConnection, log: Log) -> None:
        self.ws = ws
        self.log = log
        self.welcome: dict[str, Any] = {}

    async def send(self, message: Message) -> None:
        frame = encode(message)
        check("client", msgpack.unpackb(frame))
        self.log.sent.add(message.TYPE)
        await self.ws.send(frame)

    async def receive(
        self, tag: str, holds: Callable[[dict[str, Any]], bool] = lambda _: True
    ) -> dict[str, Any]:
        """The next message of type ``tag`` for which ``holds`` is true; every frame on the
        way is checked too."""
        async with asyncio.timeout(30):
            while True:
                frame = await self.ws.recv(decode=False)
                body: dict[str, Any] = msgpack.unpackb(frame)
                check("server", body)
                decode_server(frame)  # and the code reads it
                self.log.seen[body["type"]] += 1
                if body["type"] == tag and holds(body):
                    return body

    async def update(self, game: str, holds: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        return await self.receive("update", lambda b: b["game"] == game and holds(b))


def at(version: int) -> Callable[[dict[str, Any]], bool]:
    return lambda update: bool(update["version"] >= version)


@contextlib.asynccontextmanager
async def connections(srv: Running) -> AsyncIterator[Callable[..., Any]]:
    """``await open(log, nickname=..., token=...)``: a checked connection that said hello."""
    async with contextlib.AsyncExitStack() as stack:

        async def open_(log: Log, **hello: Any) -> Checked:
            ws = await stack.enter_async_context(
                connect(srv.ws_url, max_size=None, compression=None)
            )
            client = Checked(ws, log)
            if hello:
                await client.send(Hello(**hello))
                client.welcome = await client.receive("welcome")
            return client

        yield open_


async def _rate(srv: Running, player: str, game: str) -> None:
    """A blitz rating for ``player``, with a point of history at ``game`` (the ratings'
    work writes these when a rated game is archived)."""
    at = now_ms()
    async with srv.hub.database.engine.begin() as connection:
        await connection.execute(
            tables.ratings.insert().values(
                player=player,
                speed="blitz",
                rating=1612.4,
                rd=90.0,
                volatility=0.06,
                games=12,
                updated=at,
                opponents=LEADERBOARD_OPPONENTS,
            )
        )
        await connection.execute(
            tables.rating_history.insert().values(
                player=player, game=game, speed="blitz", at=at, rating=1612.4, rd=90.0
            )
        )


async def test_every_frame_of_a_real_server_is_valid(srv: Running) -> None:
    log = Log()
    async with connections(srv) as open_:
        eve = await open_(log)
        await eve.send(Ping(1.0))  # before hello
        await eve.receive("error", lambda b: b["code"] == "not_authenticated")
        await eve.ws.send(b"\xc1garbage")  # not a message: its error names no request
        await eve.receive("error", lambda b: b["request"] is None)

        ada = await open_(log, nickname="ada")
        bob = await open_(log, nickname="bob")
        cy = await open_(log, nickname="cy")
        _, token = await srv.hub.store.new_bot("robo", 0)
        robo = await open_(log, token=token)
        assert robo.welcome["bot"] is True

        await bob.send(WatchLobby())
        await bob.receive("lobby")
        await robo.send(BotReady(["Base"], ["none", "clock"], max_games=2))
        await bob.receive("lobby_change", lambda b: bool(b["bots"]))

        # A challenge to the bot account, listed and then cancelled.
        await ada.send(CreateGame("Base", opponent="bots", challenge="robo"))
        challenge = (await ada.receive("update"))["game"]
        await bob.receive("lobby_change", lambda b: any(g["challenge"] for g in b["open"]))
        await ada.send(CancelGame(challenge))
        await ada.update(challenge, lambda b: b["state"]["status"] == "over")

        # A game between people, with a spectator, chat, a mute, moves, a draw offer.
        await ada.send(CreateGame("Base", TimeControl("clock", 300, 5), color="white"))
        game = (await ada.receive("update"))["game"]
        await bob.send(JoinGame(game))
        state = (await bob.update(game, at(2)))["state"]
        await cy.send(Watch(game))
        assert (await cy.update(game, at(2)))["snapshot"] is True
        await cy.send(Chat(game, "hello from the stands"))
        await bob.update(game, at(3))
        await bob.send(Mute(game, cy.welcome["player"]))
        await bob.update(game, at(4))
        await ada.send(SpectatorChat(game, open=False))
        state = (await bob.update(game, at(5)))["state"]
        state = (await ada.update(game, at(5)))["state"]  # white to move: ada has the moves
        for _ in range(4):
            mover = ada if state["turn"] == "white" else bob
            await mover.send(Play(game, state["version"], state["legal"][0]["move"]))
            after = at(state["version"] + 1)
            states = [(await client.update(game, after))["state"] for client in (ada, bob)]
            state = states[0] if states[0]["turn"] == "white" else states[1]
        assert len(state["pieces"]) == 4 and state["clocks"]["running"] is not None
        await bob.send(Chat(game, "good luck!"))
        await ada.send(Draw(game, "offer"))
        await bob.update(game, lambda b: b["state"]["draw_offer"] == "white")
        await bob.send(Draw(game, "decline"))
        await bob.send(Takeback(game, "ask"))
        await ada.update(game, lambda b: b["state"]["takeback_offer"] == "black")
        await ada.send(Takeback(game, "decline"))
        await ada.send(ClaimWin(game))
        await ada.receive("error", lambda b: b["code"] == "not_allowed")
        await cy.send(Unwatch(game))
        await cy.send(Ping(1))  # answered once the unwatch is done
        await cy.receive("pong")
        await srv.hub.presence.share_view()  # (the heartbeat's): the spectator has gone
        assert (await bob.receive("presence"))["spectators"] == 0
        await ada.send(Resign(game))
        await bob.update(game, lambda b: b["state"]["result"] == "BlackWins")
        await bob.send(Rematch(game))
        await ada.send(Rematch(game))
        last = await ada.update(game, lambda b: b["state"]["rematch"] is not None)
        await ada.update(last["state"]["rematch"], lambda b: b["snapshot"])

        # Bob comes back, and catches up from a version he saw (a few events behind: far
        # behind, the events would outweigh the state, and he would get a snapshot).
        again = await open_(log, token=bob.welcome["token"])
        await again.send(Watch(game, since=last["version"] - 3))
        assert len((await again.update(game, at(last["version"])))["events"]) == 3

        # A game against one of the server's bots: its seat names its level.
        await ada.send(CreateGame("Base", color="black", opponent="bot", level="beginner"))
        versus = await ada.receive("update", lambda b: b["state"]["white"]["bot"] == "beginner")
        await ada.update(versus["game"], lambda b: len(b["state"]["moves"]) == 1)
        await ada.send(Resign(versus["game"]))
        await ada.update(versus["game"], lambda b: b["state"]["status"] == "over")

        # Ada keeps her name with a password, changes it, and signs in with it on eve's
        # connection.
        await ada.send(SignUp("ada_acct", "a long password"))
        await ada.receive("account")
        await ada.send(ChangePassword("a long password", "another password"))
        await ada.receive("account")
        await eve.send(LogIn("ADA_acct", "another password"))
        assert (await eve.receive("welcome"))["player"] == ada.welcome["player"]

        # Her profile (her games archived, a rating put beside them) and a leaderboard.
        await srv.hub.archive.sweep_once(3600)
        await _rate(srv, ada.welcome["player"], versus["game"])
        await bob.send(GetProfile("Ada_Acct"))
        profile = await bob.receive("profile")
        assert profile["games"] and profile["levels"] and profile["history"]
        await bob.send(GetProfile("nobody"))
        await bob.receive("error", lambda b: b["code"] == "unknown_player")
        await bob.send(GetLeaderboard("blitz"))
        assert (await bob.receive("leaderboard"))["players"][0]["name"] == "ada_acct"

        # The analysis board: a position, and the engine on it, then off.
        await bob.send(GetPosition("Base+M", moves=["wS1", "bM -wS1"], id=4))
        assert (await bob.receive("position"))["legal"]
        await bob.send(StartEngine("Base+M", "Base+M;InProgress;White[2];wS1;bM -wS1", id=5))
        assert len((await bob.receive("lines"))["lines"]) == 3
        await bob.send(StopEngine(id=5))
        await bob.receive("engine_done")
        # Bob, a guest, challenges Ada by name; she declines. She follows Cy, who signed up,
        # blocks and unblocks him, takes everyone's challenges, and asks who is online.
        await bob.send(Challenge("ada_acct", "Base", TimeControl("clock", 300, 5)))
        offer = await ada.receive("challenge")
        await ada.send(AnswerChallenge(offer["id"], "decline"))
        await bob.receive("challenge_end", lambda b: b["outcome"] == "declined")
        await cy.send(SignUp("cy_acct", "a long password"))
        await cy.receive("account")
        await ada.send(Follow("cy_acct"))
        await ada.receive("social", lambda b: b["following"] == ["cy_acct"])
        await ada.send(Block("CY_acct"))
        await ada.receive("social", lambda b: b["blocked"] == ["cy_acct"])
        await ada.send(Block("cy_acct", block=False))
        await ada.send(AllowChallenges("everyone"))
        await ada.receive("social", lambda b: b["blocked"] == [] and b["allow"] == "everyone")
        await ada.send(GetOnline())
        await ada.receive("online", lambda b: "cy_acct" in [p["name"] for p in b["players"]])
        # An arena: ada makes it, bob watches it, both accounts join and are paired, cy
        # leaves (paused), and ada lists the tournaments.
        await ada.send(CreateTournament("Evening arena", "Base", minutes=30, rated=False))
        arena = (await ada.receive("tournament"))["summary"]["id"]
        await bob.send(WatchTournament(arena))
        await bob.receive("tournament")
        await cy.send(JoinTournament(arena))
        await ada.send(JoinTournament(arena))
        await cy.receive("tournament_game")
        await cy.send(LeaveTournament(arena))
        await cy.receive("tournament", lambda b: b["standings"][0]["status"] != "waiting")
        await ada.send(GetTournaments())
        await ada.receive("tournaments", lambda b: b["tournaments"][0]["id"] == arena)
        # The computer analysis of her game against the bot, followed by bob until it is done.
        await bob.send(AnalyseGame(versus["game"], start=True))
        await bob.receive("game_analysis", lambda b: b["status"] == "done")
        await bob.send(LeaveAnalysis(versus["game"]))
        # A puzzle, a wrong move, its solution.
        win1 = next(p for p in fixture_puzzles() if p.theme == "win1")
        await puzzles.load(srv.hub.database, [win1])
        await cy.send(GetPuzzle(theme="win1"))
        shown = await cy.receive("puzzle")
        wrong = next(m["move"] for m in shown["position"]["legal"] if m["move"] != win1.solution[0])
        await cy.send(PuzzleMove(shown["id"], wrong))
        await cy.receive("puzzle_answer", lambda b: not b["correct"])
        await cy.send(ShowSolution(shown["id"]))
        await cy.receive("puzzle_answer", lambda b: b["done"])

        await ada.send(Ping(2.5))
        await ada.receive("pong")
        await ada.send(Logout())
        with pytest.raises(ConnectionClosed) as closed:
            await ada.receive("nothing")
        assert closed.value.rcvd is not None and closed.value.rcvd.code == SIGNED_OUT

    assert set(log.seen) == set(SERVER_MESSAGES)
    assert log.sent == set(CLIENT_MESSAGES)
