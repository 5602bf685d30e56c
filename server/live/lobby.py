"""The lobby, as one server process knows it: every open game and game in progress (the
listener keeps them up to date from every process's changes: a game's record when its line
changes other than its moves, and the moves of each game in progress at most twice a second),
what the lobby's subscribers were last shown, and what changed since.

A subscriber first gets a ``Lobby`` snapshot of the lists as last shown, then a
``LobbyChange`` at each tick of the feed's broadcast (at most twice a second) that changed
something: the games added to or changed in the lists shown, the ones gone, the bot accounts
when they changed, and the totals. The lists shown are capped (``LOBBY_SHOWN`` each: the
oldest open games, the newest games in progress), so a change costs what changed in them,
whatever the number of games.

The board also counts, for the limits on creating games, the open games of each origin (a
keyed hash of the address they were created from) and the games against the server's bots of
each player and each origin.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from typing import Final

import prometheus_client
from websockets.asyncio.server import broadcast

from protocol import LOBBY_SHOWN, BotInfo, GameSummary, Lobby, LobbyChange, encode
from server.game import view
from server.game.record import Record
from server.live.backlog import Backlog
from server.live.cache import GameCache
from server.live.presence import Presence
from server.live.session import Session
from server.storage.channels import pack_moves
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

Shown = dict[str, tuple[bool, GameSummary]]
"""The lists as shown: game id -> (in the open list, its line), open games first."""

SHARE_SECONDS: Final = 0.5
"""How often a process tells the others the moves played in the games it changed."""


def relisted(was: Record, record: Record) -> bool:
    """Whether a change from ``was`` to ``record`` changes the game's line in the lobby, other
    than its moves (every process hears of such a change at once; of a move, from
    ``LobbyFeed.share``)."""
    if was.status != record.status:
        return True
    if record.status not in ("open", "live"):
        return False  # not in the lobby
    # The two lines' fields, the moves' count set alike (no copy of each line made).
    line = vars(view.summary(record, 0))
    return {**vars(view.summary(was, 0)), "moves": line["moves"]} != line


def _open_order(record: Record) -> tuple[bool, int, str]:
    """The open list's order: the games for bot accounts first (people cannot join them; a
    bot finds its challenges however many games people open), then by age."""
    return record.wants != "bots", record.created, record.id


def _age(record: Record) -> tuple[int, str]:
    """The order of the games in progress: by creation time (then id)."""
    return record.created, record.id


class LobbyBoard:
    """The lobby's games in this process, and what its subscribers were last shown."""

    def __init__(self) -> None:
        self.open: dict[str, Record] = {}
        self.in_progress: dict[str, Record] = {}
        self.dirty = asyncio.Event()
        """Set by every change: the broadcast looks again."""
        self.open_from: Counter[str] = Counter()
        """Open games by origin."""
        self.playing: Counter[str] = Counter()
        """Games in progress by player."""
        self.bot_games_of: Counter[str] = Counter()
        """Games in progress against the server's bots, by (human) player."""
        self.bot_games_from: Counter[str] = Counter()
        """Games in progress against the server's bots, by origin."""
        self.moves: dict[str, tuple[int, int]] = {}
        """The games in progress whose record here is older than their moves: (version, moves)
        as another process said."""
        self._shown: Shown | None = None
        self._bots: list[BotInfo] = []
        self._totals = (0, 0)

    def update(self, record: Record) -> bool:
        """Take the game's latest record; returns whether its status changed (or the game is
        new here)."""
        was = self.open.pop(record.id, None) or self.in_progress.pop(record.id, None)
        later = self.moves.get(record.id)
        if later is not None and (later[0] <= record.version or record.status != "live"):
            del self.moves[record.id]
        if record.status == "open":
            self.open[record.id] = record
        elif record.status == "live":
            self.in_progress[record.id] = record
        self.dirty.set()
        if was is not None and was.status == record.status:
            return False  # a move or a chat line: the seats and the origin stay
        if was is not None:
            self._count(was, -1)
        self._count(record, 1)
        return True

    def moved(self, game_id: str, version: int, moves: int) -> None:
        """Another process changed a game in progress to ``version``, with ``moves`` moves."""
        record = self.in_progress.get(game_id)
        if record is None or record.version >= version:
            return
        later = self.moves.get(game_id)
        if later is None or later[0] < version:
            self.moves[game_id] = (version, moves)
            self.dirty.set()

    def _count(self, record: Record, sign: int) -> None:
        if record.status == "open" and record.origin is not None:
            _add(self.open_from, record.origin, sign)
        if record.status != "live":
            return
        for player in record.players():
            _add(self.playing, player, sign)
        bot = record.bot_opponent()
        if bot is not None:
            person = next(p for p in record.players() if p != bot.player)
            _add(self.bot_games_of, person, sign)
            if record.origin is not None:
                _add(self.bot_games_from, record.origin, sign)

    # -- what subscribers see ------------------------------------------------------------------

    def _view(self, summary: Callable[[Record], GameSummary]) -> Shown:
        oldest = heapq.nsmallest(LOBBY_SHOWN, self.open.values(), key=_open_order)
        newest = heapq.nlargest(LOBBY_SHOWN, self.in_progress.values(), key=_age)
        shown: Shown = {record.id: (True, summary(record)) for record in oldest}
        shown.update((record.id, (False, summary(record))) for record in newest)
        return shown

    def snapshot(
        self, summary: Callable[[Record], GameSummary], bots: Callable[[], list[BotInfo]]
    ) -> Lobby:
        """The lobby as last shown to its subscribers (what the next change is made against);
        made now if nobody is shown anything yet."""
        if self._shown is None:
            self._shown, self._bots = self._view(summary), bots()
            self._totals = (len(self.open), len(self.in_progress))
        return Lobby(
            [line for is_open, line in self._shown.values() if is_open],
            [line for is_open, line in self._shown.values() if not is_open],
            self._bots,
            *self._totals,
        )

    def change(
        self, summary: Callable[[Record], GameSummary], bots: Callable[[], list[BotInfo]]
    ) -> LobbyChange | None:
        """What changed since the lists were last shown (None: nothing); they are shown so now.
        The totals alone changing is a change."""
        before = self._shown
        if before is None:
            return None  # nobody was shown anything: the next snapshot is made afresh
        after = self._view(summary)
        now_bots = bots()
        opened = [line for gid, (o, line) in after.items() if o and before.get(gid) != (o, line)]
        live = [line for gid, (o, line) in after.items() if not o and before.get(gid) != (o, line)]
        gone = [gid for gid in before if gid not in after]
        totals = (len(self.open), len(self.in_progress))
        before_totals = self._totals
        self._shown, self._totals = after, totals
        bots_changed = now_bots != self._bots
        self._bots = now_bots
        if not (opened or live or gone or bots_changed or totals != before_totals):
            return None
        return LobbyChange(
            opened, live, gone, now_bots if bots_changed else None, totals[0], totals[1]
        )

    def forget_shown(self) -> None:
        """Nobody subscribes any more: the next snapshot is made afresh."""
        self._shown = None

    def records(self) -> Iterable[Record]:
        """Every open game and game in progress."""
        yield from self.open.values()
        yield from self.in_progress.values()


