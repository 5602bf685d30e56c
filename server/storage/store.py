"""Every session in Redis, through ``redis.asyncio``: players, games, event logs, indexes.

Key layout (docs/operating.md repeats it). The keys of one game share the hash tag ``{ID}``, so a
game's atomic commit touches one Redis Cluster slot:

=============================  ==========  =====================================================
key                            type        holds
=============================  ==========  =====================================================
``hive:p:{PID}``               hash        a player: ``name``, ``created``; a bot account also
                                           ``bot`` (1) and ``token`` (its token's hash); a
                                           guest expires with its last session, not while
                                           it plays a game in progress
``hive:bots``                  hash        bot account names -> player ids
``hive:account-names``         set         every account's name, folded (NFKC, case folded,
                                           no separators): no guest takes one (filled from
                                           the database on start, and by each signup)
``hive:bot-offers``            hash        player id -> what a bot account plays (msgpack of
                                           its last ``bot_ready``)
``hive:p:{PID}:games``         set         the player's games in progress
``hive:token:SHA256``          string      the player id of a session token (hashed: a dump
                                           of Redis reveals no token); a person's expires
                                           after ``session_ttl`` without use
``hive:p:{PID}:tokens``        set         the hashes of a person's session tokens (to end
                                           them all), expiring with them
``hive:g:{ID}``                hash        a game: ``v`` its version, ``r`` its record (msgpack);
                                           ``a`` (1) once archived, then expiring
``hive:g:{ID}:log``            stream      its events, entry id ``VERSION-1``, capped (expiring
                                           with the game once archived)
``hive:g:{ID}:trace:PLY``      string      a bot move's search trace (gzipped JSON), expiring
``hive:g:{ID}:archiving``      string      a process archiving the finished game (10 s; deleted
                                           once archived): the others pass it by
``hive:analyses``              zset        the computer analyses asked for and not stored yet,
                                          by when they were asked (``storage.analyses``)
``hive:g:{ID}:analysing``      string      the process analysing the game (15 s, renewed)
``hive:g:{ID}:analysed``       hash        the positions of the game searched so far (ply ->
                                          the move's review, msgpack), until it is stored
``hive:open``                  zset        open games, by expiry time
``hive:live``                  zset        games in progress, by start time
``hive:over``                  zset        finished games not yet archived, by end time
``hive:deadlines``             zset        games that change by themselves (expiry, first-move
                                           abort, flag), by when
``hive:heartbeat``             string      the last time (ms) a server process was alive
``hive:online``                zset        players with a connection, by when their mark lapses
                                           (renewed every ten seconds by their server)
``hive:processes``             zset        the server processes, by their last shared view (ms)
``hive:proc:PROC:spectators``  hash        a process's spectators per game id (expiring)
``hive:rate:{WHO}:WHAT``       hash        the requests of a kind by a player (``WHO`` its
                                           id) or an address (``WHO`` its origin hash) in
                                           each tenth of the limit's window: at most 11
                                           counters however many came (for the limits;
                                           expiring a window after the last)
``hive:offline:{PID}``         string      when the player's last connection closed (ms);
                                           expiring with its sessions
``hive:secret``                string      the key of the origin hashes (made once)
``hive:challenges``            zset        challenges by name waiting for an answer, by when
                                           they lapse
``hive:ch:ID``                 string      a challenge by name (msgpack), kept a minute past
                                           its end
``hive:p:{PID}:challenges-*``  zset        the challenges waiting that the player made
                                           (``-out``) and was sent (``-in``), by lapse time
``hive:p:{PID}:puzzle-tries``  hash        the player's open tries of puzzles (at most 4,
                                           ``server.storage.tries``)
``hive:tournaments``           zset        tournaments upcoming and running, by start time
``hive:tournaments:over``      zset        tournaments ended in the last day, by end time
``hive:t:{ID}``                hash        a tournament: settings, status, winner
``hive:t:{ID}:*``              various     its players, games, waiting, lease: docs/operating.md
=============================  ==========  =====================================================

A finished game is archived in the database (``server.archive.games``), then marked (``a``) and
taken out of ``hive:over``, and its keys expire after ``Settings.archive_grace``.

A change to a game is committed by one Lua script: it checks the stored version, writes the
record, appends the event to the log and publishes both on the game's channel (that is, on
the channel ``hive:events:game:ID``; and on ``hive:events`` when its place in the lobby
changes; in a database N other than 0, ``hive:events:N:game:ID`` and ``hive:events:N``: see
``server.storage.channels``), all at once, so a change is applied exactly once however many requests
race, is acknowledged only once Redis holds it, and is heard by every process that follows
the game even when the one that made it dies or loses its reply. With replicas to wait for
(``Store.replicas``: through Sentinel), ``WAIT`` follows the script and the store publishes
the change once they hold it (``Store.commit``), so that no process passes on a change a
failover could take back. The indexes (``hive:open``,
the others) are updated right after, and again from the game as stored when another change
came in between (``Store.index_current``); ``Store.repair`` rebuilds
them from the games on start.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

import redis.exceptions
from redis.asyncio import Redis

from protocol import Event
from server.game import clock
from server.game.clock import now_ms
from server.game.record import Record
from server.storage.archiving import PUT_TRACE, Archiving
from server.storage.channels import Published, channels
from server.storage.codec import pack, pack_event, unpack, unpack_event
from server.storage.invites import Invites
from server.storage.keys import LIVE_KEY, game_key, log_key
from server.storage.liveness import COUNT, Liveness
from server.storage.players import Players, games_key
from server.storage.replicas import Replicas, UnreplicatedError

STORAGE_ERRORS: Final = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.OutOfMemoryError,
)
"""What a command raises when Redis does not answer, or refuses to write at its ``maxmemory``
(the caller answers ``unavailable``); a change no replica held in time, refused
(``UnreplicatedError``), is a ``TimeoutError``."""


ONLINE_KEY: Final = "hive:online"
BOTS_KEY: Final = "hive:bots"
BOT_OFFERS_KEY: Final = "hive:bot-offers"
PROCESSES_KEY: Final = "hive:processes"

SECRET_KEY: Final = "hive:secret"


def database(redis: Redis) -> int:
    """The database number ``redis`` selects (from its URL or arguments; 0 by default)."""
    return int(redis.connection_pool.connection_kwargs.get("db") or 0)


_COMMIT: Final = """
local v = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '0' then
  if v then return 0 end
