"""Two server processes on one Redis: a game between players on different processes, watched
from both, the lobby seen alike from both, a flag that falls exactly once, a game without a
clock that both players left ended exactly once, a change decided on
a copy of the game that another process has changed meanwhile refused; servers on two
databases of one Redis kept apart."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import pytest
import redis.asyncio as aioredis

from protocol import (
    SIGNED_OUT,
    Chat,
    CreateGame,
    ErrorCode,
    JoinGame,
    Lobby,
    Logout,
    Ping,
    Play,
    Pong,
    Rematch,
    Resign,
    TimeControl,
    Unwatch,
    Update,
    Watch,
    WatchLobby,
)
from protocol.client import Client, ServerError
from server.embedded import RedisProcess
from server.game import match
from server.game.clock import now_ms
from server.storage.store import Store
from tests.server.conftest import Running, StartServer, free_port
from tests.server.support import (
    ListenerCut,
    LostAnswer,
    ServerProcess,
    closed_with,
    decisive_game,
    lobby_until,
    play,
    published,
    refused,
    running_all,
    scrape,
    start_game,
    updated,
    watch,
)
from tests.support import until


@contextlib.asynccontextmanager
async def two_servers(redis: RedisProcess, *extra: str) -> AsyncIterator[tuple[str, str]]:
    """Two ``hive-server`` processes on ``redis`` (and on one SQLite database, beside its
    folder); yields their websocket URLs."""
    data = str(redis.folder.parent / "data")
    servers = [
        ServerProcess(
            *("--port", str(free_port()), "--redis-url", redis.url, "--data", data),
            *("--bot-workers", "1", *extra),
        )
        for _ in range(2)
    ]
    async with running_all(servers):
        yield servers[0].ws_url, servers[1].ws_url


async def lobby_with(client: Client, game_id: str, where: str) -> Lobby:
    """The first lobby list this client gets that shows ``game_id`` among its ``where``
    (``open`` or ``live``) games."""
    while True:
        lobby = await client.expect(Lobby)
        if any(g.id == game_id for g in getattr(lobby, where)):
            return lobby


async def test_players_and_spectators_on_two_processes_share_one_game(
    redis_server: RedisProcess,
) -> None:
    moves = decisive_game()
    async with (
        two_servers(redis_server) as (one, two),
        Client.connect(one, nickname="ada") as white,
        Client.connect(two, nickname="bob") as black,
        Client.connect(one, nickname="cy") as fan_one,
        Client.connect(two, nickname="dee") as fan_two,
    ):
        await fan_two.send(WatchLobby())
        await white.send(CreateGame(game_type="Base", color="white"))
        game_id = (await white.expect(Update)).game
        await lobby_with(fan_two, game_id, "open")  # process two lists ada's open game
        await black.send(JoinGame(game_id))  # on process two
        w, b = await updated(white, game_id), await updated(black, game_id)
        assert w.state.status == b.state.status == "live"
        await lobby_with(fan_two, game_id, "live")
        seen: dict[str, list[str]] = {"cy": [], "dee": []}
        for fan in (fan_one, fan_two):
            await fan.send(Watch(game_id))
        for fan in (fan_one, fan_two):
            assert (await updated(fan, game_id)).state.moves == []
        for move in moves:
            mover, last = (white, w) if len(w.state.moves) % 2 == 0 else (black, b)
            await play(mover, last, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
            assert (w.version, w.state.moves) == (b.version, b.state.moves)
            # the legal moves, from either process, go to the player to move only
            to_move, other = (w, b) if len(w.state.moves) % 2 == 0 else (b, w)
            assert other.state.legal == [] and (
                to_move.state.legal or to_move.state.status == "over"
            )
            for name, fan in (("cy", fan_one), ("dee", fan_two)):
                update = await updated(fan, game_id)
                seen[name] += [e.text or "" for e in update.events if e.kind == "move"]
                assert update.state.moves == w.state.moves and update.state.legal == []
    assert seen["cy"] == seen["dee"] == list(moves)  # every move, in order, once
    assert (w.state.status, w.state.reason) == ("over", "queen")


async def test_a_flag_falls_exactly_once_with_two_processes(redis_server: RedisProcess) -> None:
    async with (
        two_servers(redis_server, "--first-move-timeout", "60") as (one, two),
        Client.connect(one, nickname="ada") as white,
        Client.connect(two, nickname="bob") as black,
    ):
        await white.send(CreateGame(game_type="Base", color="white", time=TimeControl("clock", 1)))
        game_id = (await white.expect(Update)).game
        await black.send(JoinGame(game_id))
        w, b = await updated(white, game_id), await updated(black, game_id)
        await play(white, w, "wS1")
        b = await updated(black, game_id)
        await play(black, b, "bS1 wS1-")  # White's clock runs now; nobody moves again
        update = await updated(white, game_id)
        while update.state.status == "live":
            update = await updated(white, game_id)
    assert (update.state.result, update.state.reason) == ("BlackWins", "timeout")
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        events = await Store(client).events_after(game_id, 0)
    finally:
        await client.aclose()
    assert events is not None
    assert [e.kind for e in events].count("over") == 1  # both processes swept; one flagged
    assert [e.version for e in events] == list(range(1, len(events) + 1))


async def test_a_game_without_a_clock_both_players_left_ends_once(
    start_server: StartServer,
) -> None:
    """Ada (on one) and Bob (on two) leave their game without a clock: past
    ``untimed_timeout`` it ends without a result (``deserted``), once, whichever process
    looks first. Left alone: such a game one of whose players is still connected (Dee, on
    two: Cy may be claimed against), and a game with a clock both left (Eve on one, Fay on
    two: its clock ends it)."""
    settings = {"untimed_timeout": 0.5, "first_move_timeout": 60.0}
    async with (
        start_server(**settings) as one,
        start_server(**settings) as two,
        published(one.redis_url) as wait,
        two.connect("dee") as dee,
    ):
        async with (
            one.connect("ada") as ada,
            two.connect("bob") as bob,
            one.connect("cy") as cy,
            one.connect("eve") as eve,
            two.connect("fay") as fay,
        ):
            deserted, w, _ = await start_game(ada, bob)
            await two_moves(deserted, ada, w, bob)
            kept, k, _ = await start_game(cy, dee)
            await two_moves(kept, cy, k, dee)
            timed, t, _ = await start_game(eve, fay, time=TimeControl("clock", 600, 0))
            await two_moves(timed, eve, t, fay)
        over = await wait(deserted, "over")
        assert (over.by, over.text) == (None, "deserted")
        looks = [srv.hub.timers.deserted_looks for srv in (one, two)]
        await until(
            lambda: all(
                srv.hub.timers.deserted_looks > seen + 1
                for srv, seen in zip((one, two), looks, strict=True)
            ),
            "the processes never looked again",
        )
        store = one.hub.store
        records = {game: await store.get(game) for game in (deserted, kept, timed)}
        events = await store.events_after(deserted, 0)
    ended = records[deserted]
    assert ended is not None and (ended.status, ended.result, ended.reason) == (
        "over",
        None,
        "deserted",
    )
    assert ended.moves == ["wS1", "bS1 wS1-"]
    for game in (kept, timed):
        record = records[game]
        assert record is not None and record.status == "live", game
    assert events is not None and [e.kind for e in events].count("over") == 1


async def test_a_change_decided_on_a_copy_another_process_changed_is_not_committed(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    """Two processes decide a change of one game on the same version: the one that has not
    heard of the other's change yet (here its listener is kept away from Redis) commits
    nothing over it. It finds the game changed, decides again and is refused (``stale``);
    the game holds one event per version, the move everybody was told of."""
    async with (
        ListenerCut(redis_server.url) as cut,
        start_server() as near,
        start_server(redis_url=cut.url) as far,
        near.connect("ada") as white,
        near.connect("bob") as black,
        far.connect(token=white.welcome.token) as white_far,  # ada again, on the other
    ):
        game_id, w, _ = await start_game(white, black)
        assert (await watch(white_far, game_id)).version == w.version
        await cut.cut(far)
        await play(white, w, "wS1")
        played = await updated(white, game_id)
        assert far.hub.cache.games[game_id].record.version == w.version  # not heard of
        await white_far.send(Play(game_id, w.version, "wG1"))  # on far's copy, still at w
        assert await refused(white_far, game_id) == ErrorCode.STALE
        await cut.restore()
        seen = await updated(white_far, game_id)
        assert (seen.version, seen.state.moves) == (played.version, ["wS1"])
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        store = Store(client)
        stored, events = await store.get(game_id), await store.events_after(game_id, 0)
    finally:
        await client.aclose()
    assert stored is not None and (stored.version, stored.moves) == (played.version, ["wS1"])
    assert events is not None
    assert [e.version for e in events] == list(range(1, played.version + 1))
    assert [e.text for e in events if e.kind == "move"] == ["wS1"]


async def test_spectators_and_presence_are_counted_over_processes(
    start_server: StartServer,
) -> None:
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        two.connect("bob") as black,
        one.connect("cy") as fan_one,
        two.connect("dee") as fan_two,
    ):
        game_id, w, b = await start_game(white, black)
        for fan in (fan_one, fan_two):
            await watch(fan, game_id)
        for hub in (one.hub, two.hub, one.hub):  # each shares its view (the heartbeat does)
            await hub.presence.share_view()
        await play(white, w, "wS1")
        w, b = await updated(white, game_id), await updated(black, game_id)
        assert w.state.spectators == b.state.spectators == 2
        assert w.state.black is not None and w.state.black.connected
        assert b.state.white is not None and b.state.white.connected


async def test_a_change_is_built_once_by_each_process_that_delivers_it(
    start_server: StartServer,
) -> None:
    """Each process builds the update of a change once, after the commit, for all its
    watchers one version behind (here: ada on one; bob and cy on two): seen in each one's
    /metrics. Each hears the change as its own or another's by the id published with it."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        two.connect("bob") as black,
        two.connect("cy") as fan,
    ):
        game_id, w, _ = await start_game(white, black)
        await watch(fan, game_id)
        for hub in (one.hub, two.hub, one.hub):  # each learns of the other (the heartbeat does)
            await hub.presence.share_view()
        before = [await scrape(srv) for srv in (one, two)]
        await play(white, w, "wS1")
        w, b, f = [await updated(c, game_id) for c in (white, black, fan)]
        after = [await scrape(srv) for srv in (one, two)]
        assert w.version == b.version == f.version == 3
        assert b.state.legal and not w.state.legal and not f.state.legal  # bob is to move
        assert w == replace(b, state=replace(b.state, legal=[])) == f

    def grew(name: str) -> list[float]:
        return [a.get(name, 0) - b.get(name, 0) for a, b in zip(after, before, strict=True)]

    assert grew("hive_states_built_total") == [1, 1]  # once a process, not once a watcher
    assert grew("hive_changes_heard_total{made=here}") == [1, 0]
    assert grew("hive_changes_heard_total{made=elsewhere}") == [0, 1]
    # ... and how long it took to reach each (on one machine: well under a second)
    assert grew("hive_change_delay_seconds_count{made=here}") == [1, 0]
    assert grew("hive_change_delay_seconds_count{made=elsewhere}") == [0, 1]
    assert grew("hive_change_delay_seconds_bucket{le=1.0,made=elsewhere}") == [0, 1]


