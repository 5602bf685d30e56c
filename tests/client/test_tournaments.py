"""Tournaments in Chromium (issue 39; client/js/tournaments.js, tournament.js): an arena made
through the form and listed on the lobby, two players joining through its page and sent to
each game the server pairs them in, the games played to their end by resigning through the
game page, a spectator's page showing the standings live, by the rules
(``server.game.arena``: points, the streak marked, the winner at the end); a bad value refused
beside the form with nothing typed lost, a hostile name shown as text, the page reached from
the phone's ☰ menu, a guest told to sign up; an arena of people and bot accounts run by
``hive-bot`` to its end, watched live; a Swiss of seven, its byes to the lowest ranked of
those with the fewest, a no-show paused until he comes back through his page, on a
spectator's page and on the pages of the first bye and of the no-show."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Sequence

import pytest
from playwright.async_api import Browser, Locator, Page, expect
from playwright.async_api import Error as PlaywrightError

from protocol import (
    Color,
    CreateTournament,
    JoinTournament,
    Play,
    Resign,
    TimeControl,
    Tournament,
    Update,
    Watch,
)
from protocol.client import Client
from server.game import swiss
from server.game.arena import game_points, scores_of
from server.live import rounds
from server.storage.tournaments import SwissRound
from tests.client.support import Person
from tests.server.conftest import Running, StartServer
from tests.server.support import hive_bot, signed_up
from tests.support import until

pytestmark = pytest.mark.browser

EVIL = "<img src=x onerror=alert(1)>"


async def open_as(
    browser: Browser, srv: Running, client: Client, path: str = "/", *, phone: bool = False
) -> Person:
    """A page signed in to ``client``'s account, at ``path``."""
    return await Person.open(
        browser,
        base=srv.http_url,
        nickname=client.welcome.nickname,
        path=path,
        token=client.welcome.token,
        phone=phone,
    )


async def fill(page: Page, **fields: str) -> None:
    """Type ``fields`` into the tournament form (by input name)."""
    form = page.get_by_test_id("tournament-form")
    for name, value in fields.items():
        await form.locator(f"[name={name}]").fill(value)


async def game_on_show(page: Page, other_than: str | None = None) -> str:
    """The game the page was sent to (``#/game/ID``), once it shows it started."""
    pattern = re.compile(r"#/game/[0-9a-z]{8}$")
    await expect(page).to_have_url(pattern)
    if other_than is not None:
        await expect(page).not_to_have_url(re.compile(f"#/game/{other_than}$"))
    await expect(page.locator("[data-testid=game][data-version]")).to_have_count(1)
    found = await page.evaluate("location.hash")
    assert isinstance(found, str)
    return found.removeprefix("#/game/")


async def resign(page: Page) -> None:
    await page.get_by_test_id("resign").click()
    await page.get_by_test_id("resign-confirm").click()


async def shown(page: Page, name: str) -> tuple[str, list[str]]:
    """A player's points and game points as the standings show them."""
    row = page.locator(f"[data-testid=standing][data-name={name}]")
    points = await row.get_attribute("data-points") or ""
    scores = await row.locator("[data-testid=scores] .score").all_text_contents()
    return points, [s.strip() for s in scores]


async def names_of(rows: Locator) -> list[str]:
    found: list[str] = await rows.evaluate_all("rs => rs.map(r => r.dataset.name)")
    return found


