"""Challenges by name, follows and blocks, who is online: a challenge accepted lands both
players in its game, declined or lapsed it tells both; the limits (a flood refused, the caps
on challenges waiting, made and received); whose challenges a player takes (nobody, the
players they follow); a blocked player can neither challenge nor chat; the online list; and a
challenge crossing two server processes within a second."""

from __future__ import annotations

import contextlib
import time

from sqlalchemy import insert

from protocol import (
    CHALLENGES_IN,
    CHALLENGES_OUT,
    CHALLENGES_PER_MINUTE,
    MAX_FOLLOWS,
    AllowChallenges,
    AnswerChallenge,
    Block,
    Challenge,
    ChallengeEnd,
    ChallengeOffer,
    Chat,
    Error,
    ErrorCode,
    Follow,
    GetOnline,
    Message,
    Online,
    Social,
    TimeControl,
    Update,
    Watch,
)
from protocol.client import Client
from server.archive.db import tables
from server.embedded import RedisProcess
from tests.server.conftest import Running, free_port
from tests.server.support import ServerProcess, running_all, signed_up
from tests.support import until

CLOCK = TimeControl("clock", 300, 5)


async def refusal(client: Client, message: Message) -> Error:
    await client.send(message)
    return await client.expect(Error)


async def offered(client: Client, message: Challenge) -> ChallengeOffer:
    await client.send(message)
    return await client.expect(ChallengeOffer)


async def test_a_challenge_accepted_starts_the_game_with_both_players_in_it(srv: Running) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        offer = await offered(ann, Challenge("BOB", time=CLOCK, color="white", rated=True))
        assert (offer.challenger, offer.challenged, offer.rated) == ("ann", "bob", True)
        assert await bob.expect(ChallengeOffer) == offer
        await bob.send(AnswerChallenge(offer.id, "accept"))
        state = (await bob.expect(Update)).state  # the accepter watches it at once
        ended = await bob.expect(ChallengeEnd)
        assert ended.outcome == "accepted" and ended.game == state.id
        assert await ann.expect(ChallengeEnd) == ended
        assert state.status == "live" and state.rated
        assert state.white is not None and state.white.name == "ann"
        assert state.black is not None and state.black.name == "bob"
        await ann.send(Watch(ended.game))
        assert (await ann.expect(Update)).state.id == ended.game
        refused = await refusal(bob, AnswerChallenge(offer.id, "accept"))
        assert refused.code == ErrorCode.NOT_OPEN


async def test_a_challenge_declined_or_withdrawn_tells_both_and_only_its_players_answer(
    srv: Running,
) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        offer = await offered(ann, Challenge("bob"))
        await bob.expect(ChallengeOffer)
        refused = await refusal(ann, AnswerChallenge(offer.id, "accept"))
        assert refused.code == ErrorCode.NOT_ALLOWED
        await bob.send(AnswerChallenge(offer.id, "decline"))
        for client in (ann, bob):
            assert (await client.expect(ChallengeEnd)).outcome == "declined"
        offer = await offered(ann, Challenge("bob"))
        async with Client.connect(srv.ws_url, token=bob.welcome.token) as again:
            await again.send(GetOnline())  # a connection made since: told what waits
            assert await again.expect(ChallengeOffer) == offer
            await again.expect(Online)
        await ann.send(AnswerChallenge(offer.id, "withdraw"))
        for client in (ann, bob):
            end = await client.expect(ChallengeEnd)
            assert (end.id, end.outcome) == (offer.id, "withdrawn")


async def test_a_challenge_lapses_and_both_are_told(srv: Running) -> None:
    srv.hub.challenges.seconds = 1.0
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        offer = await offered(ann, Challenge("bob"))
        assert offer.expires - int(time.time() * 1000) <= 1000
        for client in (bob, ann):
            end = await client.expect(ChallengeEnd, timeout=5)
            assert (end.id, end.outcome) == (offer.id, "expired")
        refused = await refusal(bob, AnswerChallenge(offer.id, "accept"))
        assert refused.code == ErrorCode.NOT_OPEN
        assert "no longer open" in refused.message


async def test_a_challenger_who_stays_away_has_their_challenges_withdrawn(srv: Running) -> None:
    """A challenger whose last connection closed and who is back before ``gone_ms`` (a page
    reloaded) keeps their challenge; one who stays away has it withdrawn, both told."""
    challenges = srv.hub.challenges
    challenges.gone_ms = 3_600_000  # (no withdrawal while ann leaves and comes back)
    async with signed_up(srv.ws_url, "bob") as bob:
        async with signed_up(srv.ws_url, "ann") as ann:
            offer = await offered(ann, Challenge("bob"))
            await bob.expect(ChallengeOffer)
            player, token = ann.welcome.player, ann.welcome.token
        await until(lambda: player in challenges.departed, "ann's departure noted")
        async with Client.connect(srv.ws_url, token=token) as ann:
            challenges.gone_ms = 0  # her departure looked at now: she is back
            await until(lambda: player not in challenges.departed, "ann's departure looked at")
            waiting = await srv.hub.store.waiting_for(player, int(time.time() * 1000))
            assert [o.id for o in waiting] == [offer.id]
        end = await bob.expect(ChallengeEnd, timeout=5)  # gone again, and this time away
        assert (end.id, end.outcome) == (offer.id, "withdrawn")
        refused = await refusal(bob, AnswerChallenge(offer.id, "accept"))
        assert refused.code == ErrorCode.NOT_OPEN