async def two_moves(game_id: str, white: Client, w: Update, black: Client) -> None:
    """White plays wS1 (``w``: the update white last saw), Black answers; both see the end."""
    await play(white, w, "wS1")
    await play(black, await updated(black, game_id), "bS1 wS1-")
    await updated(white, game_id)
    await updated(black, game_id)


def heard_elsewhere(before: dict[str, float], after: dict[str, float]) -> float:
    """The changes made by other processes that a process heard between two /metrics."""
    name = "hive_changes_heard_total{made=elsewhere}"
    return after.get(name, 0) - before.get(name, 0)


async def test_a_process_following_no_game_hears_none_of_its_moves_yet_its_lobby_counts_them(
    start_server: StartServer,
) -> None:
    """A change is heard by the processes that follow its game: with both players on one
    process, the other hears the game's creation and its start (they move it in the lobby) but
    none of its moves, and its lobby shows the moves all the same (each process says the moves
    it made at most twice a second)."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        one.connect("bob") as black,
        two.connect("cy") as lobbyist,
    ):
        await lobbyist.send(WatchLobby())
        game_id, w, _ = await start_game(white, black)
        await lobby_until(lobbyist, lambda lobby: any(g.id == game_id for g in lobby.live))
        before = await scrape(two)
        await two_moves(game_id, white, w, black)

        def moves(lobby: Lobby) -> int:
            return next((g.moves for g in lobby.live if g.id == game_id), -1)

        await lobby_until(lobbyist, lambda lobby: moves(lobby) == 2)
        assert heard_elsewhere(before, await scrape(two)) == 0


async def test_a_process_stops_hearing_a_game_in_progress_once_nobody_there_follows_it(
    start_server: StartServer,
) -> None:
    """Bob joins from the lobby's connection on one process, then follows the game from the
    other, the game's (as a game's page does behind the proxy): the first, which committed the
    join, hears none of the game's moves once his connection there is gone."""
    async with (
        start_server() as one,
        start_server() as two,
        two.connect("ada") as white,
    ):
        async with one.connect("bob") as lobby_page:
            game_id, w, _ = await start_game(white, lobby_page)
            token = lobby_page.welcome.token
        await until(lambda: game_id not in one.hub.cache.games, "one keeps the game")
        async with two.connect(token=token) as black:
            await watch(black, game_id)
            before = await scrape(one)
            await two_moves(game_id, white, w, black)
            assert heard_elsewhere(before, await scrape(one)) == 0


