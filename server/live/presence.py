"""Who is connected and who watches, here and on the other server processes on this Redis.

Each process shares, every ``VIEW_SECONDS``, how many spectators each game not yet over has
here (only the counts that changed; a game's count goes when it ends, so a finished game's
spectators are each process's own), and learns the others' counts and which of the players it
cares about (those of the games watched here, and the bot accounts) are connected elsewhere.
Players connected here are marked online in Redis, a tenth of them each second.
"""

from __future__ import annotations

import contextlib
import secrets
from collections import Counter
from collections.abc import Callable
from typing import Final

import redis.exceptions
from websockets.asyncio.server import broadcast

from protocol import BotInfo, Seat, encode
from protocol import Presence as PresenceMessage
from server.game import view
from server.game.clock import now_ms
from server.game.record import Record
from server.live.backlog import Backlog
from server.live.cache import GameCache
from server.live.session import Session
from server.storage.store import Store

ONLINE_TTL: Final = 30
VIEW_SECONDS: Final = 2
"""How often a process shares its spectator counts and learns the others' (and who is online)."""


class Presence:
    """Connections by player here, and the view shared with the other processes.

    Args:
        store: Where the view is shared, and the online marks kept.
        cache: The games here and their watchers.
        touched: The games whose watchers or players changed since ``share_view`` last looked:
            the cache adds to it (its ``touched`` callback is ``touched.add``: the cache is
            made first, so the two share the set rather than each needing the other).
        backlog: Which watchers read what they are sent.
        on_bots_changed: Called when a bot account came or went, or said what it plays (the
            lobby lists the bots).
        claim_after: The ms a player must be gone before their opponent may claim the win
            (``Settings.disconnect_claim``).
    """

    def __init__(
        self,
        store: Store,
        cache: GameCache,
        touched: set[str],
        backlog: Backlog,
        *,
        on_bots_changed: Callable[[], None],
        claim_after: int,
    ) -> None:
        self.store = store
        self.cache = cache
        self.backlog = backlog
        self.on_bots_changed = on_bots_changed
        self.claim_after = claim_after
        self.process = secrets.token_hex(4)
        self.by_player: dict[str, set[Session]] = {}
        self.online_elsewhere: set[str] = set()
        self.spectators_elsewhere: dict[str, int] = {}
        # The view is kept up to date game by game: ``touched`` holds the games whose watchers
        # or players changed since share_view last looked (a loop over every watched game
        # every two seconds was a pause for every game's moves).
        self.touched = touched
        self.spectating: dict[str, int] = {}  # spectators here by game id not over (none: out)
        self.players_of: dict[str, tuple[str, ...]] = {}  # the players of the games watched here
        self.watched_players: Counter[str] = Counter()  # ... counted in how many games
        self.shared: dict[str, int] = {}  # the spectator counts last shared, by game id
        self.share_all = True  # Redis may lack some of them: compare them all next time
        self.bot_offers: dict[str, BotInfo] = {}  # what each bot account plays, by player id
        # What the watchers here were last told of who is at each game (spectators, white
        # connected, black connected), and the players whose connections here came or went
        # since share_view last looked.
        self.told: dict[str, tuple[int, bool, bool]] = {}
        self.came_or_went: set[str] = set()

    # -- the connections here: written by the edge and sign-in through these alone -----------

    def sessions_of(self, player: str) -> list[Session]:
        """The connections of ``player`` here."""
        return list(self.by_player.get(player, ()))

    async def arriving(self, player: str) -> None:
        """``player`` is signing in here: marked online in Redis if none of their connections
        is here yet (the others hear of it at ``share_view``).

        Raises:
            STORAGE_ERRORS: Redis did not answer.
        """
        if player not in self.by_player:
            await self.store.set_online(player, now_ms(), ONLINE_TTL)
            self.came_or_went.add(player)

    def arrived(self, session: Session) -> None:
        """``session`` is signed in (``arriving`` went before)."""
        assert session.player is not None
        self.by_player.setdefault(session.player, set()).add(session)

    async def left(self, session: Session, ttl: int) -> None:
        """``session`` closed: when it was its player's last here, the player is marked offline
        in Redis (their gone-since mark lasting ``ttl`` seconds; nothing if Redis does not
        answer), and a bot account leaves the lobby's list."""
        player = session.player
        mine = None if player is None else self.by_player.get(player)
        if player is None or mine is None:
            return
        mine.discard(session)
        if mine:
            return
        del self.by_player[player]
        self.online_elsewhere.discard(player)
        if player in self.bot_offers:
            self.on_bots_changed()  # no longer listed
        with contextlib.suppress(redis.exceptions.RedisError):
            await self.store.set_offline(player, now_ms(), ttl)
        self.came_or_went.add(player)  # (once Redis knows since when)

    def offered(self, offer: BotInfo) -> None:
        """A bot account connected here said what it plays: the lobby lists it."""
        self.bot_offers[offer.player] = offer
        self.on_bots_changed()

    # -- the games' views ------------------------------------------------------------------------

    def touch(self, game_id: str) -> None:
        """The game's watchers or players changed: its counts are looked at again."""
        self.touched.add(game_id)

    def connected(self, player: str) -> bool:
        return player in self.by_player or player in self.online_elsewhere

    def view(self, record: Record) -> tuple[int, bool, bool]:
        """Who is at the game: its spectators, whether White and Black are connected."""
        return self.spectators(record), self.seated(record.white), self.seated(record.black)

    def seated(self, seat: Seat | None) -> bool:
        return view.seated(seat, self.connected)

    def spectators(self, record: Record) -> int:
        return self.spectators_here(record) + self.spectators_elsewhere.get(record.id, 0)

    def spectators_here(self, record: Record) -> int:
        players = set(record.players())
        return sum(1 for s in self.cache.watchers.get(record.id, ()) if s.player not in players)

    def _look_again(self) -> set[str]:
        """Count again the spectators here, and note the players, of the games touched since
        the last look; returns those games."""
        looked = set(self.touched)
        self.touched.clear()
        cache = self.cache
        for game_id in looked:
            for player in self.players_of.pop(game_id, ()):
                self.watched_players[player] -= 1
                if not self.watched_players[player]:
                    del self.watched_players[player]
            self.spectating.pop(game_id, None)
            if game_id not in cache.watchers:
                self.told.pop(game_id, None)
                continue
            cached = cache.get(game_id)
            if cached is None:  # not loaded yet: look next time
                self.touched.add(game_id)
                continue
            players = self.players_of[game_id] = tuple(cached.record.players())
            self.watched_players.update(players)
            if cached.record.status != "over" and (count := self.spectators_here(cached.record)):
                self.spectating[game_id] = count  # (a finished game's are not shared)
        return looked

    async def share_view(self) -> None:
        """Tell the other server processes how many spectators each game has here, and learn
        theirs and which players of the games watched here (and which bot accounts) are
        connected to them (every VIEW_SECONDS, from the heartbeat)."""
        store = self.store
        looked = self._look_again()
        shared = self.shared
        if self.share_all:
            looked = looked | self.spectating.keys() | shared.keys()
        changes = {
            game_id: count
            for game_id in looked
            if (count := self.spectating.get(game_id, 0)) != shared.get(game_id, 0)
        }
        try:
            offers = await store.bot_offers()
            asked = (self.watched_players.keys() | offers.keys()) - self.by_player.keys()
            view = await store.share_view(
                self.process, changes, asked, now_ms(), int(VIEW_SECONDS * 3)
            )
        except BaseException:
            self.touched |= looked  # their changes were not shared: look again next time
            raise
        # ``shared`` is what Redis holds: what it held, and the changes; when the key was not
        # there (nothing shared yet, the counts all gone, or they lapsed: Redis was away, or
        # this process stalled), the changes alone, and the counts that did not change are
        # compared again next time.
        if not view.renewed:
            shared = self.shared = {}
        for game_id, count in changes.items():
            if count:
                shared[game_id] = count
            else:
                shared.pop(game_id, None)
        self.share_all = not view.renewed
        counted = {
            game_id
            for game_id in view.spectators.keys() | self.spectators_elsewhere.keys()
            if view.spectators.get(game_id) != self.spectators_elsewhere.get(game_id)
        }
        self.spectators_elsewhere = view.spectators
        online_elsewhere = view.online - self.by_player.keys()
        came_or_went = self.came_or_went | (online_elsewhere ^ self.online_elsewhere)
        self.came_or_went = set()
        if offers.keys() & came_or_went or offers != self.bot_offers:
            self.on_bots_changed()  # a bot came or went on another process
        self.online_elsewhere = online_elsewhere
        self.bot_offers = offers
        if came_or_went & self.watched_players.keys():
            looked |= {g for g, players in self.players_of.items() if came_or_went & set(players)}
        await self._tell(looked | counted)

    async def _tell(self, games: set[str]) -> None:
        """Push a ``Presence`` to the watchers here of each of ``games`` whose spectators or
        players' connections changed since they were last told (or sent a state)."""
        cache = self.cache
        changed = []
        for game_id in games:
            cached = cache.get(game_id)
            if cached is None or game_id not in cache.watchers:
                continue
            record = cached.record
            now = self.view(record)
            if self.told.get(game_id) != now:
                self.told[game_id] = now
                changed.append((record, now))
        if not changed:
            return
        away = sorted(
            {
                seat.player
                for record, (_, white, black) in changed
                for seat, here in ((record.white, white), (record.black, black))
                if seat is not None and not here
            }
        )
        gone = dict(zip(away, await self.store.gone_since_many(away, now_ms()), strict=True))
        claim_after = self.claim_after
        for record, (spectators, _, _) in changed:
            white, black = record.white, record.black
            frame = PresenceMessage(
                record.id,
                spectators,
                None if white is None else gone.get(white.player),
                None if black is None else gone.get(black.player),
                claim_after,
            )
            watchers = list(cache.watchers.get(record.id, ()))
            ready = self.backlog.ready(watchers, record.id)
            broadcast([s.ws for s in ready], encode(frame))

    async def renew_online(self, beat: int) -> None:
        """Renew the online marks of a tenth of this process's players, which tenth by
        ``beat``; the lapsed marks are forgotten every tenth beat. (One command for all the
        players every ten seconds was a pause for every game's moves.)"""
        part = beat % 10
        await self.store.keep_online(
            [player for player in self.by_player if hash(player) % 10 == part],
            now_ms(),
            ONLINE_TTL,
            forget_lapsed=part == 0,
        )


def tell(presence: Presence, players: list[str], frame: bytes) -> None:
    """Send ``frame`` (a notice heard from any process) to every connection of ``players``
    here."""
    sessions = [session.ws for player in players for session in presence.sessions_of(player)]
    if sessions:
        broadcast(sessions, frame)