async def test_an_arena_joined_played_and_watched_live(srv: Running, browser: Browser) -> None:
    async with (
        signed_up(srv.ws_url, "ann") as ann_client,
        signed_up(srv.ws_url, "bob") as bob_client,
    ):
        ann = await open_as(browser, srv, ann_client)
        bob = await open_as(browser, srv, bob_client)
        # Ann makes an arena through the form (from the lobby's card): its page opens
        await ann.page.get_by_test_id("all-tournaments").click()
        await fill(ann.page, name="Friday blitz", minutes="30")
        await ann.page.get_by_test_id("tournament-type").select_option("Base")
        await ann.page.get_by_test_id("tournament-casual").check()
        await ann.page.get_by_test_id("tournament-create").click()
        await expect(ann.page).to_have_url(re.compile(r"#/tournament/[0-9a-f]{8}$"))
        tournament = (await ann.page.evaluate("location.hash")).removeprefix("#/tournament/")
        await expect(ann.page.get_by_test_id("tournament-title")).to_have_text("Friday blitz")
        # a guest watches it, from the lobby's list
        spectator = await Person.open(browser, srv.http_url, "cy")
        view = spectator.page
        card = view.get_by_test_id("lobby-tournaments")
        row = card.locator(f"[data-testid=tournament-row][data-id='{tournament}']")
        await row.get_by_test_id("tournament-link").click()
        await expect(view.get_by_test_id("tournament-title")).to_have_text("Friday blitz")
        await expect(view.get_by_test_id("tournament-join")).to_have_count(0)  # a guest's
        await expect(view.get_by_test_id("tournament-clock")).to_contain_text("ends in")
        # both join through its page; each is sent to the game the arena pairs them in
        await ann.page.get_by_test_id("tournament-join").click()
        await expect(view.locator("[data-testid=standing]")).to_have_count(1)
        await bob.page.goto(f"{srv.http_url}/#/tournament/{tournament}")
        await bob.page.get_by_test_id("tournament-join").click()
        game = await game_on_show(ann.page)
        assert await game_on_show(bob.page) == game
        link = ann.page.get_by_test_id("game-tournament")  # the game says whose it is
        await expect(link).to_have_text("Friday blitz")
        await expect(link).to_have_attribute("href", f"#/tournament/{tournament}")
        # the spectator sees the game in progress, with a link to watch it
        games = view.get_by_test_id("tournament-game")
        await expect(games).to_have_count(1)
        await expect(games.get_by_test_id("watch-game")).to_have_attribute("href", f"#/game/{game}")
        await expect(view.locator("[data-testid=standing][data-status=playing]")).to_have_count(2)
        # Bob resigns three games: Ann wins each, the third on a streak (doubled)
        expected: list[float] = []
        for n in range(3):
            if n == 2:  # the last game: the arena ends meanwhile, and is over once it ends
                await srv.hub.tournaments.tournaments.end_at(tournament, int(time.time() * 1000))
            await resign(bob.page)
            expected.append(1.0)
            points = game_points(expected)
            await expect(view.locator("[data-testid=standing][data-name=ann]")).to_have_attribute(
                "data-points", str(sum(points))
            )
            assert await shown(view, "ann") == (str(sum(points)), [str(p) for p in points])
            assert await shown(view, "bob") == ("0", ["0"] * (n + 1))
            if n < 2:
                streak = view.locator("[data-testid=standing][data-name=ann] [data-testid=streak]")
                await expect(streak).to_have_count(1 if n == 1 else 0)
                game = await game_on_show(bob.page, other_than=game)
        doubled = view.locator("[data-testid=standing][data-name=ann] [data-doubled=true]")
        await expect(doubled).to_have_count(1)
        assert await doubled.text_content() == "4"
        await expect(view.get_by_test_id("tournament")).to_have_attribute("data-status", "over")
        await expect(view.get_by_test_id("tournament-winner")).to_have_text("Winner: ann")
        await expect(view.get_by_test_id("tournament-clock")).to_have_text("Over")
        rows = view.locator("[data-testid=standing]")
        assert await names_of(rows) == ["ann", "bob"]
        # the last game's page leads back to the tournament, over
        await bob.page.get_by_test_id("back-to-tournament").click()
        await expect(bob.page.get_by_test_id("tournament-winner")).to_have_text("Winner: ann")
        await expect(bob.page.get_by_test_id("tournament-join")).to_have_count(0)
        for person in (ann, bob, spectator):
            assert person.errors == []
            await person.close()