async def test_shared_spectators_follow_watchers_who_leave_or_join_the_game(
    start_server: StartServer,
) -> None:
    """A process shares the changed counts only: a spectator who leaves, and one who takes
    the open seat (a player, no longer a spectator), count no more on the other process."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        one.connect("bob") as fan,
        one.connect("cy") as joiner,
        two.connect("dee") as far,
    ):
        await white.send(CreateGame(game_type="Base", color="white"))
        game_id = (await white.expect(Update)).game
        for client in (fan, joiner):
            await watch(client, game_id)
        await watch(far, game_id)

        async def seen_from_two() -> int:
            await one.hub.presence.share_view()
            await two.hub.presence.share_view()
            return two.hub.presence.spectators(two.hub.cache.games[game_id].record)

        assert await seen_from_two() == 3  # bob, cy here and dee there
        await fan.send(Unwatch(game_id))
        await fan.send(Ping())  # answered after the Unwatch: it has been applied
        await fan.expect(Pong)
        assert await seen_from_two() == 2
        await joiner.send(JoinGame(game_id))
        for client in (joiner, far):  # each process has passed the join on
            assert (await updated(client, game_id)).state.status == "live"
        assert await seen_from_two() == 1  # cy plays now; dee still watches, on two


async def test_a_change_committed_by_a_process_that_died_at_once_reaches_the_watchers(
    start_server: StartServer,
) -> None:
    """Redis publishes a change as it commits it: a change whose process died before
    anything else (here: a ghost process, which commits a move and is never heard of again)
    reaches every watcher, with its state built by the process that delivers it."""
    async with (
        start_server() as one,
        one.connect("ada") as white,
        one.connect("bob") as black,
    ):
        game_id, w, _ = await start_game(white, black)
        redis = aioredis.Redis.from_url(one.redis_url)
        try:
            ghost = Store(redis)
            record = await ghost.get(game_id)
            assert record is not None and record.version == w.version == 2
            moved, event = match.play(
                record, record.new_game(), record.creator, "wS1", 2, now_ms(), 60_000
            )
            assert await ghost.commit(moved, event, expected=2, deadline=None, change="ghost:1")
            seen = await updated(black, game_id)
            assert seen.version == 3 and seen.state.moves == ["wS1"]
            assert [e.kind for e in seen.events] == ["move"]
            assert seen.state.legal and not seen.snapshot
        finally:
            await redis.aclose()


async def test_ten_heartbeats_renew_every_players_online_mark(start_server: StartServer) -> None:
    """Each beat renews a tenth of the process's players; ten beats renew them all."""
    async with start_server() as srv, contextlib.AsyncExitStack() as stack:
        for n in range(12):
            await stack.enter_async_context(srv.connect(f"p{n}"))
        redis = srv.hub.store.redis
        players = list(srv.hub.presence.by_player)
        assert len(players) == 12
        soon = now_ms() + 5_000  # the marks lapse soon; a renewed one lasts ONLINE_TTL
        await redis.zadd("hive:online", dict.fromkeys(players, soon))

        async def renewed() -> int:
            return sum(until > soon for until in await redis.zmscore("hive:online", players))

        await srv.hub.presence.renew_online(3)
        assert await renewed() < 12  # a part of them, not all in one beat
        for beat in range(10):
            await srv.hub.presence.renew_online(beat)
        assert await renewed() == 12


