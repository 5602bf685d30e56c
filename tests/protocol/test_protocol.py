"""The wire protocol: every message round-trips, decoding is total, the real server answers
malformed frames with errors and lives on, and docs/protocol.md says what the code does."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import itertools
import json
import random
import re
import typing
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

import jsonschema
import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosedError

from ai.bots import LEVELS
from protocol import (
    CLIENT_MESSAGES,
    MAX_FRAME_BYTES,
    MAX_LIST,
    MAX_NICKNAME,
    MAX_TEXT,
    MAX_WATCHING,
    SERVER_MESSAGES,
    CancelGame,
    Chat,
    CreateGame,
    Error,
    ErrorCode,
    Hello,
    Limits,
    Message,
    Ping,
    Play,
    Pong,
    ProtocolError,
    TimeControl,
    Update,
    Watch,
    WatchLobby,
    Welcome,
    decode,
    decode_server,
    encode,
    packed_size,
    schema,
    to_plain,
)
from server.storage import store
from tests.protocol.examples import ADA, EXAMPLES, GAME, STATE
from tests.server.conftest import Running, StartServer
from tests.server.support import http_get, start_game
from tests.support import until

ROOT: Final = Path(__file__).resolve().parents[2]
DOC: Final = ROOT / "docs" / "protocol.md"
OPERATING: Final = ROOT / "docs" / "operating.md"
SCHEMA: Final = schema.schema()

REGISTRIES: Final = {"client": CLIENT_MESSAGES, "server": SERVER_MESSAGES}
DECODERS: Final[dict[str, dict[str, type[Message]]]] = {
    **REGISTRIES,
    # No client message has a list field yet: the limit on lists is tried on server messages
    # decoded as if a client had sent them (any registry but SERVER_MESSAGES is bounded).
    "bounded": {"welcome": Welcome, "update": Update},
}
BAD = ErrorCode.BAD_MESSAGE
UNKNOWN = ErrorCode.UNKNOWN_TYPE

# The examples (one message of each class, every field set): tests/protocol/examples.py.

MESSAGE_IDS: Final = [(side, tag) for side, registry in REGISTRIES.items() for tag in registry]


def test_every_registered_message_class_has_an_example() -> None:
    for side, registry in REGISTRIES.items():
        assert set(EXAMPLES[side]) == set(registry), side
        for tag, message in EXAMPLES[side].items():
            assert type(message) is registry[tag]


@pytest.mark.parametrize(("side", "tag"), MESSAGE_IDS, ids=[f"{s}-{t}" for s, t in MESSAGE_IDS])
def test_every_message_round_trips(side: str, tag: str) -> None:
    message = EXAMPLES[side][tag]
    frame = encode(message)
    body = msgpack.unpackb(frame)
    assert body["type"] == tag
    assert set(body) == {"type"} | {f.name for f in dataclasses.fields(message)}
    # the encoder's shortcuts (fields' dicts as they are, lists of them) pack the plain walk
    assert frame == msgpack.packb({**to_plain(message), "type": tag})
    assert packed_size(message) == len(msgpack.packb(to_plain(message)))
    again = decode(frame, registry=REGISTRIES[side])
    assert again == message
    assert encode(again) == frame


def _dataclasses_in(hint: Any) -> Iterator[type]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        yield hint
    for arg in typing.get_args(hint):
        yield from _dataclasses_in(arg)


def _all_fields() -> set[tuple[str, str]]:
    """Every (class, field) a message can hold, nested values included."""
    todo: list[type] = [cls for registry in REGISTRIES.values() for cls in registry.values()]
    seen: set[type] = set()
    found = set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            found.add((cls.__name__, f.name))
            todo.extend(_dataclasses_in(hints[f.name]))
    return found


def _set_fields(value: Any, found: set[tuple[str, str]]) -> None:
    """Collect the (class, field) pairs of ``value`` that hold something other than their
    default, None or an empty list."""
    if isinstance(value, list):
        for item in value:
            _set_fields(item, found)
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = None
        if item is not None and item != default and item != []:
            found.add((type(value).__name__, f.name))
        _set_fields(item, found)


def test_the_examples_set_every_field_of_every_message_and_value() -> None:
    found: set[tuple[str, str]] = set()
    for examples in EXAMPLES.values():
        for message in examples.values():
            _set_fields(message, found)
    assert _all_fields() - found == set()


# -- decoding is total: what is refused, and how -----------------------------------------------

DROP: Final = object()
PLAY: Final = {"type": "play", "game": GAME, "version": 4, "move": "wS1"}


def body(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``base`` with ``changes`` (DROP removes a key)."""
    result = {**base, **changes}
    return {key: value for key, value in result.items() if value is not DROP}


def pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value)
    return packed


def create(**time: Any) -> bytes:
    return pack({"type": "create", "time": time})


def watch_since(since: int) -> bytes:
    return pack({"type": "watch", "game": GAME, "since": since})


def server_body(tag: str) -> dict[str, Any]:
    found: dict[str, Any] = msgpack.unpackb(encode(EXAMPLES["server"][tag]))
    return found


def update_with(**state: Any) -> bytes:
    update = server_body("update")
    update["state"].update(state)
    return pack(update)


def lobby_with(summary: dict[str, Any]) -> bytes:
    return pack({"type": "lobby", "open": [summary], "live": []})