async def test_the_form_shows_refusals_keeps_what_was_typed_and_names_are_text(
    srv: Running, browser: Browser
) -> None:
    guest = await Person.open(browser, srv.http_url, "dan", "/#/tournaments")
    await expect(guest.page.get_by_test_id("tournament-who")).to_contain_text("Sign up or log in")
    await expect(guest.page.get_by_test_id("tournament-create")).to_be_disabled()
    await guest.close()
    async with signed_up(srv.ws_url, "ann") as ann_client:
        ann = await open_as(browser, srv, ann_client, phone=True)
        page = ann.page
        alerts: list[str] = []
        page.on("dialog", lambda dialog: alerts.append(dialog.message))
        # on a phone, from the ☰ menu
        await page.get_by_test_id("site-menu").click()
        await page.get_by_test_id("menu-tournaments").click()
        await expect(page.get_by_test_id("tournament-form")).to_be_visible()
        # a duration out of bounds: the server's refusal beside the form, nothing lost
        await fill(page, name=EVIL, minutes="2", max_players="12")
        await page.get_by_test_id("tournament-create").click()
        error = page.get_by_test_id("tournament-error")
        await expect(error).to_have_text("an arena lasts 5 to 1440 minutes")
        await expect(page).to_have_url(re.compile(r"#/tournaments$"))
        form = page.get_by_test_id("tournament-form")
        await expect(form.locator("[name=name]")).to_have_value(EVIL)
        await expect(form.locator("[name=max_players]")).to_have_value("12")
        # corrected: made, its hostile name shown as text on its page and in the list
        await fill(page, minutes="45")
        await page.get_by_test_id("tournament-create").click()
        await expect(page).to_have_url(re.compile(r"#/tournament/[0-9a-f]{8}$"))
        await expect(page.get_by_test_id("tournament-title")).to_have_text(EVIL)
        evil_id = (await page.evaluate("location.hash")).removeprefix("#/tournament/")
        await expect(page.get_by_test_id("tournament-players")).to_have_text("0 / 12 players")
        await expect(page.get_by_test_id("tournament-clock")).to_contain_text("ends in")
        await page.get_by_test_id("tournament-join").click()
        await expect(page.locator("[data-testid=standing][data-name=ann]")).to_have_count(1)
        await expect(page.get_by_test_id("tournament-leave")).to_have_text("Pause")
        await page.get_by_test_id("tournament-leave").click()  # running: paused
        await expect(page.locator("[data-testid=standing][data-name=ann]")).to_have_attribute(
            "data-status", "paused"
        )
        # an arena for ratings up to 1000: Ann (1500) is refused, and told why, on its page
        clock = TimeControl("clock", 180, 2)
        await ann_client.send(
            CreateTournament(name="Low", game_type="Base", time=clock, rating_max=1000)
        )
        made = await ann_client.expect(Tournament)
        while made.summary.name != "Low":  # (the news of the arena she is in, meanwhile)
            made = await ann_client.expect(Tournament)
        low = made.summary.id
        await page.goto(f"{srv.http_url}/#/tournament/{low}")
        await page.get_by_test_id("tournament-join").click()
        await expect(page.get_by_test_id("tournament-error")).to_have_text(
            "this tournament is for ratings -1000; yours is 1500"
        )
        await expect(page.locator("[data-testid=standing]")).to_have_count(0)
        await page.goto(f"{srv.http_url}/#/tournaments")
        row = page.locator(f"[data-testid=tournament-row][data-id='{evil_id}']")
        await expect(row.get_by_test_id("tournament-link")).to_have_text(EVIL)
        assert await page.locator("main img").count() == 0
        assert alerts == [] and ann.errors == []
        await ann.close()