async def test_a_process_shares_its_spectators_again_once_they_lapsed(
    start_server: StartServer,
) -> None:
    """A process sends only the counts that changed; counts that lapsed in Redis (it stalled,
    or Redis was away) are all sent again, and the other process sees the spectator again."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        two.connect("bob") as black,
        one.connect("cy") as fan,
    ):
        game_id, w, _ = await start_game(white, black)
        await watch(fan, game_id)
        key = f"hive:proc:{one.hub.presence.process}:spectators"
        await one.hub.presence.share_view()
        assert await one.hub.store.redis.hgetall(key) == {game_id.encode(): b"1"}
        await one.hub.store.redis.delete(key)  # lapsed
        await one.hub.presence.share_view()  # no change to send; it finds out they lapsed
        await one.hub.presence.share_view()
        assert await one.hub.store.redis.hgetall(key) == {game_id.encode(): b"1"}
        await two.hub.presence.share_view()
        await play(white, w, "wS1")
        b = await updated(black, game_id)  # from process two
        assert b.state.spectators == 1


async def test_a_spectator_shared_first_and_gone_at_once_counts_no_more_nor_past_the_end(
    start_server: StartServer,
) -> None:
    """A process's first spectator makes its key in Redis (there was none to renew) and is
    remembered as shared all the same, so that leaving before the next share takes it out:
    the other process's lone spectator is told of one spectator, not two. And a shared count
    ends with its game, though its spectator still watches (issue 33)."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        two.connect("bob") as black,
        one.connect("cy") as fan,
        two.connect("dee") as far,
    ):
        game_id, w, _ = await start_game(white, black)
        key = f"hive:proc:{one.hub.presence.process}:spectators"
        redis = one.hub.store.redis
        await one.hub.presence.share_view()
        for _ in range(2):  # after a share with the key there, and after one without
            assert not await redis.exists(key)  # nobody watches on one: nothing in Redis
            await watch(fan, game_id)
            await one.hub.presence.share_view()
            assert await redis.hgetall(key) == {game_id.encode(): b"1"}
            await fan.send(Unwatch(game_id))
            await fan.send(Ping())  # answered after the Unwatch: it has been applied
            await fan.expect(Pong)
            await one.hub.presence.share_view()
            assert await redis.hgetall(key) == {}
        await watch(far, game_id)
        await two.hub.presence.share_view()
        await play(white, w, "wS1")
        assert (await updated(far, game_id)).state.spectators == 1  # dee alone

        await watch(fan, game_id)
        await one.hub.presence.share_view()
        assert await redis.hgetall(key) == {game_id.encode(): b"1"}
        await white.send(Resign(game_id))
        assert (await updated(fan, game_id)).state.status == "over"
        await one.hub.presence.share_view()
        assert await redis.hgetall(key) == {}  # cy still watches the finished game


