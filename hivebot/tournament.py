"""``hive-bot --tournament ID``: the tournaments the bot plays in.

It joins each (``tournament_join``) at the start of every session (after a drop too: a join
resumes a tournament left), keeps a slot of its ``--max-games`` free for each tournament it
waits in (so that a pairing always finds one; the lobby's games take only the others), and
plays every game an arena pairs it in (``tournament_game``, then ``watch``) as any other: a
game it is told of twice is played once. A refusal (unknown, full, out of its rating range,
over) is logged with the tournament's id, and the bot goes on with its other games. When a
tournament is over its result is logged and its slot freed; ``--tournament-only`` bots stop
once all theirs are. Stopping, the bot pauses in those still running (``tournament_leave``),
so that it is not paired while away.

A game it is paired in for a tournament it did not join here (an earlier run's) is played too
while a slot is free; without one it is resigned and that tournament left.

What it uses of the bot's session is named by ``Bot`` (``session.Runner`` is one).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from typing import Final, Literal, Protocol

from protocol import (
    Error,
    GameSummary,
    JoinTournament,
    LeaveTournament,
    Resign,
    Tournament,
    TournamentGame,
    Watch,
)
from protocol.client import Client

log = logging.getLogger("hive-bot")

State = Literal["joining", "in", "over", "refused"]
PLAYING: Final[tuple[State, ...]] = ("joining", "in")
"""States of a tournament the bot plays in (one slot kept for it while it waits)."""


class Slots(Protocol):
    """What it uses of the bot's games (``game.Games``)."""

    versions: dict[str, int]
    joining: set[str]

    @property
    def ended(self) -> Collection[str]:
        """The last games played to their end."""

    def free(self) -> int:
        """Slots for more games."""


class Bot(Protocol):
    """What it uses of the bot's session (``session.Runner``)."""

    @property
    def max_games(self) -> int: ...
    @property
    def games(self) -> Slots: ...

    async def join_open(self, client: Client, games: list[GameSummary]) -> None:
        """Join those of the lobby's open ``games`` it wants, while it has slots."""


class Tournaments:
    """The bot's tournaments: each one's state, and its games in progress.

    Args:
        bot: The bot's session.
        wanted: The tournaments to join (``--tournament``).
        only: Play nothing else, and stop once they are over (``--tournament-only``).
    """

    def __init__(self, bot: Bot, wanted: list[str], *, only: bool = False) -> None:
        self.bot = bot
        self.only = only
        self.states: dict[str, State] = {t: "joining" for t in wanted}
        self.games: dict[str, str] = {}  # its tournament games not over -> their tournament
        self.done = asyncio.Event()
        """Set, for ``--tournament-only``, once no tournament of it goes on."""

    def reserved(self) -> int:
        """Slots kept for the tournaments it waits in (those it plays a game of need none)."""
        busy = set(self.games.values())
        return sum(1 for t, state in self.states.items() if state in PLAYING and t not in busy)

    def is_game(self, game_id: str) -> bool:
        """Whether ``game_id`` is one of its tournament games in progress."""
        return game_id in self.games

    async def join_all(self, client: Client) -> None:
        """Join (or resume) each tournament it plays in: at the start of each session."""
        for tournament_id, state in self.states.items():
            if state in PLAYING:
                await client.send(JoinTournament(tournament_id))

    async def paired(self, client: Client, message: TournamentGame) -> None:
        """An arena paired it: watch (and so play) the game, once."""
        game_id, tournament_id = message.game, message.tournament
        if client.player not in (message.white, message.black):
            return
        games = self.bot.games
        if game_id in self.games or game_id in games.versions or game_id in games.ended:
            known = game_id in games.versions and game_id not in games.ended
            if known and self.states.get(tournament_id) in PLAYING:
                self.games.setdefault(game_id, tournament_id)  # (watched again after a drop)
            log.info("tournament %s: game %s told again (played once)", tournament_id, game_id)
            return
        if self.states.get(tournament_id) not in PLAYING:  # joined by an earlier run
            if games.free() <= 0:
                log.warning(
                    "tournament %s: paired in game %s with no free slot (--max-games %d): "
                    "resigning it and leaving the tournament",
                    tournament_id,
                    game_id,
                    self.bot.max_games,
                )
                await client.send(Resign(game_id))
                await client.send(LeaveTournament(tournament_id))
                return
            self.states[tournament_id] = "in"
        colour = "white" if client.player == message.white else "black"
        log.info("tournament %s: paired in game %s as %s", tournament_id, game_id, colour)
        self.games[game_id] = tournament_id
        games.versions[game_id] = -1
        games.joining.add(game_id)  # its slot, until the game's first update
        await client.send(Watch(game_id))

    def ended(self, game_id: str) -> None:
        """One of its games is over (any game: its tournament's slot is kept again)."""
        if self.games.pop(game_id, None) is not None:
            asyncio.get_running_loop().call_soon(self._check_done)  # once its end is logged

    async def standings(self, client: Client, message: Tournament) -> None:
        """A tournament's news: joined, paused by the server, or over."""
        summary = message.summary
        state = self.states.get(summary.id)
        if state not in PLAYING:
            return
        mine = next((line for line in message.standings if line.player == client.player), None)
        if summary.status == "over":
            self.states[summary.id] = "over"
            rank = message.standings.index(mine) + 1 if mine is not None else 0
            log.info(
                "tournament %s over: won by %s; this bot %s",
                summary.id,
                next((s.name for s in message.standings if s.player == message.winner), "nobody"),
                f"{mine.points:g} points, {rank} of {len(message.standings)}"
                if mine is not None
                else "not in its standings",
            )
            self._check_done()
            await self._freed(client)
        elif mine is None:
            return  # (news from before its join)
        elif state == "joining" and mine.status != "paused":
            self.states[summary.id] = "in"
            log.info(
                "tournament %s: joined %r (%s, %d players)",
                summary.id,
                summary.name,
                summary.status,
                len(message.standings),
            )
        elif state == "in" and mine.status == "paused" and summary.status == "running":
            log.warning("tournament %s: paused by the server; joining again", summary.id)
            await client.send(JoinTournament(summary.id))

    async def refused(self, client: Client, error: Error) -> None:
        """A tournament request was refused: a join gives the tournament up."""
        tournament_id = error.tournament or "?"
        if error.request == "tournament_join" and self.states.get(tournament_id) in PLAYING:
            log.error(
                "tournament %s: not joined: %s (%s)", tournament_id, error.message, error.code
            )
            self.states[tournament_id] = "refused"
            self._check_done()
            await self._freed(client)
        else:
            log.warning(
                "tournament %s: %s refused: %s", tournament_id, error.request, error.message
            )

    async def pause_all(self, client: Client) -> None:
        """Stopping: pause in (or, before their start, leave) the tournaments it plays in."""
        for tournament_id, state in self.states.items():
            if state in PLAYING:
                log.info("tournament %s: pausing (the bot stops)", tournament_id)
                await client.send(LeaveTournament(tournament_id))

    async def _freed(self, client: Client) -> None:
        """The slot kept for a tournament is free: the lobby's games may take it."""
        if client.lobby is not None:
            await self.bot.join_open(client, client.lobby.open)

    def _check_done(self) -> None:
        if self.only and not self.games and all(s not in PLAYING for s in self.states.values()):
            self.done.set()