async def test_a_swiss_made_for_later_counts_down_then_plays_its_rounds(
    srv: Running, browser: Browser
) -> None:
    async with (
        signed_up(srv.ws_url, "ann") as ann_client,
        signed_up(srv.ws_url, "bob") as bob_client,
        signed_up(srv.ws_url, "cy") as cy_client,
    ):
        ann = await open_as(browser, srv, ann_client, "/#/tournaments")
        page = ann.page
        # a Swiss of 3 rounds, starting in an hour (the browser's local time)
        later = await page.evaluate(
            """() => {
              const d = new Date(Date.now() + 3600e3 - new Date().getTimezoneOffset() * 60e3);
              return d.toISOString().slice(0, 16);
            }"""
        )
        await page.get_by_test_id("kind-swiss").check()
        await fill(page, name="Sunday Swiss", rounds="3", starts=later)
        await page.get_by_test_id("tournament-type").select_option("Base")
        await page.get_by_test_id("tournament-casual").check()
        await page.get_by_test_id("tournament-create").click()
        await expect(page).to_have_url(re.compile(r"#/tournament/[0-9a-f]{8}$"))
        tournament = (await page.evaluate("location.hash")).removeprefix("#/tournament/")
        await expect(page.get_by_test_id("tournament")).to_have_attribute("data-status", "upcoming")
        clock = page.get_by_test_id("tournament-clock")
        # (the form takes minutes: the start is 59 to 60 min away, less the time the test took)
        await expect(clock).to_have_text(re.compile(r"^Starts in (5[89] min \d\d s|1 h 00 min)$"))
        stored = await srv.hub.tournaments.tournaments.arena(tournament)
        assert stored is not None
        left = stored[0].starts / 1000 - time.time()
        shown_left = re.fullmatch(
            r"Starts in (5[89]) min (\d\d) s|Starts in 1 h 00 min", await clock.text_content() or ""
        )
        assert shown_left is not None
        seconds = 3600 if shown_left[1] is None else 60 * int(shown_left[1]) + int(shown_left[2])
        assert abs(seconds - left) < 5, (seconds, left)
        await expect(page.get_by_test_id("tournament-settings")).to_contain_text("Swiss, 3 rounds")
        # joined, left (before its start: off its list), joined again
        await page.get_by_test_id("tournament-join").click()
        await expect(page.get_by_test_id("tournament-leave")).to_have_text("Leave")
        await page.get_by_test_id("tournament-leave").click()
        await expect(page.locator("[data-testid=standing]")).to_have_count(0)
        await expect(page.get_by_test_id("tournament-join")).to_have_text("Join")
        await page.get_by_test_id("tournament-join").click()
        await expect(page.locator("[data-testid=standing][data-name=ann]")).to_have_count(1)
        for client in (bob_client, cy_client):
            await client.send(JoinTournament(tournament))
        spectator = await Person.open(browser, srv.http_url, "dan", f"/#/tournament/{tournament}")
        view = spectator.page
        await expect(view.locator("[data-testid=standing]")).to_have_count(3)
        # it starts: round 1, one game and a bye
        await srv.hub.tournaments.tournaments.start_at(tournament, int(time.time() * 1000))
        await expect(view.get_by_test_id("tournament-clock")).to_have_text("Round 1 of 3")
        games = view.get_by_test_id("tournament-game")
        await expect(games).to_have_count(1)
        game = await games.get_attribute("data-game") or ""
        players = (await games.text_content() or "").split("Watch")[0].strip().split(" – ")
        bye = ({"ann", "bob", "cy"} - set(players)).pop()
        await expect(view.locator(f"[data-testid=standing][data-name={bye}]")).to_have_attribute(
            "data-points", "1"
        )
        # the game's loser resigns (bob or cy, from Python): the winner has 1, the loser 0
        loser = "bob" if "bob" in players else "cy"
        winner = next(p for p in players if p != loser)
        client = bob_client if loser == "bob" else cy_client
        await client.send(Watch(game))
        await client.send(Resign(game))
        await expect(view.get_by_test_id("tournament-clock")).to_have_text("Round 2 of 3")
        await expect(view.get_by_test_id("tournament-game")).to_have_count(1)  # round 2's
        playing = view.locator("[data-testid=standing][data-status=playing]")
        await expect(playing).to_have_count(2)
        second_bye = ({"ann", "bob", "cy"} - set(await names_of(playing))).pop()
        assert second_bye != bye  # never twice to one player while avoidable
        for name, byes in ((bye, "1 bye"), (second_bye, "1 bye")):  # (a bye's 1 is told apart)
            row = view.locator(f"[data-testid=standing][data-name={name}]")
            await expect(row.get_by_test_id("byes")).to_have_text(byes)
        others = ({"ann", "bob", "cy"} - {bye, second_bye}).pop()
        await expect(
            view.locator(f"[data-testid=standing][data-name={others}]").get_by_test_id("byes")
        ).to_have_count(0)
        for name, first in ((winner, "1"), (bye, "1"), (loser, "0")):
            row = view.locator(f"[data-testid=standing][data-name={name}]")
            await expect(row.locator("[data-testid=scores] .score").first).to_have_text(first)
            want = str(sum(float(s) for s in (await shown(view, name))[1]))
            assert float(await row.get_attribute("data-points") or "") == float(want)
        for person in (ann, spectator):
            assert person.errors == []
            await person.close()


async def play_through_pages(person: Person, games: list[str], over: asyncio.Event) -> None:
    """Resign every game the arena sends ``person``'s page to (recorded in ``games``) until
    ``over``, again until the game shows its result (a failed click left it to its clock, and
    the arena's end waited for it). When two people meet, one resigns; the other's
    resignation finds the game over."""
    page = person.page
    shown = page.locator("[data-testid=game][data-version]")
    while not over.is_set():
        other = f"(?!{games[-1]}$)" if games else ""
        try:
            await expect(page).to_have_url(
                re.compile(rf"#/game/{other}[0-9a-z]{{8}}$"), timeout=500
            )
            await expect(shown).to_have_count(1)
        except AssertionError:
            continue  # (not sent to a new game yet)
        game_id = (await page.evaluate("location.hash")).removeprefix("#/game/")
        games.append(game_id)
        while not over.is_set():  # resigned again until the game is over (a click may fail)
            with contextlib.suppress(PlaywrightError):
                await page.get_by_test_id("resign").click(timeout=2000)
                await page.get_by_test_id("resign-confirm").click(timeout=2000)
            with contextlib.suppress(AssertionError):
                await expect(page.get_by_test_id("result")).to_be_visible(timeout=2000)
                break
            if not page.url.endswith(f"#/game/{game_id}"):
                break  # (sent on to its next game)