async def test_a_rematch_takes_both_players_along_whichever_process_they_are_on(
    start_server: StartServer,
) -> None:
    """Each player's connection follows the old game into the rematch without a ``watch``
    (the web client does not send one), on the process that accepted it and on the other."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as ada,
        two.connect("bob") as bob,
    ):
        game_id, _, _ = await start_game(ada, bob)
        await bob.send(Resign(game_id))
        await updated(ada, game_id), await updated(bob, game_id)
        await ada.send(Rematch(game_id))  # ada offers on one, bob accepts on two
        assert (await updated(ada, game_id)).state.rematch_offer is not None
        assert (await updated(bob, game_id)).state.rematch_offer is not None
        await bob.send(Rematch(game_id))
        for client in (ada, bob):
            update = await client.expect(Update)
            assert update.game == game_id and update.state.rematch is not None  # the event first
            new_id = update.state.rematch
            update = await client.expect(Update)
            assert (update.game, update.state.status) == (new_id, "live")


async def test_servers_on_two_databases_of_one_redis_share_nothing(
    start_server: StartServer, redis_server: RedisProcess
) -> None:
    """Pub/sub ignores the database, so each database has channels of its own: a game made
    on database 0 is neither listed nor joinable on database 1, whose processes still hear
    each other's changes and sign-outs."""
    database_one = redis_server.url.removesuffix("/0") + "/1"
    async with (
        start_server() as zero,
        start_server(redis_url=database_one) as one,
        start_server(redis_url=database_one) as other_one,
        zero.connect("ada") as ada,
        one.connect("bob") as bob,
        other_one.connect("cy") as cy,
        one.connect(token=cy.welcome.token) as cy_on_one,
    ):
        await bob.send(WatchLobby())
        await bob.expect(Lobby)
        await ada.send(CreateGame(game_type="Base"))
        elsewhere = (await ada.expect(Update)).game  # published once it is answered
        await cy.send(CreateGame(game_type="Base"))
        here = (await cy.expect(Update)).game
        # cy's game reaches bob's process through its listener, after anything published
        # before it that the listener hears: ada's game would have come first.
        lobby = await lobby_with(bob, here, "open")
        assert elsewhere not in {game.id for game in lobby.open + lobby.live}
        await bob.send(JoinGame(elsewhere))
        with pytest.raises(ServerError) as refused:
            await bob.expect(Update)
        assert refused.value.error.code == ErrorCode.UNKNOWN_GAME
        await cy.send(Logout())  # reaches cy's session on the other process of database 1
        assert await closed_with(cy_on_one) == SIGNED_OUT


