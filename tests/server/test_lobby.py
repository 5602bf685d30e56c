"""The lobby board (``server.live.lobby``): what its subscribers are shown, capped, and what changes
between two looks; and the counts the limits on creating games read."""

from __future__ import annotations

from dataclasses import replace

from protocol import LOBBY_SHOWN, GameSummary, Seat, TimeControl, encode
from protocol.client import apply_change
from server.game import match, view
from server.game.record import Record
from server.live.lobby import LobbyBoard

BOT = Seat("bot:easy", "easy bot", bot="easy", account="bot")


def summary(record: Record) -> GameSummary:
    return view.summary(record, 0)


def no_bots() -> list:  # type: ignore[type-arg]
    return []


def opened(n: int, *, origin: str = "o1", wants: str = "anyone") -> Record:
    return match.create(
        f"{n:08x}",
        Seat(f"p{n}", f"guest{n}"),
        game_type="Base",
        time=TimeControl(),
        color="white",
        now=1000 + n,
        ttl_ms=60_000,
        seed=n,
        wants="bots" if wants == "bots" else "anyone",
        origin=origin,
    )


def test_the_lists_shown_are_capped_and_the_totals_say_how_many_there_are() -> None:
    board = LobbyBoard()
    for n in range(LOBBY_SHOWN + 50):
        board.update(opened(n))
    for n in range(1000, 1000 + LOBBY_SHOWN + 20):
        board.update(match.join(opened(n), Seat(f"q{n}", "bob"), 5000)[0])
    board.update(opened(5000, wants="bots"))  # the newest, but a game for bots: shown first
    lobby = board.snapshot(summary, no_bots)
    assert (len(lobby.open), len(lobby.live)) == (LOBBY_SHOWN, LOBBY_SHOWN)
    assert (lobby.open_total, lobby.live_total) == (LOBBY_SHOWN + 51, LOBBY_SHOWN + 20)
    assert lobby.open[0].id == f"{5000:08x}"
    assert [g.id for g in lobby.open[1:3]] == [f"{0:08x}", f"{1:08x}"]  # then the oldest
    assert lobby.live[0].id == f"{1000 + LOBBY_SHOWN + 19:08x}"  # the newest first
    assert len(encode(lobby)) < 100_000  # whatever the number of games


def test_a_change_carries_only_what_changed_and_rebuilds_the_same_lists() -> None:
    board = LobbyBoard()
    games = [opened(n) for n in range(300)]
    for record in games:
        board.update(record)
    shown = board.snapshot(summary, no_bots)
    assert board.change(summary, no_bots) is None  # nothing changed since

    joined = match.join(games[5], Seat("q", "bob"), 9000)[0]
    board.update(joined)  # an open game starts
    board.update(opened(400))  # a newer one opens: beyond the 100 shown
    board.update(match.cancel(games[7], "p7", 9001)[0])
    change = board.change(summary, no_bots)
    assert change is not None
    assert [g.id for g in change.live] == [joined.id]
    assert change.gone == [games[7].id]
    # two games left the open list shown: the next two oldest take their places
    assert [g.id for g in change.open] == [games[100].id, games[101].id]
    assert (change.open_total, change.live_total) == (299, 1)
    assert len(encode(change)) < 2_000

    again = apply_change(shown, change)
    assert again == board.snapshot(summary, no_bots)  # the client's lists are the server's

    moved = replace(joined, moves=["wS1"], version=joined.version + 1)
    board.update(moved)
    change = board.change(summary, no_bots)
    assert change is not None and [g.moves for g in change.live] == [1]
    assert change.open == [] and change.gone == []


def test_the_board_counts_open_games_and_games_against_bots_by_origin_and_player() -> None:
    board = LobbyBoard()
    first, second = opened(1, origin="a"), opened(2, origin="a")
    board.update(first)
    board.update(second)
    assert board.open_from == {"a": 2}
    against_bot = match.join(opened(3, origin="b"), BOT, 0)[0]
    board.update(against_bot)
    assert (board.bot_games_of["p3"], board.bot_games_from["b"]) == (1, 1)
    board.update(match.resign(against_bot, "p3", 1)[0])
    board.update(match.cancel(first, "p1", 1)[0])
    assert board.open_from == {"a": 1}
    assert board.bot_games_of == {} and board.bot_games_from == {}  # nothing kept at zero
    board.update(match.join(second, Seat("q", "bob"), 2)[0])
    assert board.open_from == {} and board.playing == {"p2": 1, "q": 1}