async def test_an_arena_of_people_and_bots_runs_to_its_end(
    start_server: StartServer, browser: Browser
) -> None:
    """Eight players: two people through their pages (resigning each game) and six bot
    accounts run by ``hive-bot --level beginner --tournament ID`` (fewer pages and more bots:
    a browser context costs more than a bot on a 2-core machine); a spectator's page shows the
    live standings, which end as the rules (``server.game.arena``) make them of the games
    played."""
    async with (
        start_server(message_rate=1000.0, message_burst=1000) as srv,
        signed_up(srv.ws_url, "ann") as ann_client,
        signed_up(srv.ws_url, "bob") as bob_client,
    ):
        clock = TimeControl("clock", 60, 0)
        await ann_client.send(CreateTournament("Bots and people", "Base", clock, rated=False))
        tournament = (await ann_client.expect(Tournament)).summary.id
        names = [f"bot{n}" for n in range(6)]
        tokens = [(await srv.hub.store.new_bot(name, 0))[1] for name in names]
        async with contextlib.AsyncExitStack() as stack:
            bots = [
                await stack.enter_async_context(
                    hive_bot(
                        *("--server", srv.ws_url, "--token", token, "--level", "beginner"),
                        *("--tournament", tournament, "--tournament-only"),
                    )
                )
                for token in tokens
            ]
            spectator = await Person.open(
                browser, srv.http_url, "cy", f"/#/tournament/{tournament}"
            )
            view = spectator.page
            people = [await open_as(browser, srv, c) for c in (ann_client, bob_client)]
            await expect(view.locator("[data-testid=standing]")).to_have_count(
                6, timeout=30_000
            )  # the bots
            for person in people:
                await person.page.goto(f"{srv.http_url}/#/tournament/{tournament}")
                await person.page.get_by_test_id("tournament-join").click()
            await expect(view.locator("[data-testid=standing]")).to_have_count(8)
            games: dict[str, list[str]] = {"ann": [], "bob": []}
            over = asyncio.Event()
            async with asyncio.TaskGroup() as group:
                for person, name in zip(people, games, strict=True):
                    group.create_task(play_through_pages(person, games[name], over))
                await expect(
                    view.locator("[data-testid=standing][data-status=playing]")
                ).not_to_have_count(0)
                for bot in bots:
                    await bot.wait_for(r"game \w+ over: ", timeout=60)
                await until(
                    lambda: all(games.values()),
                    lambda: f"both people have a game: {games}",
                    timeout=60,
                )
                await srv.hub.tournaments.tournaments.end_at(tournament, int(time.time() * 1000))
                await expect(view.get_by_test_id("tournament")).to_have_attribute(
                    "data-status", "over", timeout=60_000
                )
                over.set()
            roster = await srv.hub.tournaments.tournaments.roster(tournament)
            named = {player: entrant.name for player, entrant in roster.players.items()}
            scores = {named[p]: s for p, s in scores_of(roster.ended).items()}
            assert sorted(scores) == sorted([*names, "ann", "bob"])  # everyone played
            totals = {name: sum(game_points(s)) for name, s in scores.items()}
            for name, points in totals.items():
                assert await shown(view, name) == (
                    str(points),
                    [str(p) for p in game_points(scores[name])],
                ), name
            order = sorted(totals, key=lambda name: (-totals[name], name))
            assert await names_of(view.locator("[data-testid=standing]")) == order
            await expect(view.get_by_test_id("tournament-winner")).to_have_text(
                f"Winner: {order[0]}"
            )
            for bot in bots:  # --tournament-only: each stops by itself, its games played out
                await bot.wait_for(rf"tournament {tournament} over")
                assert bot.process is not None
                async with asyncio.timeout(30):
                    assert await bot.process.wait() == 0
            for person in (*people, spectator):
                assert person.errors == []
                await person.close()


