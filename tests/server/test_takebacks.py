"""Takebacks as pure rules (``server.game.takebacks``): who may ask, what an accepted one takes
back, the clocks it puts back, and its bounds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol import ErrorCode, ProtocolError, Seat, TimeControl
from server.game import clock, match, view
from server.game.record import Record
from server.game.takebacks import TAKEBACKS_PER_GAME, takeback
from server.storage import codec

ADA, BOB = Seat("a", "ada"), Seat("b", "bob")
FIRST = 60_000
CLOCK = TimeControl("clock", 60, 2)
MOVES = ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 /wQ")


def played(plies: int) -> Record:
    """A casual game (``CLOCK``) between ada (White) and bob: ``plies`` of ``MOVES``, 10 s apart."""
    record = match.create(
        "g1", ADA, game_type="Base", time=CLOCK, color="white", now=0, ttl_ms=1000, seed=1
    )
    record = match.join(record, BOB, 0)[0]
    for ply in range(plies):
        player = "a" if ply % 2 == 0 else "b"
        game = record.new_game()
        record = match.play(
            record, game, player, MOVES[ply], record.version, 10_000 * (ply + 1), FIRST
        )[0]
    return record


def test_an_accepted_takeback_of_the_askers_own_last_move_takes_back_one_ply() -> None:
    record = played(4)  # Black just moved; at 40 s
    asked, event = takeback(record, "b", "ask", 41_000)
    assert (event.kind, event.by, asked.takeback_offer) == ("takeback_offer", "black", "black")
    assert view.state(asked, asked.new_game(), 41_000).takeback_offer == "black"
    taken, event = takeback(asked, "a", "accept", 45_000)
    assert (event.kind, event.by, event.text) == ("takeback", "black", "1")
    assert taken.moves == list(MOVES[:3]) and taken.turn == "black"
    assert taken.takeback_offer is None and taken.moved == taken.version
    # the clocks as they were when Black's turn began (White had spent 10 s, gained 2)
    assert (taken.clock_white, taken.clock_black) == (52_000, 60_000)
    assert clock.time_left(taken, "black", 50_000) == 55_000  # runs again from the takeback
    # the stored form keeps the clocks a takeback puts back
    assert codec.unpack(codec.pack(taken)) == taken


def test_after_the_opponents_answer_a_takeback_takes_back_two_plies() -> None:
    record = played(5)  # White moved last; Black asks: Black's and White's last moves go
    asked, _ = takeback(record, "b", "ask", 51_000)
    taken, event = takeback(asked, "a", "accept", 52_000)
    assert event.text == "2" and taken.moves == list(MOVES[:3]) and taken.turn == "black"
    assert (taken.clock_white, taken.clock_black) == (52_000, 60_000)
    # and a move made on a version before the takeback is stale
    with pytest.raises(ProtocolError) as refused:
        match.play(taken, taken.new_game(), "b", "bQ bS1-", asked.version, 53_000, FIRST)
    assert refused.value.code == ErrorCode.STALE


def test_a_declined_takeback_changes_nothing_but_the_request_and_a_move_withdraws_one() -> None:
    record = played(4)
    asked, _ = takeback(record, "b", "ask", 41_000)
    declined, event = takeback(asked, "a", "decline", 42_000)
    assert (event.kind, event.by) == ("takeback_decline", "white")
    assert declined.takeback_offer is None and declined.moves == record.moves
    assert declined.moved == record.moved  # the position did not change
    again, _ = takeback(declined, "b", "ask", 43_000)
    moved = match.play(again, again.new_game(), "a", MOVES[4], again.version, 44_000, FIRST)[0]
    assert moved.takeback_offer is None
    with pytest.raises(ProtocolError, match="no takeback request"):
        takeback(moved, "a", "accept", 45_000)


@pytest.mark.parametrize(
    ("change", "player", "action", "words"),
    [
        ({"rated": True}, "b", "ask", "casual games: this game is rated"),
        ({"white": replace(ADA, bot="easy", account="bot")}, "b", "ask", "bots do not"),
        ({"black": replace(BOB, account="bot")}, "a", "ask", "bots do not"),
        ({"takeback_offer": "black"}, "b", "ask", "already asked"),
        ({"takeback_offer": "white"}, "b", "ask", "answer it first"),
        ({}, "a", "accept", "no takeback request"),
        ({"takeback_offer": "black"}, "b", "accept", "no takeback request"),
        ({"black_takebacks": TAKEBACKS_PER_GAME}, "b", "ask", f"{TAKEBACKS_PER_GAME} takebacks"),
        ({"status": "over", "reason": "resign"}, "b", "ask", "is over"),
    ],
)
def test_takebacks_that_are_refused(
    change: dict[str, object], player: str, action: str, words: str
) -> None:
    record = replace(played(4), **change)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match=words):
        takeback(record, player, action, 41_000)


def test_nobody_asks_before_moving_and_asks_are_counted() -> None:
    record = played(1)  # only White has moved
    with pytest.raises(ProtocolError, match="no move to take back"):
        takeback(record, "b", "ask", 11_000)
    asked, _ = takeback(record, "a", "ask", 11_000)
    assert asked.white_takebacks == 1 and asked.black_takebacks == 0
    taken, _ = takeback(asked, "b", "accept", 12_000)
    assert taken.moves == [] and taken.turn == "white"
    assert clock.deadline(taken, FIRST) == 12_000 + FIRST  # the first move's time, anew
