"""The Redis store on a real Redis: atomic versioned commits, event logs, indexes, tokens."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from protocol import Event, Seat, TimeControl
from server.embedded import RedisProcess
from server.game import clock, match
from server.game.clock import now_ms
from server.game.record import Record
from server.live.locks import Locks
from server.storage.channels import CONTROL_CHANNEL
from server.storage.codec import pack_event, unpack_event
from server.storage.keys import game_key
from server.storage.liveness import WINDOW_PARTS, rate_key, window_part
from server.storage.players import token_hash
from server.storage.replicas import UnreplicatedError
from server.storage.store import Store
from tests.support import until


@pytest.fixture
async def store(redis_server: RedisProcess) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_server.url)
    yield Store(client, event_log=3)
    await client.aclose()


def new_record(game_id: str = "abcd1234", time: TimeControl | None = None) -> Record:
    return match.create(
        game_id,
        Seat("p1", "ada"),
        game_type="Base",
        time=time or TimeControl(),
        color="white",
        now=1000,
        ttl_ms=60_000,
        seed=7,
    )


async def test_a_commit_applies_only_at_the_expected_version(store: Store) -> None:
    record = new_record()
    created = Event(1, "created", 1000)
    assert await store.commit(record, created, expected=0, deadline=None)
    assert not await store.commit(record, created, expected=0, deadline=None)  # exists
    joined, event = match.join(record, Seat("p2", "bob"), 2000)
    other = replace(joined, white=Seat("p3", "cy"))
    first = store.commit(joined, event, expected=1, deadline=None)
    second = store.commit(other, event, expected=1, deadline=None)
    assert [await first, await second] == [True, False]
    stored = await store.get(record.id)
    assert stored == joined
    assert await store.events_after(record.id, 0) == [created, event]


async def test_the_event_log_is_capped_and_says_when_it_is_too_short(store: Store) -> None:
    record = new_record()
    await store.commit(record, Event(1, "created", 0), expected=0, deadline=None)
    for version in range(2, 8):
        updated = replace(record, version=version)
        assert await store.commit(
            updated,
            Event(version, "chat", 0, text=str(version)),
            expected=version - 1,
            deadline=None,
        )
    assert [e.version for e in await store.events_after(record.id, 4) or []] == [5, 6, 7]
    assert await store.events_after(record.id, 3) is None  # event 4 was trimmed (3 kept)
    assert await store.events_after(record.id, 7) == []


async def test_events_stored_before_they_named_a_player_still_load(store: Store) -> None:
    old = msgpack.packb([5, "chat", 0, "ada", "hi"])  # how every event was stored before
    assert unpack_event(old) == Event(5, "chat", 0, "ada", "hi", player=None)
    said = Event(6, "chat", 0, "ada", "hi", player="p1")
    assert unpack_event(pack_event(said)) == said
    assert pack_event(Event(7, "move", 0, "white", "wS1")) == msgpack.packb(
        [7, "move", 0, "white", "wS1"]
    )


async def test_indexes_follow_the_game_and_repair_rebuilds_them(store: Store) -> None:
    record = new_record(time=TimeControl("clock", 600, 0))  # only clock games abort unmade moves
    await store.commit(record, Event(1, "created", 0), expected=0, deadline=record.expires)
    assert await store.open_ids() == [record.id]
    assert await store.due(record.expires or 0) == [record.id]
    live, event = match.join(record, Seat("p2", "bob"), 2000)
    await store.commit(live, event, expected=1, deadline=None)
    assert (await store.open_ids(), await store.live_ids()) == ([], [record.id])
    assert await store.games_of("p2") == [record.id]
    await store.redis.delete("hive:live", "hive:open")  # a crash between commit and index
    active = await store.repair(first_move_ms=60_000)
    assert [r.id for r in active] == [record.id]
    assert await store.live_ids() == [record.id]
    assert await store.due(2000 + 60_000) == [record.id]  # the first-move deadline


async def test_a_late_index_update_leaves_the_deadline_of_the_next_change(
    redis_server: RedisProcess, store: Store
) -> None:
    """Two processes: White's first move (one) is committed and heard, Black's answer (two)
    is committed and indexed (White's flag falls in a second), and only then does one's
    index update land: the deadline stays Black's move's, not White's first-move minute."""
    record = new_record(time=TimeControl("clock", 1, 0))
    await store.commit(record, Event(1, "created", 0), expected=0, deadline=record.expires)
    live, event = match.join(record, Seat("p2", "bob"), 2000)
    await store.commit(live, event, expected=1, deadline=62_000, indexed=("open", record.expires))
    client = aioredis.Redis.from_url(redis_server.url)
    one = Store(client)
    held = asyncio.Event()
    pipeline = client.pipeline

    def held_pipeline(transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        pipe = pipeline(transaction, shard_hint)
        execute = pipe.execute

        async def late(raise_on_error: bool = True) -> list[Any]:  # once held is set
            await held.wait()
            return await execute(raise_on_error)

        pipe.execute = late  # type: ignore[method-assign]
        return pipe

    client.pipeline = held_pipeline  # type: ignore[method-assign]

    def deadline_of(game: Record) -> int | None:
        return clock.deadline(game, 60_000)

    try:
        first = replace(live, version=3, moves=["wS1"], turn_started=3000)
        committing = asyncio.create_task(
            one.commit(
                first,
                Event(3, "move", 3000, by="white", text="wS1"),
                expected=2,
                deadline=deadline_of(first),
                indexed=("live", 62_000),
                deadline_of=deadline_of,
            )
        )
        await until(lambda: _version_is(store, record.id, 3), "one's script committed wS1")
        answer = replace(first, version=4, moves=["wS1", "bS1 wS1-"], turn_started=4000)
        assert deadline_of(answer) == 5000  # White's clock: a second
        assert await store.commit(
            answer,
            Event(4, "move", 4000, by="black", text="bS1 wS1-"),
            expected=3,
            deadline=5000,
            indexed=("live", deadline_of(first)),
            deadline_of=deadline_of,
        )
        held.set()
        assert await committing
    finally:
        await client.aclose()
    assert await store.due(5000) == [record.id]


async def _version_is(store: Store, game_id: str, version: int) -> bool:
    stored = await store.get(game_id)
    return stored is not None and stored.version == version


async def test_a_move_writes_only_the_deadline_of_a_game_in_progress(store: Store) -> None:
    """While the status stays, a commit told how the game was indexed writes only a changed
    deadline; a change of status indexes everything again."""
    record = new_record(time=TimeControl("clock", 600, 0))
    await store.commit(record, Event(1, "created", 0), expected=0, deadline=record.expires)
    live, event = match.join(record, Seat("p2", "bob"), 2000)
    await store.commit(live, event, expected=1, deadline=62_000, indexed=("open", record.expires))
    assert (await store.live_ids(), await store.due(62_000)) == ([record.id], [record.id])
    await store.redis.delete("hive:live")  # shows what the next commits write
    moved = replace(live, version=3, moves=["wS1"])
    move = Event(3, "move", 3000, by="white", text="wS1")
    assert await store.commit(moved, move, expected=2, deadline=90_000, indexed=("live", 62_000))
    assert await store.due(62_000) == []
    assert await store.due(90_000) == [record.id]
    assert await store.live_ids() == []  # untouched: the status did not change
    said = replace(moved, version=4)
    chat = Event(4, "chat", 3500, by="bob", text="hi")
    assert await store.commit(said, chat, expected=3, deadline=90_000, indexed=("live", 90_000))
    assert await store.due(90_000) == [record.id]
    over, end = match.resign(said, "p1", 4000)
    assert await store.commit(over, end, expected=4, deadline=None, indexed=("live", 90_000))
    assert await store.due(10**12) == []
    assert await store.games_of("p1") == []
    assert [m.decode() for m in await store.redis.zrange("hive:over", 0, -1)] == [record.id]


async def test_session_tokens_are_kept_hashed(store: Store) -> None:
    player, token = await store.new_player("ada", 0, 60)
    assert await store.player_of(token) == (player, "ada", False)
    assert await store.player_of(token + "x") is None
    keys = [key async for key in store.redis.scan_iter()]
    values = [await store.redis.get(k) for k in keys if await store.redis.type(k) == b"string"]
    assert all(token.encode() not in k for k in keys)
    assert all(token.encode() not in (v or b"") for v in values)
    assert await store.redis.hget(game_key("nothere"), "r") is None


async def guest_ttls(store: Store, player: str, token: str) -> set[int]:
    """The seconds left to a guest's keys: its player, its token and its token set."""
    keys = [
        f"hive:p:{{{player}}}",
        f"hive:token:{token_hash(token)}",
        f"hive:p:{{{player}}}:tokens",
    ]
    return {await store.redis.ttl(key) for key in keys}


async def test_a_guest_lasts_its_session_ttl_from_its_last_use(store: Store) -> None:
    """A guest's keys expire ``ttl`` seconds after the session was last used; each use (a
    hello, a connection closing) starts the period again. A bot account's never expire."""
    player, token = await store.new_player("ada", 0, 100)
    assert all(90 < ttl <= 100 for ttl in await guest_ttls(store, player, token))
    await store.touch(player, token_hash(token), 5000)
    await store.set_offline(player, 1, 5000)
    assert all(4900 < ttl <= 5000 for ttl in await guest_ttls(store, player, token))
    assert 4900 < await store.redis.ttl(f"hive:offline:{{{player}}}") <= 5000
    bot, bot_token = await store.new_bot("robo", 0)
    assert await store.redis.ttl(f"hive:token:{token_hash(bot_token)}") == -1  # no expiry
    assert await store.redis.ttl(f"hive:p:{{{bot}}}") == -1


async def test_sessions_end_one_or_all_and_every_process_hears_of_it(store: Store) -> None:
    player, first = await store.new_player("ada", 0, 100)
    second = "another-token"
    await store.redis.set(f"hive:token:{token_hash(second)}", player)  # as a second hello made
    await store.redis.sadd(f"hive:p:{{{player}}}:tokens", token_hash(second))
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(CONTROL_CHANNEL)
    await store.end_sessions(player, token_hash(first))
    assert await store.player_of(first) is None
    assert await store.player_of(second) == (player, "ada", False)
    await store.end_sessions(player, None)
    assert await store.player_of(second) is None
    heard: list[object] = []
    async with asyncio.timeout(10):
        while len(heard) < 2:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
            if message is not None:
                heard.append(msgpack.unpackb(message["data"]))
    await pubsub.aclose()
    assert heard == [["signed_out", player, token_hash(first)], ["signed_out", player, None]]


async def test_presence_marks_lapse_unless_renewed(store: Store) -> None:
    await store.set_online("p1", now=1_000, ttl=30)
    await store.set_online("p2", now=1_000, ttl=30)
    assert await store.gone_since("p1", now=30_000) is None  # connected
    await store.keep_online(["p1"], now=20_000, ttl=30)  # p1's server renews its mark
    assert await store.gone_since("p1", now=40_000) is None
    assert await store.gone_since("p2", now=40_000) == 0  # its server died: gone since 0
    await store.keep_online(["p1"], now=40_000, ttl=30)
    assert await store.redis.zrange("hive:online", 0, -1) == [b"p1"]  # the lapsed mark forgotten
    await store.set_offline("p1", now=41_000, ttl=60)
    assert await store.gone_since("p1", now=42_000) == 41_000
    await store.set_online("p1", now=43_000, ttl=30)
    assert await store.gone_since("p1", now=44_000) is None
    assert await store.gone_since_many(["p1", "p2", "p3"], now=44_000) == [None, 0, 0]


async def test_processes_share_their_spectators_and_who_is_online(store: Store) -> None:
    await store.set_online("ada", now=1_000, ttl=30)
    view = store.share_view
    # (the last figure: how many other processes are alive)
    one = await view("one", {"g1": 2, "g2": 1}, ["ada", "bob"], 1_000, 6)
    assert one == ({}, {"ada"}, False, 0)
    two = await view("two", {"g1": 3}, ["ada"], 2_000, 6)
    assert two == ({"g1": 2, "g2": 1}, {"ada"}, False, 1)
    # Only changes travel: 0 drops a game; the players asked about are the ones looked up.
    assert await view("one", {"g1": 0, "g2": 4}, [], 3_000, 6) == ({"g1": 3}, set(), True, 1)
    assert await view("three", {}, ["bob"], 4_000, 6) == ({"g1": 3, "g2": 4}, set(), False, 2)
    # A process that stops sharing (it died) drops out after the ttl.
    assert await view("two", {}, [], 8_500, 6) == ({"g2": 4}, set(), True, 2)
    assert await view("two", {}, [], 9_500, 6) == ({}, set(), True, 1)
    assert await view("three", {}, ["ada"], 40_000, 6) == ({}, set(), False, 0)  # ada lapsed
    # (False: "three" has no counts in Redis; it never shared any.)
    # Counts that lapsed in Redis are reported, so that the process shares them all again.
    await store.redis.delete("hive:proc:two:spectators")
    assert await view("two", {"g5": 1}, [], 41_000, 6) == ({}, set(), False, 1)
    assert await store.redis.hgetall("hive:proc:two:spectators") == {b"g5": b"1"}
    assert 0 < await store.redis.ttl("hive:proc:two:spectators") <= 6


async def test_a_limit_counts_the_requests_of_its_window(store: Store) -> None:
    """A request counts for its window (and at most one part of ``WINDOW_PARTS`` more), the
    refused ones too; ``count_so_far`` adds none."""
    count, so_far = store.count_in_window, store.count_so_far
    assert [await count("ada", "chat", 10, 100_000 + t) for t in range(3)] == [1, 2, 3]
    assert await so_far("ada", "chat", 10, 100_003) == 3
    assert await count("ada", "create", 10, 100_003) == 1  # another limit
    assert await count("bob", "chat", 10, 100_003) == 1  # another player
    assert await count("ada", "chat", 10, 109_999) == 4  # the first three are in the window
    assert await so_far("ada", "chat", 10, 110_000 + window_part(10)) == 1  # they left it
    assert await so_far("ada", "chat", 10, 200_000) == 0
    assert not await store.redis.exists(rate_key("ada", "chat"))  # forgotten


async def test_a_flood_leaves_a_limit_a_few_counters(store: Store) -> None:
    """20,000 requests over 4 windows (each refused past its limit) leave the limit's key
    ``WINDOW_PARTS`` + 1 counters at most, however many came: a set of the requests held
    one per request and grew Redis by megabytes while a flood lasted."""
    key = rate_key("flooder", "login")
    biggest = 0
    for batch in range(40):
        start = 1_000_000 + batch * 500
        counts = await flood(store, "login", 5, [start + t for t in range(500)])
        assert max(counts) >= 500 * min(batch + 1, 10)  # every request of the window counted
        biggest = max(biggest, await store.redis.memory_usage(key))
    assert biggest < 1_000  # bytes
    assert await store.redis.hlen(key) <= WINDOW_PARTS + 1


async def test_redis_holds_nothing_of_a_flood_once_its_window_lapsed(store: Store) -> None:
    """Measured in real time: a flood of 5,000 requests in a window of a second keeps one
    small key, which expires with the window, and Redis's keys are back where they were
    (its clients' connections made before, with their buffers)."""
    await flood(store, "warm-up", 0.001, [now_ms()] * 50)
    await until_gone(store, rate_key("flooder", "warm-up"))
    before = int((await store.redis.info("memory"))["used_memory_dataset"])
    key = rate_key("flooder", "download")
    for _ in range(100):
        await flood(store, "download", 1, [now_ms()] * 50)
    assert (await store.redis.memory_usage(key)) < 1_000
    during = int((await store.redis.info("memory"))["used_memory_dataset"])
    assert during - before < 10_000
    await until_gone(store, key)
    after = int((await store.redis.info("memory"))["used_memory_dataset"])
    assert after - before < 2_000


async def flood(store: Store, what: str, seconds: float, times: list[int]) -> list[int]:
    """A request of ``flooder`` at each of ``times``, 50 at once; what each counted."""
    counts: list[int] = []
    for first in range(0, len(times), 50):
        counts += await asyncio.gather(
            *(store.count_in_window("flooder", what, seconds, t) for t in times[first : first + 50])
        )
    return counts


async def until_gone(store: Store, key: str) -> None:
    """Wait until ``key`` has expired (Redis is asked every 50 ms, for 5 s at most)."""

    async def gone() -> bool:
        return not await store.redis.exists(key)

    await until(gone, f"{key} has expired", timeout=5, every=0.05)


async def test_locks_by_key_serve_in_order_and_exist_only_while_used() -> None:
    """``Locks.hold`` (server.live.locks): one holder at a time, waiters in order, a waiter
    cancelled before its turn leaves nothing behind, and the key's lock goes with its last
    user."""
    locks = Locks()
    order: list[int] = []
    release = asyncio.Event()

    async def user(number: int) -> None:
        async with locks.hold("g"):
            order.append(number)
            assert locks.busy("g") and len(locks) == 1
            if number == 0:
                await release.wait()

    # The three start in order on the loop's next turn: the first holds the lock, the others
    # wait for it by the time the first is seen holding it.
    users = [asyncio.create_task(user(n)) for n in range(3)]
    await until(lambda: order == [0], "the first user holds the lock")
    users[1].cancel()  # waiting for the lock
    release.set()
    await asyncio.gather(*users, return_exceptions=True)
    assert order == [0, 2]
    assert not locks.busy("g") and len(locks) == 0
    with pytest.raises(ValueError):
        async with locks.hold("g"):
            raise ValueError("in the block")
    assert not locks.busy("g")


async def test_a_change_no_replica_held_is_refused_unpublished_or_acknowledged(
    redis_server: RedisProcess,
) -> None:
    """A Redis with no replica: each wait times out. Refused, the change is on the primary
    (indexed) but not published, and ``UnreplicatedError`` raised; ``settle`` finds it and
    refuses it again (no replica yet). Acknowledged, it is published; the next wait is short."""
    client = aioredis.Redis.from_url(redis_server.url)
    timed_out: list[bool] = []
    refusing = Store(client, replicas=1, wait_ms=100, wait_timed_out=timed_out.append)
    accepting = Store(
        client, replicas=1, wait_ms=100, refuse_unreplicated=False, wait_timed_out=timed_out.append
    )
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(
            refusing.channels.game("abcd1234"), refusing.channels.game("efgh5678")
        )
        for _ in range(2):
            assert (await pubsub.get_message(timeout=1))["type"] == "subscribe"
        record = new_record()
        with pytest.raises(UnreplicatedError):
            await refusing.commit(record, Event(1, "created", 1000), expected=0, deadline=None)
        assert await refusing.get(record.id) == record  # on the primary,
        assert await client.zscore("hive:open", record.id) is not None  # indexed,
        assert await pubsub.get_message(timeout=0.3) is None  # not published
        with pytest.raises(UnreplicatedError):
            await refusing.settle(record.id)
        assert not await refusing.commit(  # sent again: the game exists
            record, Event(1, "created", 1000), expected=0, deadline=None
        )
        other = new_record("efgh5678")
        assert await accepting.commit(other, Event(1, "created", 1000), expected=0, deadline=None)
        heard = await pubsub.get_message(timeout=1)
        assert heard is not None and heard["channel"] == accepting.channels.game(other.id).encode()
        assert accepting.short_of_replicas and timed_out == [True, True, False]
        assert await accepting.settle(other.id) == other  # published again: a no-op for a listener
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
