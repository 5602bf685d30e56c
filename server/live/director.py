"""The arena director: each running tournament driven by one process at a time.

Every ``tick`` (and at once when woken: a player joined here, whose news it sends, or a
tournament's game ended here, ``Changes.game_ended``, so that its players wait for no tick),
each process looks at the tournaments whose start has come (``hive:tournaments``) and, for each,
takes or renews its lease (``hive:t:{ID}:driving``, ``server.storage.leases``, ``LEASE_MS``):
the holder drives it; a holder that dies lets go when its lease lapses, and the next process to
look takes it (within ``LEASE_MS`` and a tick). Driving, one step a tick:

- at its start, it is marked running;
- each of its games that ended is scored (``TournamentStore.end_game``: once, whoever comes
  first) and its players wait again; an aborted game (a side never moved) counts for
  nothing, and the side that did not move is paused; a pairing whose game was never made
  (its driver died between the two) is undone after ``UNMADE_MS``;
- until its end, the players waiting are paired (``server.game.arena.pair``, off the event
  loop) and the pairs committed all at once (``TournamentStore.pair``), then each game made
  through ``Changes.create``, as any game (clocks, spectators, reconnects, the archive), and
  its players told (``tournament_game``, on every process);
- past its end no one is paired; once its last game has ended it is over, its winner the
  first of the standings: its final standings are written to the database first
  (``server.archive.tournaments``, once), then it is marked over in Redis and everyone told
  (a database that does not answer leaves it running, finished at a later tick).

After its changes the tournament (``tournament``, its standings) goes to its players and
watchers, on every process (the notices channel): at its start and end at once, and while an
arena runs at most every ``PUBLISH_MS`` (its standings are a line a player, 20 KB for 200
players, sent to each of them: on every tick with a change, 4 times a second, that was a
tenth of a core under a 200-player arena of quick games).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from protocol import (
    PlayerStatus,
    ProtocolError,
    Seat,
    Speed,
    Standing,
    Tournament,
    TournamentGame,
    TournamentSummary,
    encode,
)
from server.archive.games import DATABASE_ERRORS
from server.game import arena as rules
from server.game import match, rating
from server.game.clock import now_ms
from server.game.record import new_game_id
from server.live import rounds
from server.storage.keys import tournament_key
from server.storage.leases import Lease
from server.storage.stopping import finish
from server.storage.store import STORAGE_ERRORS
from server.storage.tournaments import Arena, Pairing, Roster, TournamentStore

if TYPE_CHECKING:
    from server.live.changes import Changes
    from server.storage.store import Store

log = logging.getLogger(__name__)

TICK_SECONDS: Final = 0.25
"""How often a process looks at the tournaments running (the most a pairing waits after a
game ended elsewhere)."""
LEASE_MS: Final = 4000
"""How long a director's lease lasts unless renewed (every tick)."""
UNMADE_MS: Final = 5000
"""How long a pairing may wait for its game to be made before it is undone."""
PUBLISH_MS: Final = 1000
"""How often a running arena's standings are sent at most (a change waits for the next)."""
SCORES: Final = {"WhiteWins": 1.0, "BlackWins": 0.0, "Draw": 0.5}

Keep = Callable[[Tournament, str, int], Awaitable[bool]]
"""Writes an ended tournament to the database once (``TournamentArchive.write``): its
final standings, its creator's id, when it ended."""


def standings(roster: Roster) -> list[Standing]:
    """The standings: best first (points, then rating, then name)."""
    scores = rules.scores_of(roster.ended)
    lines = []
    for player, entrant in roster.players.items():
        mine = scores.get(player, [])
        points = rules.game_points(mine)
        streak = len(mine) >= 2 and mine[-1] == 1 and mine[-2] == 1
        game = roster.playing.get(player)
        status: PlayerStatus = (
            "playing" if game else "paused" if player in roster.paused else "waiting"
        )
        lines.append(
            Standing(
                player,
                entrant.name,
                entrant.rating,
                float(sum(points)),
                [float(p) for p in points],
                streak,
                status,
                game,
            )
        )
    lines.sort(key=lambda line: (-line.points, -(line.rating or 0), line.name))
    return lines


def summary(arena: Arena, status: str, players: int, round_: int = 0) -> TournamentSummary:
    return TournamentSummary(
        arena.id,
        arena.name,
        arena.creator_name,
        arena.game_type,
        arena.time,
        arena.rated,
        arena.starts,
        arena.ends,
        status,  # type: ignore[arg-type]  # (stored by this module: one of TournamentStatus)
        players,
        arena.max_players,
        arena.rating_min,
        arena.rating_max,
        arena.kind,
        arena.rounds,
        round_,
    )


async def tournament(tournaments: TournamentStore, arena: Arena) -> Tournament:
    """The tournament ``arena`` as a client sees it now."""
    roster = await tournaments.roster(arena.id)
    if arena.kind == "swiss":
        played = await tournaments.rounds(arena.id)
        lines = rounds.standings(roster, played)
        shown = summary(arena, roster.status, len(lines), len(played))
        return Tournament(shown, lines, roster.winner)
    lines = standings(roster)
    return Tournament(summary(arena, roster.status, len(lines)), lines, roster.winner)