REFUSALS: Final[list[tuple[str, str, bytes | str, ErrorCode, str]]] = [
    # not a message at all
    ("not msgpack", "client", b"\xc1garbage", BAD, "not msgpack: FormatError"),
    ("truncated", "client", pack(PLAY)[:-3], BAD, "not msgpack"),
    ("trailing bytes", "client", pack(PLAY) + b"\x00", BAD, "not msgpack: "),
    ("empty frame", "client", b"", BAD, "not msgpack"),
    ("nested too deep", "client", b"\x91" * 5000 + b"\xc0", BAD, "not msgpack: StackError"),
    ("integer map keys", "client", pack({1: 2, "type": "ping"}), BAD, "not msgpack"),
    ("invalid utf-8", "client", b"\x81\xa4type\xa2\xff\xfe", BAD, "not msgpack"),
    ("text frame", "client", "hello", BAD, "binary msgpack, not text"),
    ("a list", "client", pack(["play", GAME, 4, "wS1"]), BAD, "a map with a 'type'"),
    ("a string", "client", pack("ping"), BAD, "a map with a 'type'"),
    ("nil", "client", pack(None), BAD, "a map with a 'type'"),
    # the type
    ("no type", "client", pack(body(PLAY, type=DROP)), BAD, "a string 'type'"),
    ("integer type", "client", pack(body(PLAY, type=5)), BAD, "a string 'type'"),
    ("null type", "client", pack(body(PLAY, type=None)), BAD, "a string 'type'"),
    ("binary type", "client", pack(body(PLAY, type=b"play")), BAD, "a string 'type'"),
    ("unknown type", "client", pack({"type": "dance"}), UNKNOWN, "'dance'"),
    ("a server message", "client", encode(EXAMPLES["server"]["welcome"]), UNKNOWN, "'welcome'"),
    ("a client message", "server", encode(Ping(1.0)), UNKNOWN, "'ping'"),
    ("case matters", "client", pack(body(PLAY, type="Play")), UNKNOWN, "'Play'"),
    ("a long type", "client", pack({"type": "x" * 5000}), UNKNOWN, "'xxxx"),
    # missing and unknown fields
    (
        "missing field",
        "client",
        pack(body(PLAY, version=DROP)),
        BAD,
        "play: missing field 'version'",
    ),
    ("missing fields", "client", pack({"type": "play"}), BAD, "play: missing field 'game'"),
    (
        "missing nested field",
        "server",
        lobby_with({"id": GAME}),
        BAD,
        "lobby.open[0]: missing field 'game_type'",
    ),
    ("unknown field", "client", pack({"type": "ping", "t": 1, "x": 2}), BAD, "unknown field 'x'"),
    ("binary field name", "client", pack({"type": "ping", b"t": 1}), BAD, "ping: unknown field"),
    ("unknown nested field", "client", create(kind="none", hours=1), BAD, "create.time: unknown"),
    (
        "binary nested name",
        "client",
        pack({"type": "create", "time": {b"kind": "none"}}),
        BAD,
        "create.time: unknown",
    ),
    # mistyped fields
    ("str for int", "client", pack(body(PLAY, version="4")), BAD, "play.version: expected an int"),
    ("bool for int", "client", pack(body(PLAY, version=True)), BAD, "play.version: expected an"),
    ("float for int", "client", pack(body(PLAY, version=4.0)), BAD, "play.version: expected an"),
    ("null for int", "client", pack(body(PLAY, version=None)), BAD, "play.version: expected an"),
    ("int for str", "client", pack(body(PLAY, move=5)), BAD, "play.move: expected a string"),
    ("bytes for str", "client", pack(body(PLAY, move=b"wS1")), BAD, "play.move: expected a str"),
    ("list for str", "client", pack(body(PLAY, game=[GAME])), BAD, "play.game: expected a str"),
    ("null for str", "client", pack(body(PLAY, game=None)), BAD, "play.game: expected a str"),
    ("map for str", "client", pack({"type": "chat", "game": GAME, "text": {}}), BAD, "chat.text"),
    ("str for bool", "client", pack({"type": "lobby", "subscribe": "yes"}), BAD, "lobby.subscri"),
    ("int for bool", "client", pack({"type": "lobby", "subscribe": 1}), BAD, "expected true or"),
    ("bool for float", "client", pack({"type": "ping", "t": True}), BAD, "ping.t: expected a num"),
    ("str for float", "client", pack({"type": "ping", "t": "1"}), BAD, "ping.t: expected a num"),
    (
        "list for map",
        "client",
        pack({"type": "create", "time": []}),
        BAD,
        "create.time: expected a",
    ),
    (
        "str for map",
        "client",
        pack({"type": "create", "time": "5+0"}),
        BAD,
        "create.time: expected",
    ),
    ("map for list", "server", pack(body(server_body("welcome"), games={})), BAD, "welcome.games"),
    ("str for list", "server", update_with(moves="wS1"), BAD, "update.state.moves: expected a li"),
    (
        "extension type",
        "client",
        pack({"type": "ping", "t": msgpack.ExtType(1, b"x")}),
        BAD,
        "ping.t: expected a number",
    ),
    (
        "timestamp",
        "client",
        pack({"type": "ping", "t": msgpack.Timestamp(1, 0)}),
        BAD,
        "ping.t: expected a number",
    ),
    # out of range
    (
        "clock base 0",
        "client",
        create(kind="clock", base=0),
        BAD,
        "create.time: a clock needs base",
    ),
    ("clock base -5", "client", create(kind="clock", base=-5), BAD, "create.time: a clock needs"),
    ("clock base 10801", "client", create(kind="clock", base=10801), BAD, "create.time: a clock"),
    ("increment 601", "client", create(kind="clock", base=60, increment=601), BAD, "create.time"),
    ("clock with days", "client", create(kind="clock", base=60, days=3), BAD, "takes no days"),
    ("days 0", "client", create(kind="days", days=0), BAD, "create.time: days per move must lie"),
    ("days 31", "client", create(kind="days", days=31), BAD, "days per move must lie in 1..30"),
    ("days with base", "client", create(kind="days", days=3, base=60), BAD, "take no base"),
    ("none with days", "client", create(kind="none", days=3), BAD, "without a clock takes no"),
    ("unknown time kind", "client", create(kind="hourglass"), BAD, "create.time.kind: 'hourglass"),
    ("unknown colour", "client", pack({"type": "create", "color": "green"}), BAD, "create.color"),
    ("colour case", "client", pack({"type": "create", "color": "White"}), BAD, "is not one of"),
    ("colour list", "client", pack({"type": "create", "color": ["white"]}), BAD, "create.color"),
    ("unknown opponent", "client", pack({"type": "create", "opponent": "alien"}), BAD, "opponent"),
    (
        "unknown draw action",
        "client",
        pack({"type": "draw", "game": GAME, "action": "maybe"}),
        BAD,
        "draw.action: 'maybe' is not one of 'offer', 'accept', 'decline'",
    ),
    # integers a JavaScript number does not hold exactly
    ("int of 2**53", "client", pack(body(PLAY, version=2**53)), BAD, f"version: {2**53} is out of"),
    ("int of -2**53", "client", pack(body(PLAY, version=-(2**53))), BAD, "version: -9007199"),
    ("uint64", "client", pack(body(PLAY, version=2**64 - 1)), BAD, f"{2**64 - 1} is out of range"),
    ("int64", "client", pack(body(PLAY, version=-(2**63))), BAD, f"{-(2**63)} is out of range"),
    ("since of 2**53", "client", watch_since(2**53), BAD, "watch.since: 9007199254740992 is out"),
    ("since of uint64", "client", watch_since(2**64 - 1), BAD, "watch.since: 1844674407"),
    ("since of -2**53", "client", watch_since(-(2**53)), BAD, "is out of range"),
    ("base of 2**53", "client", create(kind="clock", base=2**53), BAD, "time.base: 90071992547"),
    (
        "unknown error code",
        "server",
        pack(body(server_body("error"), code="oops")),
        BAD,
        "error.code: unknown value 'oops'",
    ),
    ("error code list", "server", pack(body(server_body("error"), code=[1])), BAD, "error.code"),
    ("unknown status", "server", update_with(status="paused"), BAD, "update.state.status"),
    # too long
    (
        "long chat",
        "client",
        pack({"type": "chat", "game": GAME, "text": "x" * (MAX_TEXT + 1)}),
        BAD,
        "chat.text: longer than 2000 characters",
    ),
    (
        "long nickname",
        "client",
        pack({"type": "hello", "nickname": "é" * (MAX_TEXT + 1)}),
        BAD,
        "hello.nickname: longer than 2000",
    ),
    (
        "long list",
        "bounded",
        pack(body(server_body("welcome"), games=[GAME] * (MAX_LIST + 1))),
        BAD,
        "welcome.games: more than 1000 items",
    ),
    (
        "long nested list",
        "bounded",
        update_with(moves=["wS1"] * (MAX_LIST + 1)),
        BAD,
        "update.state.moves: more than 1000",
    ),
    # garbage deeper down
    (
        "nested list garbage",
        "server",
        update_with(pieces=[{"piece": "wS1", "q": "0", "r": 0, "height": 0}]),
        BAD,
        "update.state.pieces[0].q: expected an integer",
    ),
    (
        "garbage list item",
        "server",
        pack(body(server_body("welcome"), games=[GAME, 5])),
        BAD,
        "welcome.games[1]: expected a string",
    ),
    ("nested lists", "client", pack({"type": "ping", "t": [[[[1.0]]]]}), BAD, "ping.t"),
    ("seat garbage", "server", update_with(white={"player": 1}), BAD, "update.state.white"),
]