def passed_on(srv: Running) -> float:
    """The changes ``srv`` passed on so far (its ``hive_changes_passed_on_total``)."""
    return srv.hub.metrics.registry.get_sample_value("hive_changes_passed_on_total") or 0.0


def heard_here(srv: Running) -> float:
    """The changes ``srv`` made that its listener heard of so far."""
    heard = srv.hub.metrics.registry.get_sample_value("hive_changes_heard_total", {"made": "here"})
    return heard or 0.0


async def test_each_change_is_passed_on_once_by_each_process_that_follows_its_game(
    start_server: StartServer,
) -> None:
    """A change is passed on (to the lobby and the watchers) here by whichever brings the
    cache here to it first: the request that made it, or the listener that heard of it, on
    the game's channel and, for a change of the game's place in the lobby (a creation, a
    join, an end), on the channel of every process as well. Ada creates a game on one, bob
    joins on two, they move on both and bob resigns: each version is passed on once by one,
    and once by two from the join on (two heard of the creation in its lobby only)."""
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as white,
        two.connect("bob") as black,
    ):
        grew: dict[int, list[float]] = {}  # by version: the changes each process passed on
        last = [passed_on(one), passed_on(two)]

        async def seen(update: Update, *others: Client) -> Update:
            """``update``'s version, seen by ``others`` too: what each process passed on
            since the last version."""
            for client in others:
                assert (await updated(client, update.game)).version == update.version
            now = [passed_on(one), passed_on(two)]
            grew[update.version] = [a - b for a, b in zip(now, last, strict=True)]
            last[:] = now
            return update

        await white.send(CreateGame(game_type="Base", color="white"))
        w = await seen(await white.expect(Update))
        game_id = w.game
        await black.send(JoinGame(game_id))  # on two
        b = await seen(await updated(black, game_id), white)
        for mover, move in ((white, "wS1"), (black, "bS1 wS1-"), (white, "wQ -wS1")):
            await play(mover, b, move)
            b = await seen(await updated(black, game_id), white)
        await black.send(Chat(game_id, "gg"))
        b = await seen(await updated(black, game_id), white)
        await black.send(Resign(game_id))
        b = await seen(await updated(black, game_id), white)
        assert (b.state.status, b.state.reason) == ("over", "resign")
        # Every listener has heard all of it once two's hears one's last line, and one's
        # hears two's: then two's hears its own.
        await white.send(Chat(game_id, "bye"))
        await seen(await updated(white, game_id), black)
        heard = heard_here(two)
        await black.send(Chat(game_id, "bye"))
        b = await seen(await updated(black, game_id), white)
        await until(lambda: heard_here(two) == heard + 1, "two never heard its own line")
        grew[0] = [passed_on(one) - last[0], passed_on(two) - last[1]]  # since: none
    assert b.version == 9
    assert grew == {1: [1, 0], **{v: [1, 1] for v in range(2, 10)}, 0: [0, 0]}