elseif v ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[5], ARGV[2] .. '-1', 'e', ARGV[4])
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
if ARGV[8] ~= '' then redis.call('PUBLISH', ARGV[8], ARGV[7]) end
return 1
"""
"""KEYS: game hash, game log. ARGV: expected version ('0': the game must not exist), new
version, record, event, log length, the game's channel (or '': not published: the store
publishes it once replicas hold it), message, the events channel (or '': not published
there)."""

_TOUCH: Final = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return false end
redis.call('HSET', KEYS[1], 'v', v)
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local e = last[1] and last[1][2][2] or ''
return {v, redis.call('HGET', KEYS[1], 'r'), e}
"""
"""KEYS: game hash, game log. The game as stored (version, record, its last event): with a
write that changes nothing, so that a ``WAIT`` after it covers the game as read."""

_REWRITE: Final = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2])
return 1
"""
"""KEYS: game hash. ARGV: expected version, record. A change that makes no event (clocks
shifted after an outage)."""


class Store(Players, Liveness, Archiving, Replicas, Invites):
    """The server's storage. Every method is one or a few Redis round trips.

    Args:
        redis: A client (``decode_responses`` off).
        event_log: Events kept per game (older ones are trimmed from its stream).
        replicas: Replicas that must hold a change before ``commit`` returns (``WAIT``
            after the commit's script, on its connection); 0: the primary's answer is enough.
        wait_ms: How long a change waits for them.
        refuse_unreplicated: A change they did not all hold in time is refused
            (``UnreplicatedError``; else it is acknowledged on the primary alone).
        wait_timed_out: Called with ``refuse_unreplicated`` at each wait that timed out.
    """

    def __init__(
        self,
        redis: Redis,
        *,
        event_log: int = 500,
        replicas: int = 0,
        wait_ms: int = 1000,
        refuse_unreplicated: bool = True,
        wait_timed_out: Callable[[bool], None] = lambda refused: None,
    ) -> None:
        self.redis: Any = redis  # its replies are bytes (decode_responses off)
        self.event_log = event_log
        self.replicas = replicas
        self.wait_ms = wait_ms
        self.refuse_unreplicated = refuse_unreplicated
        self.wait_timed_out = wait_timed_out
        self.short_of_replicas = False
        """The last wait timed out (with ``acknowledge``, the next wait ``SHORT_WAIT_MS``)."""
        self.channels = channels(database(redis))
        """Where this store publishes, and its servers listen."""
        self.control_channel = self.channels.control
        self._commit = redis.register_script(_COMMIT)
        self._touch = redis.register_script(_TOUCH)
        self._rewrite = redis.register_script(_REWRITE)
        self._put_trace = redis.register_script(PUT_TRACE)
        self._count = redis.register_script(COUNT)
        self.committing: dict[str, tuple[Record, Event]] = {}
        """The changes being committed through this store (from the script's call to the
        end of the index update), by change id: the listener here, which often hears of one
        before its commit returns, takes the record and event from here instead of
        unpacking the published ones."""

    # -- games ---------------------------------------------------------------------------------

    async def get(self, game_id: str) -> Record | None:
        raw = await self.redis.hget(game_key(game_id), "r")
        return None if raw is None else unpack(raw)

    async def get_many(self, game_ids: Iterable[str]) -> list[Record]:
        ids = list(game_ids)
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hget(game_key(game_id), "r")
            raws = await pipe.execute()
        return [unpack(raw) for raw in raws if raw is not None]

    async def commit(
        self,
        record: Record,
        event: Event,
        *,
        expected: int,
        deadline: int | None,
        indexed: tuple[str, int | None] | None = None,
        change: str = "",
        lobby: bool = True,
        deadline_of: Callable[[Record], int | None] | None = None,
    ) -> bool:
        """Store ``record`` and its ``event`` if the stored game is still at version ``expected``
        (0: the game must be new), publish them with ``change`` (the committing process's id
        for the change) on the game's channel, and on the events channel too when ``lobby``
        (the change moves the game in the lobby), and update the indexes. False: someone else
        changed the game first, and nothing was written.

        ``indexed``: the status and the deadline the game was indexed with at ``expected``.
        While the status stays, only a changed deadline is written (a move of a game in
        progress touches no other index).

        ``deadline_of``: a game's deadline (``clock.deadline``). The indexes are written after
        the script, so another process's next change of the game may be committed and
        indexed first; this update, landing after it, would put back what that one replaced
        (an older deadline: a flag that falls a minute late). When the game has moved on by
        the time the indexes are written, it is indexed again as stored
        (``index_current``), with ``deadline_of``.

        With ``replicas``, the script does not publish: ``WAIT`` follows it on its connection,
        and the change is published (with the indexes' update, in one round trip) once the
        replicas hold it, so that no process passes on a change a failover could take back.
        When they do not in time: a change refused is indexed but not published, and
        ``UnreplicatedError`` raised (it may stay on the primary: ``settle`` publishes it when
        the game is next found changed); one acknowledged anyway is published.

        Raises:
            UnreplicatedError: No replica held the change in time, and it is refused."""
        if change:
            self.committing[change] = (record, event)
        try:
            return await self._commit_indexed(
                record, event, expected, deadline, indexed, change, lobby, deadline_of
            )
        finally:
            self.committing.pop(change, None)

    async def _commit_indexed(
        self,
        record: Record,
        event: Event,
        expected: int,
        deadline: int | None,
        indexed: tuple[str, int | None] | None,
        change: str,
        lobby: bool,
        deadline_of: Callable[[Record], int | None] | None,
    ) -> bool:
        """``commit``'s script, then its index update."""
        body = pack(record)
        event_body = pack_event(event)
        message = Published(record.id, record.version, body, event_body, change, now_ms()).pack()
        game_channel = self.channels.game(record.id)
        events_channel = self.channels.events if lobby else ""
        keys = [game_key(record.id), log_key(record.id)]
        args: list[Any] = [expected, record.version, body, event_body, self.event_log]
        published = True
        try:
            if not self.replicas:  # published by the script itself, at once
                done = await self._commit(
                    keys=keys, args=[*args, game_channel, message, events_channel]
                )
            else:  # published once replicas hold it
                done, acked = await self._and_wait(self._commit, keys, [*args, "", message, ""])
                if done and acked < self.replicas:
                    self.wait_timed_out(self.refuse_unreplicated)
                    published = not self.refuse_unreplicated
        except redis.exceptions.ResponseError as error:
            if "OOM" in str(error):  # Redis at its maxmemory, as a script sees it: nothing written
                raise redis.exceptions.OutOfMemoryError(str(error)) from error
            raise
        if not done:
            return False
        reindex = indexed is None or indexed[0] != record.status
        redeadline = not reindex and indexed is not None and indexed[1] != deadline
        publish = bool(self.replicas and published)
        if publish and not (reindex or redeadline or events_channel):
            await self.redis.publish(game_channel, message)  # (a move: one command, no pipeline)
        elif publish or reindex or redeadline:
            async with self.redis.pipeline(transaction=False) as pipe:
                if publish:
                    pipe.publish(game_channel, message)
                    if events_channel:
                        pipe.publish(events_channel, message)
                if reindex:
                    _index(pipe, record, deadline)
                elif redeadline:
                    _set_deadline(pipe, record.id, deadline)
                if reindex or redeadline:
                    pipe.hget(keys[0], "v")  # the version indexed over, if it moved on
                answers = await pipe.execute()
            moved_on = (reindex or redeadline) and int(answers[-1] or 0) != record.version
            if moved_on and deadline_of is not None:
                await self.index_current(record.id, deadline_of)
        if not published:
            raise UnreplicatedError(
                f"game {record.id} version {record.version}: no replica held it within "
                f"{self.wait_ms} ms"
            )
        return True

    async def settle(self, game_id: str) -> Record | None:
        """The game as the primary holds it (None: no such game), once replicas hold it too
        (``Replicas._settle``); without replicas, the game as stored (``get``).

        Raises:
            UnreplicatedError: Replicas did not hold it in time (and such changes are refused).
        """
        return await (self._settle(game_id) if self.replicas else self.get(game_id))

    async def index_current(
        self, game_id: str, deadline_of: Callable[[Record], int | None]
    ) -> None:
        """Index the game as stored (its deadline: ``deadline_of``), read again until no
        change came between the read and the write (a change that came after is indexed
        after it, by its own process). An archived game, or one gone, is left out."""
        key = game_key(game_id)
        while True:
            raw, archived = await self.redis.hmget(key, ["r", "a"])
            if raw is None or archived is not None:
                return
            record = unpack(raw)
            async with self.redis.pipeline(transaction=False) as pipe:
                _index(pipe, record, deadline_of(record))
                pipe.hget(key, "v")
                *_, version = await pipe.execute()
            if version is None or int(version) == record.version:
                return

    async def index(self, record: Record, deadline: int | None) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            _index(pipe, record, deadline)
            await pipe.execute()

    async def rewrite(self, record: Record) -> bool:
        """Replace the stored record without an event (same version), if still current."""
        done = await self._rewrite(keys=[game_key(record.id)], args=[record.version, pack(record)])
        return bool(done)

    async def events_after(self, game_id: str, version: int) -> list[Event] | None:
        """The events after ``version``, in order; None when the log no longer reaches back
        that far (a snapshot is needed)."""
        entries = await self.redis.xrange(log_key(game_id), min=f"{version + 1}-1")
        events = [unpack_event(fields[b"e"]) for _, fields in entries]
        if events and events[0].version != version + 1:
            return None
        return events

    async def open_ids(self) -> list[str]:
        return [m.decode() for m in await self.redis.zrange("hive:open", 0, -1)]

    async def live_ids(self) -> list[str]:
        return [m.decode() for m in await self.redis.zrange(LIVE_KEY, 0, -1)]

    async def due(self, now: int, limit: int = 100) -> list[str]:
        """Games whose deadline has passed."""
        found = await self.redis.zrangebyscore("hive:deadlines", 0, now, start=0, num=limit)
        return [m.decode() for m in found]

    async def drop_deadline(self, game_id: str) -> None:
        await self.redis.zrem("hive:deadlines", game_id)

    async def repair(self, first_move_ms: int) -> list[Record]:
        """Rebuild the indexes from the stored games (after a crash between a commit and its
        index update); returns the games open or in progress. An archived game stays out
        of them (its keys are expiring)."""
        active = []
        async for key in self.redis.scan_iter(match="hive:g:{*}", count=500):
            if not key.endswith(b"}"):
                continue  # a log or a trace
            raw, archived = await self.redis.hmget(key, ["r", "a"])
            if raw is None or archived is not None:
                continue
            record = unpack(raw)
            await self.index(record, clock.deadline(record, first_move_ms))
            if record.status != "over":
                active.append(record)
        return active


def _index(pipe: Any, record: Record, deadline: int | None) -> None:
    """Queue on ``pipe`` the commands that index the game as ``record`` has it."""
    game_id = record.id
    if record.status == "open":
        pipe.zadd("hive:open", {game_id: record.expires or 0})
    else:
        pipe.zrem("hive:open", game_id)
    if record.status == "live":
        pipe.zadd(LIVE_KEY, {game_id: record.created}, nx=True)
        for player in record.players():
            pipe.sadd(games_key(player), game_id)
    else:
        pipe.zrem(LIVE_KEY, game_id)
        for player in record.players():
            pipe.srem(games_key(player), game_id)
    if record.status == "over":
        pipe.zadd("hive:over", {game_id: record.ended or 0})
    _set_deadline(pipe, game_id, deadline)


def _set_deadline(redis: Any, game_id: str, deadline: int | None) -> Any:
    """The command that puts the game's deadline in ``hive:deadlines`` (None: takes it out),
    queued on a pipeline or sent by a client (then awaited by the caller)."""
    if deadline is None:
        return redis.zrem("hive:deadlines", game_id)
    return redis.zadd("hive:deadlines", {game_id: deadline})
