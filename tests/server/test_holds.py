"""The clocks after a restart as pure rules (``server.game.holds``): the outage given back,
and the clock of the person to move held until their client is back, never longer than the
bound."""

from __future__ import annotations

from dataclasses import replace

from protocol import Seat, TimeControl
from server.game import clock, holds, match, view
from server.game.record import Record
from server.storage import codec

ADA, BOB = Seat("a", "ada"), Seat("b", "bob")
FIRST = 60_000
HOLD = 10_000


def played(plies: int) -> Record:
    """ada (White) and bob, ``plies`` moves made at 10 s each (from 0)."""
    moves = ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-")
    record = match.create(
        "g1",
        ADA,
        game_type="Base",
        time=TimeControl("clock", 60, 0),
        color="white",
        now=0,
        ttl_ms=1000,
        seed=1,
    )
    record = match.join(record, BOB, 0)[0]
    for ply in range(plies):
        player = "a" if ply % 2 == 0 else "b"
        record = match.play(
            record, record.new_game(), player, moves[ply], record.version, 10_000 * ply, FIRST
        )[0]
    return record


def test_the_player_to_move_is_charged_neither_the_outage_nor_the_wait_for_their_client() -> None:
    record = played(2)  # White to move from 10 s, 60 s on her clock
    # the last heartbeat at 30 s (White had used 20 s), the server back at 100 s
    back = holds.held(holds.given_back(record, 30_000, 100_000), 100_000, HOLD)
    assert back.held == 110_000 and clock.time_left(back, "white", 100_000) == 40_000
    assert codec.unpack(codec.pack(back)) == back
    # nothing runs while her client is away, up to the bound
    assert clock.time_left(back, "white", 107_000) == 40_000
    assert view.clocks(back, 107_000).running is None
    assert clock.deadline(back, FIRST) == 110_000  # the hold's end, then her flag's
    # her client is back at 104 s: her clock runs from then, bob's never ran
    resumed, event = holds.resume(back, "a", 104_000) or (None, None)
    assert resumed is not None and event is not None
    assert (event.kind, event.by, resumed.held) == ("resumed", "white", None)
    assert resumed.moved == back.moved  # a move made on the version before is current
    assert clock.time_left(resumed, "white", 109_000) == 35_000
    assert view.clocks(resumed, 109_000).running == "white"
    assert clock.time_left(resumed, "black", 109_000) == 60_000


def test_the_hold_is_bounded_and_only_the_player_to_move_resumes_it() -> None:
    back = holds.held(holds.given_back(played(2), 30_000, 100_000), 100_000, HOLD)
    assert holds.resume(back, "b", 104_000) is None  # bob is not to move
    assert holds.resume(back, "a", 110_000) is None  # the hold is over: nothing to resume
    # not back by the bound: charged from then, as usual, and everyone told (the deadline
    # sweep's change, an event ``resumed``)
    assert clock.time_left(back, "white", 115_000) == 35_000
    assert view.clocks(back, 115_000).running == "white"
    assert match.expire(back, 109_999, FIRST) is None
    ran, event = match.expire(back, 110_400, FIRST) or (None, None)
    assert ran is not None and event is not None
    assert (event.kind, event.by, event.version, ran.held) == (
        "resumed",
        "white",
        ran.version,
        None,
    )
    assert ran.version == back.version + 1 and ran.moved == back.moved
    assert clock.time_left(ran, "white", 115_000) == 35_000
    assert view.clocks(ran, 110_400).running == "white"
    assert clock.deadline(ran, FIRST) == 110_000 + 40_000
    # a move made during the hold is not charged for it, and ends it
    moved = match.play(back, back.new_game(), "a", "wQ -wS1", back.version, 105_000, FIRST)[0]
    assert moved.clock_white == 40_000 and moved.held is None
    assert view.clocks(moved, 105_000).running == "black"


def test_first_moves_keep_their_timeout_and_bots_are_not_held() -> None:
    record = played(0)  # White's first move, from 0
    back = holds.held(holds.given_back(record, 20_000, 100_000), 100_000, HOLD)
    # 20 s of the first move's minute were used: 40 s left after the hold's 10 s
    assert clock.deadline(back, FIRST) == 100_000 + HOLD
    ran, _ = match.expire(back, 100_000 + HOLD, FIRST) or (None, None)
    assert ran is not None and clock.deadline(ran, FIRST) == 100_000 + HOLD + 40_000
    resumed, _ = holds.resume(back, "a", 103_000) or (None, None)
    assert resumed is not None and clock.deadline(resumed, FIRST) == 103_000 + 40_000
    bot = replace(played(2), white=Seat("bot:easy", "easy bot", "easy", account="bot"))
    given = holds.given_back(bot, 30_000, 100_000)
    assert holds.held(given, 100_000, HOLD) == given
    assert holds.held(holds.given_back(played(2), 30_000, 100_000), 100_000, 0).held is None