def number(value: float) -> str:
    """``value`` as the page writes a number (JavaScript's: 1, 0.5, 2.25)."""
    return f"{value:g}"


async def games_shown(view: Page) -> dict[str, set[str]]:
    """The games in progress on a tournament's page: each one's players by its id."""
    games = view.get_by_test_id("tournament-game")
    found = {}
    for game in await games.all():
        players = (await game.text_content() or "").split("Watch")[0].strip().split(" – ")
        found[await game.get_attribute("data-game") or ""] = set(players)
    return found


async def first_move(client: Client, game: str, color: Color = "white") -> None:
    """``client``'s side (``color``) makes its first move of ``game`` once it is its turn."""
    await client.send(Watch(game))
    update = await client.expect(Update)
    while update.game != game or update.state.turn != color or not update.state.legal:
        update = await client.expect(Update)
    await client.send(Play(game, update.version, update.state.legal[0].move))


async def first_moves(white: Client, black: Client, game: str) -> None:
    """Both sides' first moves of ``game``: it no longer waits for them (nor aborts)."""
    await first_move(white, game)
    await first_move(black, game, "black")


def bye_due(ratings: dict[str, float], played: Sequence[SwissRound]) -> str | None:
    """The bye of the next round by the rules (``server.game.swiss``'s docstring), for the
    players paired (``ratings``: each one's, by id) after the rounds ``played``, as stored:
    None when they are even; else, of those with the fewest byes, the lowest ranked (fewest
    points, then lowest rating, then the id last in order). Written out here, not asked of
    ``swiss.pair_round``, so that a wrong bye there cannot agree with itself."""
    if len(ratings) % 2 == 0:
        return None
    past = swiss.records(
        swiss.Round(tuple(swiss.Pairing(g.white, g.black, g.score) for g in r.games), r.bye)
        for r in played
    )

    def record(player: str) -> swiss.Record:
        return past.get(player) or swiss.Record()

    fewest = min(record(p).byes for p in ratings)
    due = [p for p in ratings if record(p).byes == fewest]
    return max(due, key=lambda p: (-record(p).points, -ratings[p], p))


async def _paired(srv: Running, tournament: str, number: int) -> list[SwissRound] | None:
    """The rounds stored, once round ``number`` is there and its games made (None before)."""
    played = await srv.hub.tournaments.tournaments.rounds(tournament)
    if len(played) < number:
        return None
    made = await srv.hub.store.get_many(g.game for g in played[number - 1].games)
    return played if len(made) == len(played[number - 1].games) else None