async def test_a_flood_of_challenges_is_refused_with_a_clear_error(srv: Running) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        for _ in range(CHALLENGES_PER_MINUTE):
            offer = await offered(ann, Challenge("bob"))
            await ann.send(AnswerChallenge(offer.id, "withdraw"))
            await ann.expect(ChallengeEnd)
        refused = await refusal(ann, Challenge("bob"))
        assert refused.code == ErrorCode.RATE_LIMITED
        assert refused.message == "at most 10 challenge requests in 60 s; wait a little"
        assert refused.request == "challenge"
        del bob


async def test_challenges_waiting_are_capped_for_who_makes_and_who_is_sent_them(
    srv: Running,
) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        for _ in range(CHALLENGES_OUT):
            await offered(ann, Challenge("bob"))
        refused = await refusal(ann, Challenge("bob"))
        assert refused.code == ErrorCode.NOT_ALLOWED
        assert "3 challenges waiting for an answer (the most allowed)" in refused.message
        async with contextlib.AsyncExitStack() as stack:
            sent = CHALLENGES_OUT
            guests = []
            while sent < CHALLENGES_IN:
                guest = await stack.enter_async_context(
                    Client.connect(srv.ws_url, nickname=f"g{sent}")
                )
                await offered(guest, Challenge("bob"))
                guests.append(guest)
                sent += 1
            one_more = await stack.enter_async_context(Client.connect(srv.ws_url, nickname="gx"))
            refused = await refusal(one_more, Challenge("bob"))
            assert refused.code == ErrorCode.NOT_ALLOWED
            assert refused.message == "bob has 10 challenges to answer already: try later"
        del bob


async def test_challenges_off_or_only_from_the_players_followed(srv: Running) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        await bob.send(AllowChallenges("nobody"))
        assert (await bob.expect(Social)).allow == "nobody"
        refused = await refusal(ann, Challenge("bob"))
        assert (refused.code, refused.message) == (
            ErrorCode.NOT_ALLOWED,
            "bob does not take challenges from you",
        )
        await bob.send(AllowChallenges("followed"))
        assert (await bob.expect(Social)).allow == "followed"
        refused = await refusal(ann, Challenge("bob"))
        assert refused.message == (
            "bob does not take challenges from you (only from players they follow)"
        )
        await bob.send(Follow("Ann"))
        social = await bob.expect(Social)
        assert (social.following, social.blocked) == (["ann"], [])
        offer = await offered(ann, Challenge("bob"))
        assert (await bob.expect(ChallengeOffer)).id == offer.id
        async with Client.connect(srv.ws_url, nickname="guest") as guest:
            refused = await refusal(guest, Challenge("bob"))
            assert refused.code == ErrorCode.NOT_ALLOWED  # a guest is followed by nobody
            refused = await refusal(guest, Follow("bob"))
            assert refused.code == ErrorCode.ACCOUNT_REQUIRED


async def test_a_blocked_player_can_neither_challenge_nor_chat(srv: Running) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        offer = await offered(ann, Challenge("bob"))
        await bob.send(AnswerChallenge(offer.id, "accept"))
        game = (await bob.expect(ChallengeEnd)).game
        assert game is not None
        await ann.send(Watch(game))
        await ann.expect(Update)
        await ann.send(Chat(game, "hello"))
        assert (await bob.expect(Update)).events[-1].text == "hello"
        await bob.send(Block("ann"))
        assert (await bob.expect(Social)).blocked == ["ann"]
        refused = await refusal(ann, Chat(game, "hello again"))
        assert (refused.code, refused.message) == (
            ErrorCode.NOT_ALLOWED,
            "a player of this game has blocked you",
        )
        refused = await refusal(ann, Challenge("bob"))
        assert (refused.code, refused.message) == (
            ErrorCode.NOT_ALLOWED,
            "bob does not take challenges from you",
        )
        await bob.send(Block("ann", block=False))
        assert (await bob.expect(Social)).blocked == []
        await offered(ann, Challenge("bob"))