def _add(counter: Counter[str], key: str, amount: int) -> None:
    """Add ``amount`` to ``counter[key]``, dropping the key at zero (counts stay bounded by
    what is open or in progress)."""
    value = counter[key] + amount
    if value:
        counter[key] = value
    else:
        del counter[key]


class LobbyFeed:
    """The lobby's subscribers here: a snapshot when one subscribes, then what changed (at
    most twice a second); a subscriber that does not read is skipped and gets a snapshot when
    it reads again.

    Args:
        board: The lobby's games here.
        presence: The spectators of each game, and the bot accounts connected.
        cache: The games watched here.
        store: Where the moves made here are published to the other processes.
        backlog: Which subscribers read what they are sent.
        games_ended: Counts the games ended, by reason.
    """

    def __init__(
        self,
        board: LobbyBoard,
        presence: Presence,
        cache: GameCache,
        store: Store,
        backlog: Backlog,
        games_ended: prometheus_client.Counter,
    ) -> None:
        self.board = board
        self.presence = presence
        self.cache = cache
        self.store = store
        self.backlog = backlog
        self.games_ended = games_ended
        self.made: dict[str, tuple[int, int]] = {}
        """The games in progress moved in here since ``share`` last told: (version, moves)."""

    def summary(self, record: Record) -> GameSummary:
        line = view.summary(record, self.presence.spectators(record))
        later = self.board.moves.get(record.id)
        return line if later is None else replace(line, moves=later[1])

    def moved(self, record: Record) -> None:
        """A move was made here in a game in progress (its line changed in its moves only):
        the other processes are told at ``share``'s next round."""
        self.made[record.id] = (record.version, len(record.moves))

    def heard(self, moved: list[tuple[str, int, int]]) -> None:
        """The moves another process made (see ``share``): (game id, version, moves)."""
        for game_id, version, moves in moved:
            self.board.moved(game_id, version, moves)

    async def share(self) -> None:
        """Every ``SHARE_SECONDS``, tell the other processes the moves made here in games in
        progress (their lobbies show them): one message for all the games, not one a move."""
        store = self.store
        while True:
            await asyncio.sleep(SHARE_SECONDS)
            if not self.made:
                continue
            made, self.made = self.made, {}
            try:
                await store.redis.publish(store.channels.lobby, pack_moves(made))
            except STORAGE_ERRORS as error:  # the next move tells them
                log.warning("the moves of %d games not shared (%s)", len(made), error)

    def bots_online(self) -> list[BotInfo]:
        """The bot accounts connected anywhere, with how many games each plays."""
        presence = self.presence
        bots = [
            replace(offer, playing=self.board.playing[player])
            for player, offer in presence.bot_offers.items()
            if presence.connected(player)
        ]
        return sorted(bots, key=lambda offer: offer.name)

    def update(self, record: Record) -> None:
        """Take the game's latest record (its end counted once, when it leaves the lobby)."""
        board = self.board
        if record.status == "over" and (record.id in board.open or record.id in board.in_progress):
            self.games_ended.labels(record.reason or "unknown").inc()
        if board.update(record) and record.id in self.cache.watchers:
            # A join changes the players, so the spectators; an end takes the game's count out
            # of the view shared with the other processes.
            self.presence.touch(record.id)

    def offer(self, session: Session) -> None:
        """Send the lobby as last shown to a subscriber, unless it is not reading."""
        if session.queued() >= self.backlog.queue_limit:
            self.backlog.skipped(session, lobby=True)
            return
        broadcast([session.ws], encode(self.board.snapshot(self.summary, self.bots_online)))

    async def broadcast(self, sessions: Collection[Session]) -> None:
        """Send the lobby's subscribers among ``sessions`` (the connections here, given when
        the loop starts: they are made above live) what changed (at most twice a second)."""
        while True:
            await self.board.dirty.wait()
            self.board.dirty.clear()
            listeners = [s for s in sessions if s.lobby]
            if not listeners:
                self.board.forget_shown()
            else:
                change = self.board.change(self.summary, self.bots_online)
                if change is not None:
                    current = [s for s in listeners if not s.lobby_stale]
                    ready = self.backlog.ready(current, None)
                    broadcast([s.ws for s in ready], encode(change))
            await asyncio.sleep(0.5)  # at most two lobby messages a second