@pytest.mark.parametrize(
    ("side", "data", "code", "fragment"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
def test_decode_refuses_with_a_code_and_says_what_is_wrong(
    side: str, data: bytes | str, code: ErrorCode, fragment: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode(data, registry=DECODERS[side])
    assert refused.value.code == code
    assert fragment in refused.value.message
    assert len(refused.value.message) < 200  # however large the input


ACCEPTED: Final = [
    ("largest int", body(PLAY, version=2**53 - 1), Play(GAME, 2**53 - 1, "wS1")),
    ("smallest int", body(PLAY, version=-(2**53) + 1), Play(GAME, -(2**53) + 1, "wS1")),
    ("int for float", {"type": "ping", "t": 3}, Ping(3.0)),
    ("defaults left out", {"type": "create"}, CreateGame()),
    (
        "longest string",
        {"type": "chat", "game": GAME, "text": "é" * MAX_TEXT},
        Chat(GAME, "é" * MAX_TEXT),
    ),
    (
        "shortest clock",
        {"type": "create", "time": {"kind": "clock", "base": 1}},
        CreateGame(time=TimeControl("clock", 1)),
    ),
    (
        "longest clock",
        {"type": "create", "time": {"kind": "clock", "base": 10800, "increment": 600}},
        CreateGame(time=TimeControl("clock", 10800, 600)),
    ),
    (
        "fewest days",
        {"type": "create", "time": {"kind": "days", "days": 1}},
        CreateGame(time=TimeControl("days", days=1)),
    ),
    (
        "most days",
        {"type": "create", "time": {"kind": "days", "days": 30}},
        CreateGame(time=TimeControl("days", days=30)),
    ),
    ("null for optional", {"type": "watch", "game": GAME, "since": None}, Watch(GAME)),
]


@pytest.mark.parametrize(
    ("wire", "message"), [case[1:] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED]
)
def test_decode_accepts_values_at_the_limits(wire: dict[str, Any], message: Message) -> None:
    assert decode(pack(wire)) == message


def test_decode_accepts_the_longest_list() -> None:
    games = [GAME] * MAX_LIST
    welcome = decode(pack(body(server_body("welcome"), games=games)), registry=DECODERS["bounded"])
    assert isinstance(welcome, Welcome) and welcome.games == games


def test_the_limits_on_clients_do_not_bound_what_the_server_sends() -> None:
    """A long game's GameString runs past MAX_TEXT; a Python client still reads its state."""
    moves = ["wS1", "bS1 wS1-"] * MAX_LIST
    game_string = "Base;InProgress;White[1001];" + ";".join(moves)
    assert len(game_string) > MAX_TEXT and len(moves) > MAX_LIST
    update = decode_server(update_with(game_string=game_string, moves=moves))
    assert isinstance(update, Update)
    assert (update.state.game_string, update.state.moves) == (game_string, moves)
    with pytest.raises(ProtocolError):  # the same message, as if a client sent it
        decode(update_with(game_string=game_string), registry=DECODERS["bounded"])


def garbage(rng: random.Random, depth: int = 0) -> Any:
    """A random msgpack value, nested at most three deep."""
    kind = rng.randrange(12 if depth < 3 else 9)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, 1, -1, 2**53 - 1, 2**53, -(2**63), 2**64 - 1, rng.randint(-99, 99)])
    if kind == 3:
        return rng.choice([0.0, -1.5, 1e300, float("inf")])
    if kind == 4:
        return rng.choice(["", "wS1", "white", "clock", "x" * (MAX_TEXT + 1), "é\x00"])
    if kind == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(4)))
    if kind == 6:
        return msgpack.ExtType(rng.randrange(128), b"x")
    if kind == 7:
        return rng.choice(sorted(CLIENT_MESSAGES) + sorted(SERVER_MESSAGES))
    if kind == 8:
        return rng.choice(list(ErrorCode)).value
    if kind == 9:
        return [garbage(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 10:
        return {rng.choice(["type", "kind", "x", "game"]): garbage(rng, depth + 1)}
    return {b"k": garbage(rng, depth + 1)}


def _containers(value: Any) -> Iterator[dict[Any, Any] | list[Any]]:
    if isinstance(value, dict | list):
        yield value
        for item in value.values() if isinstance(value, dict) else value:
            yield from _containers(item)


def mutated(rng: random.Random, frame: bytes) -> bytes:
    """``frame`` with random damage: bytes flipped or cut, or a value deep inside replaced,
    removed or added."""
    how = rng.randrange(5)
    if how == 0:
        data = bytearray(frame)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if how == 1:
        return frame[: rng.randrange(len(frame))]
    value = msgpack.unpackb(frame)
    target = rng.choice(list(_containers(value)))
    if isinstance(target, dict):
        key = rng.choice(list(target))
        if how == 2:
            target[key] = garbage(rng)
        elif how == 3:
            del target[key]
        else:
            target[rng.choice(["x", "type", key + "s" if isinstance(key, str) else 1])] = 0
    elif target:
        index = rng.randrange(len(target))
        if how == 3:
            del target[index]
        else:
            target[index] = garbage(rng)
    else:
        target.append(garbage(rng))
    return pack(value)


@pytest.mark.parametrize("side", ["client", "server"])
def test_decoding_is_total_on_damaged_messages(side: str) -> None:
    """Whatever the damage, decode gives a message that encodes back to the same frame, or a
    ProtocolError; never another exception."""
    rng = random.Random(f"protocol {side}")
    registry = REGISTRIES[side]
    frames = [encode(message) for message in EXAMPLES[side].values()]
    outcomes = {"accepted": 0, "refused": 0}
    for _ in range(4000):
        data = mutated(rng, rng.choice(frames))
        try:
            message = decode(data, registry=registry)
        except ProtocolError as error:
            assert error.code in (BAD, UNKNOWN)
            outcomes["refused"] += 1
        else:
            assert type(message) is registry[message.TYPE]
            assert encode(decode(encode(message), registry=registry)) == encode(message)
            outcomes["accepted"] += 1
    assert outcomes["accepted"] > 200 and outcomes["refused"] > 2000, outcomes


# -- over the real server ----------------------------------------------------------------------


async def reply(ws: ClientConnection) -> Message:
    async with asyncio.timeout(10):
        frame = await ws.recv()
    assert isinstance(frame, bytes), "the server sent a text frame"
    return decode_server(frame)


async def ask(ws: ClientConnection, data: bytes | str) -> Message:
    await ws.send(data)
    return await reply(ws)


async def refusal(ws: ClientConnection, data: bytes | str) -> Error:
    answer = await ask(ws, data)
    assert isinstance(answer, Error), answer
    return answer


@contextlib.asynccontextmanager
async def raw(srv: Running, nickname: str | None = None) -> AsyncIterator[ClientConnection]:
    """A websocket to the server, after a ``hello`` as ``nickname`` (None: no hello)."""
    async with connect(srv.ws_url, max_size=None, compression=None) as ws:
        if nickname is not None:
            assert isinstance(await ask(ws, encode(Hello(nickname=nickname))), Welcome)
        yield ws


async def still_answers(ws: ClientConnection, t: float) -> None:
    pong = await ask(ws, encode(Ping(t)))
    assert isinstance(pong, Pong) and pong.t == t


OVER_THE_WIRE: Final = [
    case
    for case in REFUSALS
    if case[1] == "client"
    and case[0]
    in {
        "not msgpack",
        "truncated",
        "empty frame",
        "nested too deep",
        "text frame",
        "a list",
        "no type",
        "integer type",
        "unknown type",
        "a server message",
        "missing field",
        "unknown field",
        "str for int",
        "bool for int",
        "int for str",
        "list for map",
        "clock base 0",
        "days 31",
        "unknown colour",
        "int of 2**53",
        "since of uint64",
        "long chat",
        "nested lists",
    }
]


async def test_malformed_frames_get_their_error_and_the_connection_lives_on(srv: Running) -> None:
    assert len(OVER_THE_WIRE) == 23
    async with raw(srv, "ada") as ws:
        for number, (name, _, data, code, fragment) in enumerate(OVER_THE_WIRE):
            error = await refusal(ws, data)
            assert (error.code, error.request, error.game) == (code, None, None), name
            assert fragment in error.message, name
            await still_answers(ws, number + 0.5)
        await ws.send(encode(CreateGame(game_type="Base")))
        created = await reply(ws)
        assert isinstance(created, Update) and created.state.status == "open"


async def test_nothing_but_hello_is_answered_before_hello(srv: Running) -> None:
    async with raw(srv) as ws:
        for message in (Ping(1.0), CreateGame(), Play(GAME, 1, "wS1"), WatchLobby()):
            error = await refusal(ws, encode(message))
            assert (error.code, error.request) == (ErrorCode.NOT_AUTHENTICATED, message.TYPE)
        assert (await refusal(ws, b"\xc1")).code == BAD  # a frame that does not decode
        assert (await refusal(ws, pack({"type": "dance"}))).code == UNKNOWN
        welcome = await ask(ws, encode(Hello(nickname="ada")))
        assert isinstance(welcome, Welcome) and welcome.nickname == "ada"
        await still_answers(ws, 2.0)


async def test_a_bad_token_and_a_second_hello_are_refused(srv: Running) -> None:
    async with raw(srv) as ws:
        error = await refusal(ws, encode(Hello(token="no-such-token")))
        assert (error.code, error.request) == (ErrorCode.BAD_TOKEN, "hello")
        welcome = await ask(ws, encode(Hello(nickname="ada")))
        assert isinstance(welcome, Welcome)
        for again in (Hello(nickname="ada"), Hello(token=welcome.token)):
            error = await refusal(ws, encode(again))
            assert (error.code, error.request) == (ErrorCode.ALREADY_AUTHENTICATED, "hello")
        await still_answers(ws, 3.0)
    async with raw(srv) as ws:  # the token is good, on another connection
        resumed = await ask(ws, encode(Hello(token=welcome.token)))
        assert isinstance(resumed, Welcome)
        assert (resumed.player, resumed.nickname) == (welcome.player, "ada")


async def test_a_guest_takes_a_new_name_with_its_token_and_keeps_its_games(srv: Running) -> None:
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        game_id, _, _ = await start_game(ada, bob)
        token = ada.welcome.token
    async with raw(srv) as ws:
        renamed = await ask(ws, encode(Hello(nickname=" ada2 ", token=token)))
        assert isinstance(renamed, Welcome)
        assert (renamed.player, renamed.nickname) == (ada.player, "ada2")
        assert renamed.games == [game_id]  # the same player, seated where it was
    async with raw(srv) as ws:  # the name is kept: a later resume says it
        resumed = await ask(ws, encode(Hello(token=token)))
        assert isinstance(resumed, Welcome) and resumed.nickname == "ada2"
    async with raw(srv) as ws:  # a bad new name is refused like a guest's first one
        error = await refusal(ws, encode(Hello(nickname="a;b", token=token)))
        assert (error.code, error.request) == (BAD, "hello")
    player, bot_token = await srv.hub.store.new_bot("robo", 0)
    async with raw(srv) as ws:  # a bot account's name is the operator's
        error = await refusal(ws, encode(Hello(nickname="other", token=bot_token)))
        assert (error.code, error.request) == (ErrorCode.NOT_ALLOWED, "hello")
        same = await ask(ws, encode(Hello(nickname="robo", token=bot_token)))
        assert isinstance(same, Welcome) and (same.player, same.nickname) == (player, "robo")


async def test_the_welcome_says_what_this_server_allows_and_plays(
    start_server: StartServer,
) -> None:
    """The limits are the server's settings, not their defaults (a bot account's connection
    gets its own budget), and the server keeps to them; the game types are every one it plays,
    as it spells them; the levels are its bots'."""
    settings = {
        "chat_length": 120,
        "chat_interval": 2.5,
        "chat_burst": 3,
        "first_move_timeout": 45.0,
    }
    budgets = {"message_rate": 50.0, "message_burst": 90}
    bot_budgets = {"bot_message_rate": 70.0, "bot_message_burst": 700}
    async with start_server(**settings, **budgets, **bot_budgets) as srv, raw(srv) as ws:
        welcome = await ask(ws, encode(Hello(nickname="ada")))
        assert isinstance(welcome, Welcome)
        assert welcome.limits == Limits(
            120, 2.5, 3, 50.0, 90, MAX_FRAME_BYTES, MAX_WATCHING, MAX_NICKNAME, 45.0
        )
        assert welcome.levels == list(LEVELS)
        every = {"Base"} | {
            "Base+" + "".join(letters)
            for n in (1, 2, 3)
            for letters in itertools.combinations("MLP", n)
        }
        assert sorted(welcome.game_types) == sorted(every)
        assert len(welcome.game_types) == len(every)
        game = ""
        for game_type in welcome.game_types:  # each is taken, and spelled as the server does
            created = await ask(ws, encode(CreateGame(game_type=game_type)))
            assert isinstance(created, Update) and created.state.game_type == game_type
            game = created.game
            cancelled = await ask(ws, encode(CancelGame(game)))
            assert isinstance(cancelled, Update) and cancelled.state.status == "over"
        line = await ask(ws, encode(Chat(game, "x" * welcome.limits.chat_length)))
        assert isinstance(line, Update) and line.events[-1].text == "x" * 120
        too_long = await refusal(ws, encode(Chat(game, "x" * (welcome.limits.chat_length + 1))))
        assert too_long.code == ErrorCode.TOO_LONG
        _, token = await srv.hub.store.new_bot("robo", 0)
        async with raw(srv) as bot_ws:
            bot = await ask(bot_ws, encode(Hello(token=token)))
            assert isinstance(bot, Welcome) and bot.bot
            assert (bot.limits.message_rate, bot.limits.message_burst) == (70.0, 700)
            assert dataclasses.replace(bot.limits, message_rate=50.0, message_burst=90) == (
                welcome.limits
            )
            assert (bot.game_types, bot.levels) == (welcome.game_types, welcome.levels)


@pytest.mark.parametrize("nickname", [None, "", "   ", "x" * 25, "a\nb", "<b>ada</b>", "a;b"])
async def test_a_nickname_that_is_not_allowed_is_refused(
    srv: Running, nickname: str | None
) -> None:
    async with raw(srv) as ws:
        error = await refusal(ws, encode(Hello(nickname=nickname)))
        assert (error.code, error.request) == (BAD, "hello")
        assert "nickname" in error.message
        assert isinstance(await ask(ws, encode(Hello(nickname=" Zoë_2.0-b "))), Welcome)


def chat_frame(size: int) -> bytes:
    """A chat message of exactly ``size`` bytes."""
    empty = len(pack({"type": "chat", "game": GAME, "text": ""}))
    frame = pack({"type": "chat", "game": GAME, "text": "x" * (size - empty - 2)})  # str16
    assert len(frame) == size
    return frame


async def test_a_frame_over_the_limit_closes_its_connection_with_1009_only(srv: Running) -> None:
    async with raw(srv, "ada") as ada, raw(srv, "bob") as bob:
        at_limit = await refusal(bob, chat_frame(MAX_FRAME_BYTES))  # read, and refused
        assert at_limit.code == BAD and "chat.text: longer than" in at_limit.message
        await ada.send(chat_frame(MAX_FRAME_BYTES + 1))
        with pytest.raises(ConnectionClosedError) as closed:
            await reply(ada)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        await still_answers(bob, 1.0)
        async with raw(srv, "cy") as cy:
            await still_answers(cy, 2.0)


# -- docs/protocol.md --------------------------------------------------------------------------

WORKED_MARKER: Final = "<!-- The test replays every msgpack-json block below"
BLOCK_RE: Final = re.compile(r"```msgpack-json\n(.*?)```", re.S)
ELIDED_RE: Final = re.compile(r"\.\.\. (\d+) more")
PART: Final = "..."
"""The key of a map that shows only some of its fields (its value says where the rest is)."""
HEADERS: Final = {
    "send": re.compile(r"(\w+) -> server"),
    "receive": re.compile(r"server -> (\w+(?:, \w+)*)"),
    "close": re.compile(r"(\w+) closes the connection"),
    "bytes": re.compile(r"(\w+) sends the bytes ((?:[0-9a-f]{2} )*[0-9a-f]{2})"),
}


@dataclasses.dataclass(frozen=True)
class Step:
    """One line of an example: a message sent or received, a connection closed, raw bytes."""

    kind: str
    names: tuple[str, ...]
    body: dict[str, Any] | None = None
    data: bytes = b""


@dataclasses.dataclass(frozen=True)
class Block:
    line: int
    steps: list[Step]
    worked: bool


def _step(header: str, text: str) -> Step:
    matches = [(kind, found) for kind, p in HEADERS.items() if (found := p.fullmatch(header))]
    assert matches, f"unknown example header {header!r}"
    kind, found = matches[0]
    names = tuple(found[1].split(", "))
    if kind in ("send", "receive"):
        value = json.loads(text)
        assert isinstance(value, dict) and isinstance(value.get("type"), str), header
        return Step(kind, names, value)
    assert not text.strip(), f"{header!r} takes no message"
    return Step(kind, names, data=bytes.fromhex(found[2]) if kind == "bytes" else b"")


def doc_blocks() -> list[Block]:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(WORKED_MARKER) == 1
    worked_from = text.index(WORKED_MARKER)
    blocks = []
    for found in BLOCK_RE.finditer(text):
        steps: list[Step] = []
        header: str | None = None
        lines: list[str] = []
        for line in found[1].splitlines():
            if line.startswith("// "):
                if header is not None:
                    steps.append(_step(header, "\n".join(lines)))
                header, lines = line[3:], []
            else:
                assert header is not None, "an example starts with a // header"
                lines.append(line)
        assert header is not None
        steps.append(_step(header, "\n".join(lines)))
        line_number = text.count("\n", 0, found.start()) + 1
        blocks.append(Block(line_number, steps, found.start() > worked_from))
    return blocks


def unelided(value: Any) -> Any:
    """``value`` without the ``"... N more"`` items that stand for items left out."""
    if isinstance(value, dict):
        return {key: unelided(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unelided(v) for v in value if not (isinstance(v, str) and ELIDED_RE.fullmatch(v))]
    return value


def _reply_to(steps: list[Step], index: int) -> dict[str, Any]:
    """The next message the sender of ``steps[index]`` receives in the block."""
    sender = steps[index].names[0]
    for step in steps[index + 1 :]:
        if step.kind == "receive" and sender in step.names and step.body is not None:
            return step.body
    raise AssertionError(f"no reply to {steps[index]} in the example")


def is_part(value: Any) -> bool:
    """Whether ``value`` shows only some of the fields of a map in it."""
    if isinstance(value, dict):
        return PART in value or any(is_part(item) for item in value.values())
    if isinstance(value, list):
        return any(is_part(item) for item in value)
    return False


def _without_parts(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_parts(item) for key, item in value.items() if key != PART}
    if isinstance(value, list):
        return [_without_parts(item) for item in value]
    return value


def _optional(schema: Any) -> Any:
    """``schema`` with no property required."""
    if isinstance(schema, dict):
        return {k: [] if k == "required" else _optional(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_optional(item) for item in schema]
    return schema


PARTS: Final = jsonschema.Draft202012Validator(
    {"$ref": "#/$defs/ServerMessage", "$defs": _optional(SCHEMA["$defs"])}
)
"""The schema of the server's messages with every field optional: what a part of one shows."""


def checked_examples(block: Block) -> set[tuple[str, str]]:
    """Check each message of ``block`` against the code; the (side, type) of those that decode.

    A client message that does not decode must be followed by the error it gets, and the same
    for raw bytes; every message that decodes must show every field as the code encodes it. A
    server message may show some fields only (maps with a ``"..."`` key): those must be fields
    of its class, and their values of their types (by the schema).
    """
    decoded = set()
    for index, step in enumerate(block.steps):
        if step.kind == "close":
            continue
        if step.kind == "receive" and is_part(step.body):
            PARTS.validate(_without_parts(unelided(step.body)))
            continue
        if step.kind == "receive":
            assert step.body is not None
            message = decode_server(pack(unelided(step.body)))
            assert msgpack.unpackb(encode(message)) == unelided(step.body)
            decoded.add(("server", message.TYPE))
            continue
        data = step.data if step.kind == "bytes" else pack(step.body)
        try:
            message = decode(data)
        except ProtocolError as error:
            answer = _reply_to(block.steps, index)
            assert (answer["type"], answer["code"], answer["message"]) == (
                "error",
                error.code.value,
                error.message,
            )
        else:
            assert step.kind == "send", "raw bytes in an example should not decode"
            assert msgpack.unpackb(encode(message)) == step.body
            decoded.add(("client", message.TYPE))
    return decoded


BLOCKS: Final = doc_blocks()


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line-{b.line}" for b in BLOCKS])
def test_each_example_in_the_doc_is_a_message_of_its_class(block: Block) -> None:
    checked_examples(block)


def test_the_doc_has_an_example_of_every_message() -> None:
    shown: set[tuple[str, str]] = set()
    for block in BLOCKS:
        shown |= checked_examples(block)
    assert shown == set(MESSAGE_IDS)


def _section(title: str, doc: Path = DOC, level: str = "##") -> str:
    text = doc.read_text(encoding="utf-8")
    start = text.index(f"\n{level} {title}\n")
    end = text.find(f"\n{level} ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_quick_reference_lists_every_message_and_only_error_codes_as_refusals() -> None:
    quick = _section("Quick reference")
    codes = {code.value for code in ErrorCode}
    for title, registry in [("Requests", CLIENT_MESSAGES), ("Server messages", SERVER_MESSAGES)]:
        table = _section(title, level="###")
        assert table in quick
        rows = re.findall(r"^\| \[`([a-z_]+)`\]\(#[a-z_-]+\) \|(.*)\|$", table, re.M)
        assert [tag for tag, _ in rows] == list(registry), title
        if title == "Requests":
            for tag, rest in rows:
                refusals = set(re.findall(r"`([a-z_]+)`", rest.rsplit(" | ", 1)[1]))
                assert refusals <= codes, (tag, refusals - codes)


def test_the_doc_lists_every_error_code_and_no_other() -> None:
    listed = re.findall(r"^\| `([a-z_]+)` \|", _section("Error codes"), re.M)
    assert sorted(listed) == sorted(code.value for code in ErrorCode)
    assert len(listed) == len(set(listed))


def test_the_doc_lists_every_redis_key_of_the_store() -> None:
    assert store.__doc__ is not None
    keys = re.findall(r"^``(hive:\S+)``", store.__doc__, re.M)
    assert len(keys) >= 13
    listed = re.findall(r"^\| `(hive:\S+)` \|", _section("Storage in Redis", OPERATING), re.M)
    assert listed == keys


async def test_the_healthz_example_has_the_real_fields(srv: Running) -> None:
    example = re.search(r"```json\n(.*?)```", _section("HTTP routes", OPERATING), re.S)
    assert example is not None
    status, kind, data = await http_get(f"{srv.http_url}/healthz")
    assert (status, kind) == (200, "application/json")
    real = json.loads(data)
    assert set(json.loads(example[1])) == set(real) and real["status"] == "ok"


# The whole game: replayed against a real server and compared with what it answers.

IDENTITIES: Final = {"player", "token", "game", "id", "rematch"}
"""Keys whose values are random (ids, tokens): the doc's value stands for the server's."""
TIMES: Final = {"at", "server_time", "created"}


def _without_running_clocks(value: Any) -> Any:
    """``value`` with the clock figures that depend on timing replaced by ``"ms"``: those of a
    running clock, or of a finished game."""
    if isinstance(value, list):
        return [_without_running_clocks(item) for item in value]
    if not isinstance(value, dict):
        return value
    value = {key: _without_running_clocks(item) for key, item in value.items()}
    clocks = value.get("clocks")
    over = value.get("status") == "over"  # a part of a state shows its status when it is over
    if isinstance(clocks, dict) and (clocks["running"] is not None or over):
        value["clocks"] = {
            key: "ms" if key != "running" and isinstance(figure, int) else figure
            for key, figure in clocks.items()
        }
    return value


def _substituted(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with the doc's ids replaced by the server's."""
    if isinstance(value, dict):
        return {key: _substituted(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_substituted(item, ids) for item in value]
    if isinstance(value, str):
        for doc_id, real_id in ids.items():
            value = value.replace(doc_id, real_id)
    return value


def agree(expected: Any, real: Any, ids: dict[str, str], path: str, key: str = "") -> None:
    """Check the server's ``real`` message against the doc's ``expected``; learn which real id
    each id of the doc stands for."""
    if isinstance(expected, dict):
        assert isinstance(real, dict), f"{path}: {real!r}"
        if PART in expected:  # some of the fields only
            assert set(expected) - {PART} <= set(real), f"{path}: keys {sorted(real)}"
        else:
            assert sorted(expected) == sorted(real), f"{path}: keys {sorted(real)}"
        for name, item in expected.items():
            if name != PART:
                agree(item, real[name], ids, f"{path}.{name}", name)
    elif isinstance(expected, list):
        assert isinstance(real, list), f"{path}: {real!r}"
        shown = unelided(expected)
        left_out = sum(
            int(found[1])
            for item in expected
            if isinstance(item, str) and (found := ELIDED_RE.fullmatch(item))
        )
        assert len(real) == len(shown) + left_out, f"{path}: {len(real)} items"
        for index, (item, real_item) in enumerate(zip(shown, real, strict=False)):
            agree(item, real_item, ids, f"{path}[{index}]")
    elif key in IDENTITIES and isinstance(expected, str) and isinstance(real, str):
        if expected not in ids:
            assert real not in ids.values(), f"{path}: {real!r} stands for two ids of the doc"
            ids[expected] = real
        assert ids[expected] == real, f"{path}: {real!r}, expected {ids[expected]!r}"
    elif key in TIMES:
        assert isinstance(real, int) and isinstance(expected, int), f"{path}: {real!r}"
    else:
        expected = _substituted(expected, ids)
        assert type(real) is type(expected) and real == expected, (
            f"{path}: the server says {real!r}, the doc {expected!r}"
        )


class Replay:
    """Plays the doc's clients against a real server."""

    def __init__(self, srv: Running, stack: contextlib.AsyncExitStack) -> None:
        self.srv = srv
        self.stack = stack
        self.ids: dict[str, str] = {}
        self.connections: dict[str, ClientConnection] = {}
        self.players: dict[str, str] = {}  # name -> the doc's player id

    async def step(self, step: Step) -> None:
        name = step.names[0]
        if step.kind == "close":
            await self.connections.pop(name).close()
            await self.gone(self.ids[self.players[name]])
        elif step.kind == "send":
            assert step.body is not None
            if step.body["type"] == "hello":
                self.connections[name] = await self.stack.enter_async_context(
                    connect(self.srv.ws_url, max_size=None, compression=None)
                )
            await self.connections[name].send(pack(_substituted(step.body, self.ids)))
        elif step.kind == "receive":
            assert step.body is not None
            for receiver in step.names:
                await self.receive(receiver, step.body)
        else:
            raise AssertionError(f"the whole game sends no raw bytes: {step}")

    async def receive(self, name: str, expected: dict[str, Any]) -> None:
        """The next message ``name`` receives agrees with ``expected``; lobby messages that
        do not are skipped (they come whenever the lobby changes)."""
        expected = _without_running_clocks(expected)
        async with asyncio.timeout(10):
            while True:
                frame = await self.connections[name].recv()
                assert isinstance(frame, bytes)
                decode_server(frame)
                real = _without_running_clocks(msgpack.unpackb(frame))
                if real["type"] == "lobby":
                    ids = dict(self.ids)
                    try:
                        agree(expected, real, ids, f"{name}: lobby")
                    except AssertionError:
                        continue
                    self.ids = ids
                    return
                agree(expected, real, self.ids, f"{name}: {expected['type']}")
                if expected["type"] == "welcome":
                    self.players[name] = expected["player"]
                return

    async def gone(self, player: str) -> None:
        """Wait until the server has dropped the player's last connection."""
        presence = self.srv.hub.presence
        await until(lambda: player not in presence.by_player, f"{player} gone", timeout=10)


async def test_the_whole_game_in_the_doc_is_what_the_server_says(srv: Running) -> None:
    steps = [step for block in BLOCKS if block.worked for step in block.steps]
    assert len(steps) > 30
    async with contextlib.AsyncExitStack() as stack:
        replay = Replay(srv, stack)
        for step in steps:
            await replay.step(step)
    assert {"ada", "bob"} <= set(replay.players)


def test_the_replay_notices_a_wrong_doc() -> None:
    """The comparison of the replay is not vacuous."""
    welcome = server_body("welcome")
    ids: dict[str, str] = {}
    agree(welcome, copy.deepcopy(welcome), ids, "same")
    assert ids == {ADA.player: ADA.player, "lYN-6Jea": "lYN-6Jea"}
    changes: list[dict[str, Any]] = [{"nickname": "bob"}, {"games": []}, {"server_time": "x"}]
    for change in changes:
        with pytest.raises(AssertionError):
            agree(welcome, {**welcome, **change}, dict(ids), "changed")
    update = msgpack.unpackb(encode(Update(GAME, 1, [], STATE)))
    shorter = copy.deepcopy(update)
    shorter["state"]["legal"] = [update["state"]["legal"][0], "... 1 more"]
    agree(shorter, update, {}, "elided")
    shorter["state"]["legal"][1] = "... 2 more"
    with pytest.raises(AssertionError):
        agree(shorter, update, {}, "miscounted")
    part: dict[str, Any] = {**update, "state": {"version": STATE.version, PART: "the rest"}}
    agree(part, update, {}, "a part")
    PARTS.validate(_without_parts(part))
    wrongs: list[dict[str, Any]] = [{"version": "1"}, {"verzion": 1}]
    for wrong in wrongs:
        wrong_part = {**part, "state": {**wrong, PART: "the rest"}}
        with pytest.raises(AssertionError):
            agree(wrong_part, update, {}, "a wrong part")
        with pytest.raises(jsonschema.ValidationError):
            PARTS.validate(_without_parts(wrong_part))
