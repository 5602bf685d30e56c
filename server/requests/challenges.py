"""Challenges by name: ``challenge`` a person's account connected now, ``answer_challenge``
(accept, decline, or withdraw one's own), and the sweep that ends those that lapsed, and
withdraws those of a challenger gone from every process for ``GONE_SECONDS``.

A challenge is kept in Redis (``server.storage.invites``) and told to both its players, on
whichever processes they are connected, through the notices channel: ``challenge`` when it
is made, ``challenge_end`` when it ends. It ends once: whoever takes it out of Redis first (an
answer, or this process's ``sweep`` once it lapsed after ``seconds``). Accepted, it becomes a
game in progress at once, the challenger seated first (their colour as chosen), the accepter
joined, and ``challenge_end`` names it to both.

Bounded: a player makes at most ``CHALLENGES_PER_MINUTE`` a minute (an address
``PER_ADDRESS`` a minute, over all its players), has at most ``CHALLENGES_OUT`` waiting
and is sent at most ``CHALLENGES_IN``; the challenged decides whose they take
(``allow_challenges``: everyone, the players they follow, nobody) and a player they blocked
never reaches them. Bot accounts are challenged with ``create`` (``opponent`` ``bots``), as
before; they challenge nobody by name.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from typing import TYPE_CHECKING, Final

from protocol import (
    CHALLENGE_SECONDS,
    CHALLENGES_IN,
    CHALLENGES_OUT,
    CHALLENGES_PER_MINUTE,
    AnswerChallenge,
    Challenge,
    ChallengeEnd,
    ChallengeOffer,
    ChallengeOutcome,
    CreateGame,
    ErrorCode,
    ProtocolError,
    Seat,
    encode,
)
from server.archive import queries, social
from server.archive.games import DATABASE_ERRORS
from server.game import match, rating
from server.game.clock import now_ms
from server.game.record import new_game_id
from server.live.session import Session
from server.requests.creation import may_rate
from server.storage.limits import per_origin, per_player
from server.storage.store import STORAGE_ERRORS

if TYPE_CHECKING:
    from server.archive.db.database import Database
    from server.live.cache import GameCache
    from server.live.changes import Changes
    from server.requests.seating import Seating
    from server.storage.store import Store

log = logging.getLogger(__name__)

PER_ADDRESS: Final = 30
"""Challenges by name from one address in a minute, over all its players."""
SWEEP_SECONDS: Final = 0.5
"""How often a process looks for challenges that lapsed."""
MAX_NAME: Final = 24
GONE_SECONDS: Final = 15.0
"""A challenger away this long (no connection on any process) has their challenges withdrawn:
longer than a page's reload or a reconnect's backoff, and than a player connected to another
process takes to be marked online again (``Presence.renew_online``: every 10 s)."""


class Challenges:
    """The ``challenge`` and ``answer_challenge`` handlers, and the sweep.

    Args:
        store: Where challenges wait, the limits are counted, and the notices go out.
        database: The accounts, follows, blocks and settings of those challenged.
        seating: The seats of a game's players, with their ratings.
        cache: The accepter watches the game made.
        changes: Where the game is made.
        open_game_ttl: Of ``Settings``: the game made is never open, but a record has one.
    """

    def __init__(
        self,
        store: Store,
        database: Database,
        seating: Seating,
        cache: GameCache,
        changes: Changes,
        *,
        open_game_ttl: float,
    ) -> None:
        self.store = store
        self.database = database
        self.seating = seating
        self.cache = cache
        self.changes = changes
        self.ttl_ms = int(open_game_ttl * 1000)
        self.seconds: float = CHALLENGE_SECONDS
        """How long a challenge waits for its answer (a test may shorten it)."""
        self.gone_ms = int(GONE_SECONDS * 1000)
        """How long a challenger is away before their challenges end (a test may shorten it)."""
        self.departed: dict[str, int] = {}
        """The players whose connection closed here, and when: looked at once ``gone_ms``
        passed (one entry a player, and only for that long)."""

    async def challenge(self, session: Session, message: Challenge) -> None:
        player = session.player
        assert player is not None
        if session.bot:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a bot account challenges with create")
        store = self.store
        await per_player(store, player, "challenge", CHALLENGES_PER_MINUTE, 60.0)
        await per_origin(store, session.origin, "challenge", PER_ADDRESS, 60.0, "challenges")
        game_type = match.canonical_type(message.game_type)
        may_rate(session, CreateGame(time=message.time, rated=message.rated))
        target = await self._target(player, message.name)
        if await store.gone_since(target.player, now_ms()) is not None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{target.name} is not online")
        now = now_ms()
        waiting = await store.waiting(player, target.player, now)
        if waiting.made >= CHALLENGES_OUT:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"you have {waiting.made} challenges waiting for an answer (the most "
                "allowed): wait for one, or withdraw one",
            )
        if waiting.sent >= CHALLENGES_IN:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"{target.name} has {waiting.sent} challenges to answer already: try later",
            )
        offer = ChallengeOffer(
            id=secrets.token_hex(8),
            challenger=session.name,
            challenger_player=player,
            challenged=target.name,
            challenged_player=target.player,
            game_type=game_type,
            time=message.time,
            color=message.color,
            rated=message.rated,
            expires=now + int(self.seconds * 1000),
        )
        await store.add_challenge(offer, session.account)
        await store.notify([player, target.player], encode(offer))

    async def _target(self, player: str, name: str) -> queries.Account:
        """The person's account ``name`` challenged, if it takes ``player``'s challenges.

        Raises:
            ProtocolError: UNKNOWN_PLAYER, NOT_ALLOWED, UNAVAILABLE.
        """
        unknown = ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no account is named {name!r:.40}")
        if len(name) > MAX_NAME:
            raise unknown
        try:
            async with self.database.engine.connect() as connection:
                target = await queries.account(connection, name)
                if target is None:
                    raise unknown
                if target.bot:
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED,
                        f"{target.name} is a bot account: challenge it from the lobby's bots",
                    )
                if target.player == player:
                    raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot challenge yourself")
                allow = await social.allowed(connection, target.player)
                refused = allow == "nobody" or (
                    allow == "followed"
                    and not await social.holds(connection, "follow", target.player, player)
                )
                if refused or await social.holds(connection, "block", target.player, player):
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED,
                        f"{target.name} does not take challenges from you"
                        + (" (only from players they follow)" if allow == "followed" else ""),
                    )
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        return target

    async def answer(self, session: Session, message: AnswerChallenge) -> None:
        player = session.player
        assert player is not None
        store = self.store
        found = await store.challenge(message.challenge)
        gone = ProtocolError(
            ErrorCode.NOT_OPEN, "this challenge is no longer open (answered, withdrawn or lapsed)"
        )
        if found is None:
            raise gone
        offer, account = found
        mine = offer.challenger_player if message.action == "withdraw" else offer.challenged_player
        if player != mine:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "only its challenger withdraws a challenge"
                if message.action == "withdraw"
                else "only the player challenged answers a challenge",
            )
        if message.action == "accept":
            await self._accept(session, offer, account, gone)
            return
        if not await store.end_challenge(offer):
            raise gone
        await self._end(offer, "declined" if message.action == "decline" else "withdrawn")

    async def _accept(
        self, session: Session, offer: ChallengeOffer, account: bool, gone: ProtocolError
    ) -> None:
        """Make the game of ``offer``, the challenger seated and ``session``'s player joined
        (the seats read first: a challenge the database cannot seat stays open)."""
        pool = rating.speed(offer.time)
        seat = await self.seating.seat(session, pool, needed=offer.rated)
        challenger = Seat(
            offer.challenger_player,
            offer.challenger,
            account="account" if account else "guest",
        )
        if pool is not None and account:
            challenger = await self.seating.seat_again(challenger, pool)
        if not await self.store.end_challenge(offer):
            raise gone
        now = now_ms()
        record = match.create(
            new_game_id(),
            challenger,
            game_type=offer.game_type,
            time=offer.time,
            color=offer.color,
            now=now,
            ttl_ms=self.ttl_ms,
            seed=random.getrandbits(31),
            rated=offer.rated,
        )
        record, event = match.join(record, seat, now)
        self.cache.watch(session, record.id, 0)  # before the commit: its update comes here
        try:
            await self.changes.create(record, event)
        except BaseException:
            self.cache.unwatch(session, record.id)
            await self._end(offer, "withdrawn")  # (taken: it cannot be answered again)
            raise
        await self._end(offer, "accepted", record.id)

    async def _end(
        self, offer: ChallengeOffer, outcome: ChallengeOutcome, game: str | None = None
    ) -> None:
        """Tell both players of ``offer`` it ended so."""
        players = [offer.challenger_player, offer.challenged_player]
        await self.store.notify(players, encode(ChallengeEnd(offer.id, outcome, game)))

    def closed(self, session: Session) -> None:
        """A connection closed here: if its player stays away from every process, their
        challenges end (``sweep``)."""
        if session.player is not None and not session.bot:
            self.departed[session.player] = now_ms()

    async def sweep(self) -> None:
        """Forever: end the challenges that lapsed, and withdraw those of the players gone
        (every process looks; the one that takes a challenge out of Redis tells its
        players)."""
        store = self.store
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                for challenge in await store.lapsed_challenges(now_ms()):
                    found = await store.challenge(challenge)
                    if found is None:
                        await store.forget_challenge(challenge)  # (its body lapsed)
                    elif await store.end_challenge(found[0]):
                        await self._end(found[0], "expired")
                await self._withdraw_departed()
            except STORAGE_ERRORS as error:
                log.warning("challenges not swept (%s)", error)

    async def _withdraw_departed(self) -> None:
        """Withdraw the challenges of the players who left here ``gone_ms`` ago and have not
        come back on any process since."""
        now = now_ms()
        due = [player for player, at in self.departed.items() if now - at >= self.gone_ms]
        if not due:
            return
        for player in due:
            del self.departed[player]
        gone = await self.store.gone_since_many(due, now)
        for player, since in zip(due, gone, strict=True):
            if since is None or now - since < self.gone_ms:
                continue  # back, or gone again since (and looked at then)
            for offer in await self.store.waiting_for(player, now):
                if offer.challenger_player == player and await self.store.end_challenge(offer):
                    await self._end(offer, "withdrawn")
