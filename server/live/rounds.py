"""A Swiss tournament's rounds, driven by ``server.live.director`` (``step``, while it holds
the tournament's lease), and its standings.

A step scores the games of the round in progress that ended (a game aborted because a side
never moved is lost by that side: a no-show, paused as in an arena, so that later rounds do
not wait out a first-move timeout for them; they are paired again once they join again), and
once every game of it has ended pairs the next round (``server.game.swiss.pair_round``, off
the event loop) among the players present (those who left or are paused are not paired, nor
given a bye; a late joiner is, with 0 for the rounds before). A round is added once
(``TournamentStore.add_round``: only while the rounds are as many as the step found), then
its games made; a game of it not made yet (its driver died between the two) is made by the
next step, under the same id. After the last round's last game the tournament is over, and
so it is when a later round is due and fewer than two players are present (the first waits
for two).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from protocol import PlayerStatus, Standing
from server.game import swiss
from server.game.record import new_game_id
from server.storage.tournaments import Arena, Roster, SwissGame, SwissRound, TournamentStore

if TYPE_CHECKING:
    from server.storage.store import Store

SCORES = {"WhiteWins": 1.0, "BlackWins": 0.0, "Draw": 0.5}

Make = Callable[[Arena, Roster, Sequence[tuple[str, str, str]]], Awaitable[None]]
"""Makes games at once (``Director.start_games``): the arena, its roster, and each game's
White, Black and id."""


def _core(round_: SwissRound) -> swiss.Round:
    games = tuple(swiss.Pairing(g.white, g.black, g.score) for g in round_.games)
    return swiss.Round(games, round_.bye)


async def step(
    tournaments: TournamentStore, store: Store, arena: Arena, roster: Roster, make: Make
) -> tuple[bool, bool]:
    """One step of the Swiss ``arena``: whether it changed, and whether it is over."""
    rounds = await tournaments.rounds(arena.id)
    changed = False
    absent: set[str] = set()  # (no-shows paused by this step)
    if rounds:
        number, current = len(rounds), rounds[-1]
        unscored = [g.game for g in current.games if g.score is None]
        unsettled = set(await tournaments.unsettled(unscored))  # (the games in progress: not read)
        records = {r.id: r for r in await store.get_many(unsettled)}
        games, unmade = [], []
        for game in current.games:
            record = records.get(game.game)
            if record is None and game.game in unsettled:
                unmade.append((game.white, game.black, game.game))
            elif record is not None and record.status == "over":
                score = SCORES.get(record.result or "")
                if score is None:  # aborted: the side that did not move loses, and is paused
                    score = 0.0 if not record.moves else 1.0
                    absent.add(game.white if not record.moves else game.black)
                game = game._replace(score=score)
                changed = True
            games.append(game)
        if unmade:
            await make(arena, roster, unmade)
        for player in absent:  # (before the scores: a step killed between them pauses again)
            await tournaments.pause(arena.id, player)
        if changed:
            await tournaments.score_round(arena.id, number, current._replace(games=games))
        if any(game.score is None for game in games):
            return changed, False
        rounds[-1] = current._replace(games=games)
    if len(rounds) >= arena.rounds:
        return changed, True
    present = [
        swiss.Entrant(player, float(entrant.rating or 1500))
        for player, entrant in roster.players.items()
        if player not in roster.paused and player not in absent
    ]
    if len(present) < 2:  # round 1 waits for two players; a later one ends it there
        return changed, bool(rounds)
    paired = await asyncio.to_thread(swiss.pair_round, present, [_core(r) for r in rounds])
    new = SwissRound([SwissGame(g.white, g.black, new_game_id()) for g in paired.games], paired.bye)
    if not await tournaments.add_round(arena.id, len(rounds) + 1, new):
        return changed, False
    await make(arena, roster, [(game.white, game.black, game.game) for game in new.games])
    return True, False


def _scores(player: str, rounds: Iterable[SwissRound]) -> tuple[list[float], int]:
    """A player's score in each round they played or had a bye in, and their byes."""
    scores, byes = [], 0
    for round_ in rounds:
        if round_.bye == player:
            scores.append(swiss.BYE_POINTS)
            byes += 1
        for game in round_.games:
            if game.score is not None and player in (game.white, game.black):
                scores.append(game.score if player == game.white else 1 - game.score)
    return scores, byes


def standings(roster: Roster, rounds: list[SwissRound]) -> list[Standing]:
    """The standings of a Swiss: points, then Buchholz, Sonneborn-Berger, rating, name."""
    entrants = [swiss.Entrant(p, float(e.rating or 0)) for p, e in roster.players.items()]
    lines = []
    for row in swiss.standings(entrants, [_core(r) for r in rounds]):
        entrant = roster.players[row.name]
        scores, byes = _scores(row.name, rounds)
        game = roster.playing.get(row.name)
        status: PlayerStatus = (
            "playing" if game else "paused" if row.name in roster.paused else "waiting"
        )
        lines.append(
            Standing(
                row.name,
                entrant.name,
                entrant.rating,
                row.points,
                scores,
                status=status,
                game=game,
                byes=byes,
                buchholz=row.buchholz,
                sonneborn_berger=row.sonneborn_berger,
            )
        )
    return lines
