"""Finished games for the tests of computer analyses (tests/server/test_reviews.py, and in the
browser tests/client/test_analysis.py): archived as the sweep does, and the messages of one
game's analysis read until it is done."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from protocol import (
    AnalyseGame,
    CreateGame,
    Error,
    GameAnalysis,
    JoinGame,
    Play,
    Resign,
    Seat,
    TimeControl,
    Update,
)
from protocol.client import Client
from server.archive import analyses
from server.game.clock import now_ms
from tests.server.support import decisive_game, finished
from tests.support import until

if TYPE_CHECKING:
    from tests.server.conftest import Running

ANN: Final = Seat("p-ann", "ann")
BOB: Final = Seat("p-bob", "bob")
HARD: Final = Seat("bot:hard", "hard bot", "hard", account="bot")
BLITZ: Final = TimeControl("clock", 180, 2)
PLIES: Final = 24
"""Plies of the games analysed here: the first of a decisive game between two beginner bots
(marks to find), short enough to be searched in a few seconds."""
LONGER: Final = 400
"""The longest game ``decisive_game`` may pick for them: a game of 97 plies, whose first 24
the searches go through faster than the shortest game's."""


def short_game() -> tuple[str, ...]:
    return decisive_game(within=LONGER)[:PLIES]


async def archive_game(
    srv: Running, game_id: str, white: Seat = ANN, black: Seat = BOB, *, time: TimeControl = BLITZ
) -> None:
    """Write a finished game of ``PLIES`` plies to the archive, as the sweep does."""
    record = finished(
        game_id, white, black, "WhiteWins", "resigned", now_ms(), time=time, moves=short_game()
    )
    assert await srv.hub.archive.write(record)


async def analysis(
    client: Client, game: str, *, start: bool = False, timeout: float = 30.0
) -> GameAnalysis | Error:
    """The answer to ``analyse_game`` (or its refusal), within ``timeout`` seconds."""
    await client.send(AnalyseGame(game, start))
    while True:
        answer = await client.recv(timeout)
        if isinstance(answer, Error) or (isinstance(answer, GameAnalysis) and answer.game == game):
            return answer


async def until_done(client: Client, game: str, timeout: float = 120) -> list[GameAnalysis]:
    """The analysis messages of ``game`` pushed to ``client`` until the finished one (last)."""
    seen = []
    while True:
        message = await client.recv(timeout)
        if isinstance(message, GameAnalysis) and message.game == game:
            seen.append(message)
            if message.status == "done":
                return seen


async def played(ws_url: str, moves: Sequence[str], game_type: str = "Base") -> tuple[str, str]:
    """Two guests, ann (White) and ben, play ``moves`` (a game of ``game_type`` without a
    clock) through the server at ``ws_url``, then ben resigns; the game's id and ann's session
    token, as soon as it is over."""
    async with (
        Client.connect(ws_url, nickname="ann") as ann,
        Client.connect(ws_url, nickname="ben") as ben,
    ):
        await ann.send(CreateGame(game_type=game_type, time=TimeControl(), color="white"))
        game_id = (await ann.expect(Update)).game
        await ben.send(JoinGame(game_id))
        clients = (ann, ben)
        for ply, text in enumerate(moves):
            mover = clients[ply % 2]
            update = await mover.expect(Update)
            while len(update.state.moves) != ply or update.state.status != "live":
                update = await mover.expect(Update)
            await mover.send(Play(game_id, update.version, text))
        await ben.send(Resign(game_id))
        update = await ann.expect(Update)
        while update.state.status != "over":
            update = await ann.expect(Update)
        return game_id, ann.welcome.token


async def played_game(srv: Running, *, archived: bool = True) -> tuple[str, str]:
    """``played`` of ``short_game`` on ``srv``, once the game is archived (``archived``; else
    as soon as it is over)."""
    game_id, token = await played(srv.ws_url, short_game())
    if archived:
        await until(
            lambda: analyses.archived(srv.hub.database, game_id), f"game {game_id} archived"
        )
    return game_id, token