async def answered(client: Client, game_id: str) -> tuple[ErrorCode, list[Update]]:
    """The error the client's last request got, and the updates of ``game_id`` before it."""
    updates = []
    try:
        while True:
            updates.append(await updated(client, game_id))
    except ServerError as error:
        return error.error.code, updates


@dataclass
class LostAnswerGame:
    """A game between ada (white) and bob on a process whose Redis is behind a
    ``LostAnswer`` proxy, watched by cy on another process; the changes ``srv`` had passed
    on when it started (``passed``)."""

    proxy: LostAnswer
    srv: Running
    white: Client
    black: Client
    fan: Client
    game_id: str
    w: Update
    passed: float


@contextlib.asynccontextmanager
async def lost_answer_game(
    redis_server: RedisProcess, start_server: StartServer
) -> AsyncIterator[LostAnswerGame]:
    async with (
        LostAnswer(redis_server.url) as proxy,
        start_server(redis_url=proxy.url) as srv,
        start_server() as other,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
        other.connect("cy") as fan,
    ):
        game_id, w, _ = await start_game(white, black)
        await watch(fan, game_id)
        yield LostAnswerGame(proxy, srv, white, black, fan, game_id, w, passed_on(srv))


async def test_a_change_whose_commit_lost_its_answer_is_passed_on_once(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    """Redis commits and publishes a move, and the connection breaks before its answer
    reaches the server, then again as the commit is sent again: the move is answered
    ``unavailable``; the request reads the game again from Redis and passes the move on
    while the listener has not heard of it yet (what Redis sends it waits in a proxy), and
    once the listener hears of it (before a line cy says from another process), it is not
    passed on again."""
    async with lost_answer_game(redis_server, start_server) as g:
        proxy, srv, white, black, fan = g.proxy, g.srv, g.white, g.black, g.fan
        game_id, w, passed = g.game_id, g.w, g.passed
        proxy.lose(game_id, cut_retries=True, hold=True)
        await play(white, w, "wS1")
        code, updates = await answered(white, game_id)
        assert code == ErrorCode.UNAVAILABLE and proxy.lost.is_set()
        assert [(u.version, u.state.moves) for u in updates] == [(3, ["wS1"])]
        assert (await updated(black, game_id)).state.moves == ["wS1"]
        assert (await updated(fan, game_id)).version == 3
        assert proxy.holding()  # the listener has not heard of it: the request passed it on
        proxy.restore()
        await fan.send(Chat(game_id, "ouch"))
        assert (await updated(black, game_id)).version == 4  # heard after the move
        assert passed_on(srv) == passed + 2  # the move, once, and cy's line


async def test_a_commit_sent_again_after_its_answer_was_lost_is_passed_on_once(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    """Redis commits and publishes a move, and the connection breaks before its answer
    reaches the server: redis-py sends the commit again, which finds the game changed (by
    the move itself), and the request decides the move again on the game as Redis holds it
    now (``stale``). The move is passed on once, by the listener (which has heard it before
    a line cy says from another process)."""
    async with lost_answer_game(redis_server, start_server) as g:
        proxy, srv, white, black, fan = g.proxy, g.srv, g.white, g.black, g.fan
        game_id, w, passed = g.game_id, g.w, g.passed
        proxy.lose(game_id)
        await play(white, w, "wS1")
        code, _ = await answered(white, game_id)  # (the move comes before or after)
        assert code == ErrorCode.STALE and proxy.lost.is_set()
        assert (await updated(black, game_id)).state.moves == ["wS1"]
        assert (await updated(fan, game_id)).version == 3
        await fan.send(Chat(game_id, "ouch"))
        assert (await updated(black, game_id)).version == 4  # heard after the move
        assert passed_on(srv) == passed + 2  # the move, once, and cy's line