async def publish(tournaments: TournamentStore, store: Store, arena: Arena) -> None:
    """Send the tournament as it is now to its players and watchers, on every process."""
    shown = await tournament(tournaments, arena)
    watchers = await tournaments.watchers(arena.id, now_ms())
    players = sorted({*(line.player for line in shown.standings), *watchers})
    if players:
        await store.notify(players, encode(shown))


class Director:
    """This process's part in driving the tournaments.

    Args:
        tournaments: The tournaments in Redis.
        store: The Redis store (the leases, the games read, the notices).
        changes: Where the games are made.
        seats_again: Seats with their players' ratings now in a speed, read at once
            (``Seating.seats_again``).
        ttl_ms: Of ``Settings.open_game_ttl``: a record has one, though never open.
        keep: Writes an ended tournament to the database (None: nothing is kept of it
            once its keys lapse, as in a tool with no database).
    """

    def __init__(
        self,
        tournaments: TournamentStore,
        store: Store,
        changes: Changes,
        seats_again: Callable[[Sequence[Seat], Speed], Awaitable[list[Seat]]],
        *,
        ttl_ms: int,
        keep: Keep | None = None,
    ) -> None:
        self.tournaments = tournaments
        self.store = store
        self.changes = changes
        self.seats_again = seats_again
        self.ttl_ms = ttl_ms
        self.keep = keep
        self.owner = secrets.token_hex(8)
        self.tick = TICK_SECONDS
        self.lease_ms = LEASE_MS
        self.held: dict[str, Lease] = {}
        """The tournaments this process drives, with their leases."""
        self.woken = asyncio.Event()
        self.published: dict[str, int] = {}
        """When each arena driven here last had its standings sent."""
        self.unpublished: set[str] = set()
        """The arenas driven here with changes not sent yet."""
        self.news: set[str] = set()
        """The tournaments joined here since the last drive (their news not sent yet)."""

    async def drive(self) -> None:
        """Forever: a step of each tournament this process holds, every tick."""
        try:
            while True:
                try:
                    await self.drive_once()
                except (*STORAGE_ERRORS, *DATABASE_ERRORS) as error:
                    log.warning("tournaments not driven this tick (%s)", error)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.tick):
                        await self.woken.wait()
                self.woken.clear()
        finally:  # the leases let go of, even through the stop's next cancels
            await finish([asyncio.create_task(self._let_go(lease)) for lease in self.held.values()])

    async def _let_go(self, lease: Lease) -> None:
        with contextlib.suppress(*STORAGE_ERRORS):
            await lease.release(self.owner)

    def joined(self, tournament_id: str) -> None:
        """A player joined ``tournament_id`` here: the news goes to its players and watchers
        on the next drive (at once), with the other joins meanwhile (200 players joining,
        each join sent to every player, were 20,000 messages), and they are paired then."""
        self.news.add(tournament_id)
        self.woken.set()

    async def drive_once(self) -> None:
        for tournament_id in list(self.news):
            self.news.discard(tournament_id)
            found = await self.tournaments.arena(tournament_id)
            if found is not None:
                await publish(self.tournaments, self.store, found[0])
        due = await self.tournaments.due(now_ms())
        for gone in set(self.held) - set(due):
            del self.held[gone]  # (over: its lease was let go)
        for stale in self.published.keys() - self.held.keys():  # kept while driven here
            del self.published[stale]
        self.unpublished &= self.held.keys()
        for tournament_id in due:
            if await self._hold(tournament_id):
                await self.step(tournament_id)

    async def _hold(self, tournament_id: str) -> bool:
        """Take or renew the lease of ``tournament_id``: whether this process drives it."""
        lease = self.held.get(tournament_id)
        if lease is not None:
            if await lease.renew(self.owner):
                return True
            log.warning("tournament %s: lease lost", tournament_id)
            del self.held[tournament_id]
            return False
        lease = Lease(self.store, tournament_key(tournament_id, "driving"), ms=self.lease_ms)
        if not await lease.take(self.owner):
            return False
        log.info("tournament %s: driven here", tournament_id)
        self.held[tournament_id] = lease
        return True

    async def step(self, tournament_id: str) -> None:
        found = await self.tournaments.arena(tournament_id)
        if found is None:
            return
        arena, status = found
        now = now_ms()
        changed = status == "upcoming"
        if changed:
            await self.tournaments.start(arena.id)
        if arena.kind == "swiss":
            roster = await self.tournaments.roster(arena.id)
            stepped, over = await rounds.step(
                self.tournaments, self.store, arena, roster, self._start_games
            )
            if over:
                await self._finish(arena, now)
            elif changed or stepped:
                await publish(self.tournaments, self.store, arena)
            return
        pairings = await self.tournaments.pairings(arena.id)
        left = await self._score(arena, pairings, now)
        changed |= left < len(pairings)
        if now < arena.ends:
            changed |= await self._pair(arena, now)
        elif not left:
            await self._finish(arena, now)
            return
        if changed:
            self.unpublished.add(arena.id)
        due = now - self.published.get(arena.id, 0) >= PUBLISH_MS or status == "upcoming"
        if arena.id in self.unpublished and due:
            self.unpublished.discard(arena.id)
            self.published[arena.id] = now
            await publish(self.tournaments, self.store, arena)

    async def _score(self, arena: Arena, pairings: list[Pairing], now: int) -> int:
        """Score the games of ``pairings`` that ended: how many go on."""
        unsettled = set(await self.tournaments.unsettled([p.game for p in pairings]))
        records = {r.id: r for r in await self.store.get_many(unsettled)}
        left = len(pairings) - len(unsettled)  # (the games in progress: not read)
        ended: list[Awaitable[object]] = []
        for pairing in (p for p in pairings if p.game in unsettled):
            record = records.get(pairing.game)
            if record is None:
                if now - pairing.paired > UNMADE_MS:  # never made: its players wait again
                    ended.append(self.tournaments.end_game(arena.id, pairing, None, now))
                else:
                    left += 1
            elif record.status != "over":
                left += 1
            else:
                ended.append(self._end(arena, pairing, record.result, bool(record.moves), now))
        await asyncio.gather(*ended)  # (at once: a player is in one game at a time)
        return left

    async def _end(
        self, arena: Arena, pairing: Pairing, result: str | None, moved: bool, now: int
    ) -> None:
        """Score an ended game; an aborted one pauses the side that did not move."""
        score = SCORES.get(result or "")
        if await self.tournaments.end_game(arena.id, pairing, score, now) and score is None:
            await self.tournaments.pause(arena.id, pairing.white if not moved else pairing.black)

    async def _pair(self, arena: Arena, now: int) -> bool:
        """Pair the players waiting and make their games: whether any were."""
        waiting = await self.tournaments.waiting(arena.id)
        if len(waiting) < 2:
            return False
        roster = await self.tournaments.roster(arena.id)
        ready = [
            rules.Waiting(player, float(roster.players[player].rating or 1500))
            for player in waiting
            if player in roster.players
        ]
        pairs = await asyncio.to_thread(rules.pair, ready, roster.ended)
        if not pairs:
            return False
        games = [(white, black, new_game_id()) for white, black in pairs]
        if not await self.tournaments.pair(arena.id, games, now):
            return False  # one of them left meanwhile: paired again next tick
        await self._start_games(arena, roster, games)
        return True

    async def _start_games(
        self, arena: Arena, roster: Roster, games: Sequence[tuple[str, str, str]]
    ) -> None:
        """Make the games (White, Black, id) at once, their players' ratings read in one query
        (100 games made one by one took a second; their 200 ratings read one by one, a query
        each, were 4% of the server's samples in a 200-player arena, of the director's 9%)."""
        seats = []
        for white, black, _ in games:
            for player in (white, black):
                entrant = roster.players[player]
                seats.append(Seat(player, entrant.name, account=entrant.account))
        pool = rating.speed(arena.time)
        if pool is not None:
            seats = await self.seats_again(seats, pool)
        await asyncio.gather(
            *(
                self._start_game(arena, seats[2 * n], seats[2 * n + 1], game)
                for n, (_, _, game) in enumerate(games)
            )
        )

    async def _start_game(self, arena: Arena, white: Seat, black: Seat, game: str) -> None:
        """Make the game and tell its players (a game not made is logged: an arena's
        pairing is undone after ``UNMADE_MS``, a Swiss's game made again by the next step)."""
        try:
            await self._make(arena, white, black, game)
        except (*STORAGE_ERRORS, ProtocolError) as error:
            log.warning("tournament %s: game %s not made (%s)", arena.id, game, error)
            return
        players = [white.player, black.player]
        await self.store.notify(players, encode(TournamentGame(arena.id, game, *players)))

    async def _make(self, arena: Arena, white: Seat, black: Seat, game: str) -> None:
        """Make the game ``game`` of ``white`` and ``black``, in progress."""
        now = now_ms()
        record = match.create(
            game,
            white,
            game_type=arena.game_type,
            time=arena.time,
            color="white",
            now=now,
            ttl_ms=self.ttl_ms,
            seed=random.getrandbits(31),
            rated=arena.rated,
            tournament=arena.id,
            tournament_name=arena.name,
        )
        record, event = match.join(record, black, now)
        await self.changes.create(record, event)

    async def _finish(self, arena: Arena, now: int) -> None:
        shown = await tournament(self.tournaments, arena)
        played = [line for line in shown.standings if line.scores]
        winner = played[0].player if played else None
        if self.keep is not None:  # first: killed before the mark, it is finished again
            final = Tournament(replace(shown.summary, status="over"), shown.standings, winner)
            await self.keep(final, arena.creator, now)
        await self.tournaments.finish(arena.id, winner, now)
        self.published.pop(arena.id, None)
        self.unpublished.discard(arena.id)
        lease = self.held.pop(arena.id, None)
        if lease is not None:
            await lease.release(self.owner)
        log.info("tournament %s: over, won by %s", arena.id, winner)
        await publish(self.tournaments, self.store, arena)