async def test_a_swiss_of_seven_gives_the_bye_to_the_lowest_ranked_and_pauses_a_no_show(
    start_server: StartServer, browser: Browser
) -> None:
    """Seven players (accounts on connections from Python), three rounds, watched on a
    spectator's page. Each round's bye, when the players paired are odd, is the one
    ``bye_due`` names from the rounds stored (of those with the fewest byes, the lowest
    ranked), never twice to one player, and the page shows its point: round 1's on her own
    page too, which then sends her to her game of round 2. The highest ranked at the start
    (so never the bye while another has as few points) does not show in round 1: his own page
    shows his first move awaited, then the game aborted at the first-move timeout; the
    spectator's page his loss, his opponent's win, and him paused (``server.live.rounds``), so
    that round 2 pairs the other six, with no bye. While round 2 is held open (its first
    moves made, no result until then) he joins again through his own page (from the aborted
    game, back to the tournament: "Come back"), and round 3 pairs all seven, him in a game
    (his page sent to it), the bye to one who has had none. Each game otherwise goes to the
    earlier of ``strength``, one player last (losing every game but a bye, so that round 3
    has another with no points, ranked below the no-show). The final standings (order,
    points, each round's score, Buchholz and Sonneborn-Berger, the winner) are
    ``rounds.standings`` of the rounds stored, with the points those results make."""
    names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus"]
    timeout = 3.0  # (round 1's no-show waits it out; every other game's first moves are made)
    async with (
        start_server(first_move_timeout=timeout) as srv,
        contextlib.AsyncExitStack() as stack,
    ):
        clients = {n: await stack.enter_async_context(signed_up(srv.ws_url, n)) for n in names}
        named = {c.player: n for n, c in clients.items()}
        later = int(time.time() * 1000) + 3_600_000  # (started by the test once all joined)
        clock = TimeControl("clock", 180, 2)
        await clients["ann"].send(
            CreateTournament(
                "Seven", "Base", clock, rated=False, starts=later, kind="swiss", rounds=3
            )
        )
        tournament = (await clients["ann"].expect(Tournament)).summary.id
        for client in clients.values():
            await client.send(JoinTournament(tournament))
        store = srv.hub.tournaments.tournaments
        path = f"/#/tournament/{tournament}"
        spectator = await Person.open(browser, srv.http_url, "zed", path)
        view = spectator.page
        await expect(view.locator("[data-testid=standing]")).to_have_count(7)
        roster = await store.roster(tournament)
        ratings = {p: float(e.rating or 1500) for p, e in roster.players.items()}
        assert sorted(named[p] for p in ratings) == names
        no_show = named[min(ratings, key=lambda p: (-ratings[p], p))]  # the highest ranked
        first_bye = named[bye_due(ratings, []) or ""]
        assert first_bye != no_show
        absent = await open_as(browser, srv, clients[no_show], path)
        bye_page = await open_as(browser, srv, clients[first_bye], path)
        people = [spectator, absent, bye_page]
        for person in people[1:]:
            await expect(person.page.locator("[data-testid=standing]")).to_have_count(7)
        await store.start_at(tournament, int(time.time() * 1000))

        byes: list[str] = []
        points = dict.fromkeys(names, 0.0)  # by the results the test makes
        results: dict[str, float] = {}  # White's score in each game, by the test's rules
        strength = list(names)  # (its last player set once round 1 is paired)

        async def begin(number_: int, playing: list[str]) -> tuple[SwissRound, dict[str, set[str]]]:
            """Round ``number_``, paired among ``playing``: its first moves made (but the
            no-show's in round 1), its games and bye as the rules and the page say."""
            # Its first moves made as soon as it is paired (the page looked at after: a slow
            # page must not let a game of it reach the first-move timeout).
            played = await until(
                lambda: _paired(srv, tournament, number_),
                f"round {number_} paired",
            )
            assert len(played) == number_
            stored = played[-1]
            async with asyncio.TaskGroup() as group:  # (each client in one game of it)
                for g in stored.games:
                    white, black = clients[named[g.white]], clients[named[g.black]]
                    if number_ > 1 or no_show not in (named[g.white], named[g.black]):
                        group.create_task(first_moves(white, black, g.game))
                    elif named[g.black] == no_show:  # White moves: then his turn, never taken
                        group.create_task(first_move(white, g.game))
            await expect(view.get_by_test_id("tournament-clock")).to_have_text(
                f"Round {number_} of 3"
            )
            games = await games_shown(view)
            assert games == {g.game: {named[g.white], named[g.black]} for g in stored.games}
            idle = set(playing).difference(*games.values())  # the bye, as the page shows it
            due = bye_due({p: ratings[p] for p in ratings if named[p] in playing}, played[:-1])
            assert stored.bye == due, (number_, stored.bye and named[stored.bye], due)
            assert idle == ({named[due]} if due else set())
            if due is not None:  # the lowest ranked of the fewest byes: on the page, its point
                bye = named[due]
                assert bye != no_show and bye not in byes, (number_, bye, byes)
                byes.append(bye)
                points[bye] += 1
                row = view.locator(f"[data-testid=standing][data-name={bye}]")
                await expect(row).to_have_attribute("data-points", number(points[bye]))
                await expect(row.locator("[data-testid=scores] .score").last).to_have_text("1")
                await expect(row).to_have_attribute("data-status", "waiting")
            return stored, games

        async def finish(stored: SwissRound, aborted: str = "") -> None:
            """Each game of ``stored`` to the earlier of ``strength`` (the other resigns), but
            ``aborted``, the no-show's, to his opponent."""
            for pairing in stored.games:
                white, black = named[pairing.white], named[pairing.black]
                if pairing.game == aborted:
                    winner = black if white == no_show else white
                else:
                    winner = min(white, black, key=strength.index)
                    loser = black if winner == white else white
                    await clients[loser].send(Resign(pairing.game))
                points[winner] += 1
                results[pairing.game] = 1.0 if winner == white else 0.0

        # round 1: a bye, the no-show in a game, his page sent to it and waiting for his move
        stored, games = await begin(1, names)
        assert byes == [first_bye]
        mine = bye_page.page.locator("[data-testid=standing].me")  # her point, on her page
        await expect(mine).to_have_attribute("data-name", first_bye)
        await expect(mine.locator("[data-testid=scores] .score")).to_have_text(["1"])
        await expect(bye_page.page).to_have_url(re.compile(f"{path}$"))
        (aborted,) = (g for g, players in games.items() if no_show in players)
        opponent = (games[aborted] - {no_show}).pop()
        await expect(absent.page).to_have_url(re.compile(f"#/game/{aborted}$"))
        await expect(absent.page.get_by_test_id("first-move")).to_contain_text("Your first move")
        weakest = max(n for g, players in games.items() if g != aborted for n in players)
        strength = [no_show, *(n for n in names if n not in (no_show, weakest)), weakest]
        await finish(stored, aborted)

        # round 2: his game aborted at the timeout, lost; he is paused; the other six paired
        stored, games = await begin(2, [n for n in names if n != no_show])
        assert stored.bye is None and len(games) == 3
        record = await srv.hub.store.get(aborted)
        assert record is not None and record.reason == "aborted" and record.ended
        assert record.result is None
        assert record.ended - record.turn_started >= timeout * 1000
        assert record.white is not None
        assert len(record.moves) == (0 if named[record.white.player] == no_show else 1)
        absent_row = view.locator(f"[data-testid=standing][data-name={no_show}]")
        await expect(absent_row).to_have_attribute("data-status", "paused")
        assert await shown(view, no_show) == ("0", ["0"])
        assert (await shown(view, opponent))[1][0] == "1"
        hers = next(g for g, players in games.items() if first_bye in players)
        await expect(bye_page.page).to_have_url(re.compile(f"#/game/{hers}$"))
        # ... and, round 2 held open, he comes back through his own page
        page = absent.page
        await expect(page.get_by_test_id("status")).to_have_text("Game aborted")
        await expect(page.get_by_test_id("result")).to_have_attribute("data-reason", "aborted")
        await expect(page.get_by_test_id("result")).to_contain_text(
            f"{no_show} did not make a first move in time: paused in the tournament"
        )
        await expect(page).to_have_url(re.compile(f"#/game/{aborted}$"))  # (not sent on)
        await page.get_by_test_id("back-to-tournament").click()
        await expect(page).to_have_url(re.compile(f"{path}$"))
        his = page.locator("[data-testid=standing].me")
        await expect(his).to_have_attribute("data-name", no_show)
        await expect(his).to_have_attribute("data-status", "paused")
        await expect(page.get_by_test_id("tournament-join")).to_have_text("Come back")
        await page.get_by_test_id("tournament-join").click()
        await expect(absent_row).to_have_attribute("data-status", "waiting")
        await expect(his).to_have_attribute("data-status", "waiting")
        await expect(page.get_by_test_id("tournament-leave")).to_have_text("Pause")
        assert len(await store.rounds(tournament)) == 2  # (round 2 still on)
        await expect(view.locator("[data-testid=standing][data-status=playing]")).to_have_count(6)
        await finish(stored)

        # round 3: all seven, him in a game (his page sent to it), a new bye
        stored, games = await begin(3, names)
        assert len(byes) == 2
        (his_game,) = (g for g, players in games.items() if no_show in players)
        await expect(page).to_have_url(re.compile(f"#/game/{his_game}$"))
        await expect(absent_row).to_have_attribute("data-status", "playing")
        await finish(stored)

        await expect(view.get_by_test_id("tournament")).to_have_attribute("data-status", "over")
        stored_rounds = await store.rounds(tournament)
        want = rounds.standings(await store.roster(tournament), stored_rounds)
        assert len(stored_rounds) == 3
        assert [r.bye and named[r.bye] for r in stored_rounds] == [byes[0], None, byes[1]]
        assert {g.game: g.score for r in stored_rounds for g in r.games} == results
        assert {line.name: line.points for line in want} == points
        assert await names_of(view.locator("[data-testid=standing]")) == [w.name for w in want]
        for line in want:
            row = view.locator(f"[data-testid=standing][data-name={line.name}]")
            assert await shown(view, line.name) == (
                number(line.points),
                [number(s) for s in line.scores],
            ), line.name
            assert len(line.scores) == (2 if line.name == no_show else 3), line.name
            tie_breaks = row.locator("[data-testid=points] small")
            assert await tie_breaks.text_content() == (
                f"({number(line.buchholz)}, {number(line.sonneborn_berger)})"
            ), line.name
        await expect(view.get_by_test_id("tournament-winner")).to_have_text(
            f"Winner: {want[0].name}"
        )
        for person in people:
            assert person.errors == []
            await person.close()