async def test_follows_are_capped_and_named_accounts_only(srv: Running) -> None:
    async with signed_up(srv.ws_url, "ann") as ann:
        refused = await refusal(ann, Follow("nobody-here"))
        assert refused.code == ErrorCode.UNKNOWN_PLAYER
        refused = await refusal(ann, Follow("ann"))
        assert (refused.code, refused.message) == (
            ErrorCode.NOT_ALLOWED,
            "you cannot follow yourself",
        )
        refused = await refusal(ann, Challenge("<b>x</b>"))
        assert refused.code == ErrorCode.UNKNOWN_PLAYER
        assert ann.welcome.limits.follows == MAX_FOLLOWS
        assert ann.welcome.limits.challenges_per_minute == CHALLENGES_PER_MINUTE
        async with signed_up(srv.ws_url, "bob"):
            pass
        # Ann follows MAX_FOLLOWS accounts (written straight to the database: signing that
        # many up would take minutes), then one more is refused; unfollowing makes room.
        others = [f"p{n:03}" for n in range(MAX_FOLLOWS)]
        async with srv.hub.database.engine.begin() as connection:
            await connection.execute(
                insert(tables.accounts),
                [
                    {
                        "player": name,
                        "name": name,
                        "name_key": name,
                        "password": None,
                        "bot": False,
                        "created": 0,
                        "password_changed": 0,
                    }
                    for name in others
                ],
            )
            await connection.execute(
                insert(tables.follows),
                [{"follower": ann.player, "followed": name, "created": 0} for name in others],
            )
        refused = await refusal(ann, Follow("bob"))
        assert (refused.code, refused.message) == (
            ErrorCode.NOT_ALLOWED,
            "you follow 200 players (the most allowed)",
        )
        await ann.send(Follow("p000", follow=False))
        assert len((await ann.expect(Social)).following) == MAX_FOLLOWS - 1
        await ann.send(Follow("bob"))
        assert "bob" in (await ann.expect(Social)).following


async def test_the_online_list_shows_who_is_on_and_who_plays(srv: Running) -> None:
    async with signed_up(srv.ws_url, "ann") as ann, signed_up(srv.ws_url, "bob") as bob:
        async with signed_up(srv.ws_url, "cy") as cy:
            await cy.send(GetOnline())
            await cy.expect(Social)
            online = await cy.expect(Online)
            assert [p.name for p in online.players] == ["ann", "bob", "cy"]
            assert not any(p.playing for p in online.players)
            await cy.send(Follow("ann"))
            await cy.expect(Social)
            offer = await offered(ann, Challenge("bob"))
            await bob.send(AnswerChallenge(offer.id, "accept"))
            game = (await bob.expect(ChallengeEnd)).game

            async def playing() -> Online | None:
                await cy.send(GetOnline())
                found = await cy.expect(Online)
                return found if found.games else None

            online = await until(playing, "ann's game listed for cy, who follows her")
            assert [g.id for g in online.games] == [game]
            assert {p.name: p.playing for p in online.players} == {
                "ann": True,
                "bob": True,
                "cy": False,
            }
        await ann.send(GetOnline())
        await ann.expect(Social)
        names = await until(lambda: _names(ann), "cy gone from the online list", timeout=10)
        assert names == ["ann", "bob"]


async def _names(client: Client) -> list[str] | None:
    await client.send(GetOnline())
    await client.expect(Social)
    online = await client.expect(Online)
    names = [p.name for p in online.players]
    return names if "cy" not in names else None


async def test_a_challenge_reaches_its_player_on_another_process_within_a_second(
    redis_server: RedisProcess,
) -> None:
    data = str(redis_server.folder.parent / "data")
    servers = [
        ServerProcess(
            *("--port", str(free_port()), "--redis-url", redis_server.url, "--data", data),
            *("--bot-workers", "1"),
        )
        for _ in range(2)
    ]
    async with running_all(servers):
        first, second = servers[0].ws_url, servers[1].ws_url
        async with signed_up(first, "ann") as ann, signed_up(second, "bob") as bob:
            await until(lambda: _online_on(ann, "bob"), "bob seen online from ann's process")
            sent = time.monotonic()
            await ann.send(Challenge("bob"))
            offer = await bob.expect(ChallengeOffer, timeout=1.0)
            assert time.monotonic() - sent < 1.0
            assert offer.challenger == "ann"
            await bob.send(AnswerChallenge(offer.id, "accept"))
            ended = await ann.expect(ChallengeEnd, timeout=1.0)
            assert ended.outcome == "accepted" and ended.game is not None
            await ann.send(Watch(ended.game))
            state = (await ann.expect(Update)).state
            assert state.status == "live"
            assert {
                state.white.name if state.white else None,
                state.black.name if state.black else None,
            } == {"ann", "bob"}


async def _online_on(client: Client, name: str) -> bool:
    await client.send(GetOnline())
    await client.expect(Social)
    online = await client.expect(Online)
    return name in [p.name for p in online.players]
