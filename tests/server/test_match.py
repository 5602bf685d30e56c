"""The pure game logic of the server: clocks, deadlines and changes at a given time."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server import match
from server.match import DAY_MS, Record
from server.protocol import ErrorCode, ProtocolError, Seat, TimeControl

ADA, BOB = Seat("a", "ada"), Seat("b", "bob")
FIRST = 60_000


def started(time: TimeControl, now: int = 0) -> Record:
    record = match.create(
        "g1", ADA, game_type="Base", time=time, color="white", now=now, ttl_ms=1000, seed=1
    )
    return match.join(record, BOB, now)[0]


def move(record: Record, player: str, text: str, now: int) -> Record:
    return match.play(record, record.new_game(), player, text, record.version, now, FIRST)[0]


def test_clocks_start_with_each_sides_second_turn_and_add_the_increment() -> None:
    record = started(TimeControl("clock", 60, 2))
    record = move(record, "a", "wS1", 5_000)  # first moves use no clock
    record = move(record, "b", "bS1 wS1-", 9_000)
    assert (record.clock_white, record.clock_black) == (60_000, 60_000)
    assert match.clocks(record, 9_000).running == "white"
    assert match.time_left(record, "white", 19_000) == 50_000
    record = move(record, "a", "wQ -wS1", 19_000)
    assert record.clock_white == 52_000  # 60 - 10 + 2
    assert match.time_left(record, "black", 20_500) == 58_500
    assert match.deadline(record, FIRST) == 19_000 + 60_000


def test_a_move_after_the_flag_fell_loses_on_time_instead() -> None:
    record = started(TimeControl("clock", 60, 2))
    record = move(record, "a", "wS1", 0)
    record = move(record, "b", "bS1 wS1-", 0)
    late, event = match.play(
        record, record.new_game(), "a", "wQ -wS1", record.version, 60_000, FIRST
    )
    assert (late.status, late.result, late.reason) == ("over", "BlackWins", "timeout")
    assert late.moves == record.moves and event.kind == "over"
    assert late.clock_white == 0
    on_time = move(record, "a", "wQ -wS1", 59_999)
    assert on_time.status == "live" and on_time.clock_white == 2_001  # 1 ms left + 2 s


def test_days_per_move_reset_with_every_move() -> None:
    record = started(TimeControl("days", days=2))
    record = move(record, "a", "wS1", 0)
    record = move(record, "b", "bS1 wS1-", 1_000)
    moved = 1_000 + 3 * DAY_MS // 2  # a day and a half for this move: within the two
    record = move(record, "a", "wQ -wS1", moved)
    assert record.clock_white == 2 * DAY_MS
    assert match.deadline(record, FIRST) == moved + 2 * DAY_MS
    assert match.expire(record, moved + 2 * DAY_MS - 1, FIRST) is None
    flagged = match.expire(record, moved + 2 * DAY_MS, FIRST)
    assert flagged is not None and flagged[0].result == "WhiteWins"


def test_the_first_moves_have_a_timeout_of_their_own() -> None:
    record = started(TimeControl("clock", 60, 0), now=1_000)
    assert match.deadline(record, FIRST) == 1_000 + FIRST
    record = move(record, "a", "wS1", 30_000)
    assert match.deadline(record, FIRST) == 30_000 + FIRST
    aborted = match.expire(record, 30_000 + FIRST, FIRST)
    assert aborted is not None
    assert (aborted[0].status, aborted[0].result, aborted[0].reason) == ("over", None, "aborted")


def test_a_game_without_a_clock_has_no_deadline_once_started() -> None:
    record = started(TimeControl())
    record = move(record, "a", "wS1", 0)
    record = move(record, "b", "bS1 wS1-", 0)
    assert match.deadline(record, FIRST) is None
    assert match.clocks(record, 10**12) == match.clocks(record, 0)


def test_moves_on_a_version_after_a_chat_line_are_current_but_not_before_a_move() -> None:
    record = started(TimeControl())
    talked, _ = match.chat(record, "a", "ada", "hi", 0)
    game = talked.new_game()
    moved, _ = match.play(talked, game, "a", "wS1", record.version, 0, FIRST)
    assert moved.moves == ["wS1"]
    with pytest.raises(ProtocolError) as refused:
        match.play(moved, moved.new_game(), "b", "bS1 wS1-", talked.version, 0, FIRST)
    assert refused.value.code == ErrorCode.STALE


def test_a_record_survives_its_storage_form() -> None:
    record = started(TimeControl("clock", 60, 2))
    record = move(record, "a", "wS1", 5)
    record, _ = match.chat(record, "a", "ada", "gl", 6)
    record, _ = match.mute(record, "a", "c", "cy", True, 7)
    record = replace(record, draw_offer="white")
    assert match.from_dict(match.to_dict(record)) == record


def test_a_record_stored_before_chat_had_ids_and_mutes_loads() -> None:
    record, _ = match.chat(started(TimeControl()), "a", "ada", "gl", 6)
    old = match.to_dict(record)
    del old["muted"]
    del old["chat"][0]["player"]
    loaded = match.from_dict(old)
    assert loaded.muted == [] and loaded.chat[0].player is None
    assert loaded == replace(record, chat=[replace(record.chat[0], player=None)])


def test_a_player_mutes_and_unmutes_a_chatter() -> None:
    record = started(TimeControl())
    record, said = match.chat(record, "c", "cy", "boo", 1)
    assert (said.by, said.player) == ("cy", "c")
    record, muted = match.mute(record, "b", "c", "cy", True, 2)
    assert (muted.kind, muted.by, muted.text, muted.player) == ("mute", "bob", "cy", "c")
    assert record.muted == ["c"] and (record.moved, record.version) == (2, 4)  # not a move
    assert match.state(record, record.new_game(), 2).muted == ["c"]
    with pytest.raises(ProtocolError) as refused:
        match.chat(record, "c", "cy", "boo again", 3)
    assert (refused.value.code, refused.value.message) == (
        ErrorCode.NOT_ALLOWED,
        "you are muted in this game",
    )
    match.chat(record, "a", "ada", "others still chat", 3)
    record, unmuted = match.mute(record, "a", "c", "cy", False, 4)
    assert (unmuted.kind, unmuted.by, record.muted) == ("unmute", "ada", [])
    match.chat(record, "c", "cy", "sorry", 5)


@pytest.mark.parametrize(
    ("player", "target", "name", "on", "code", "message"),
    [
        ("c", "b", "bob", True, ErrorCode.NOT_YOUR_GAME, "you do not play in game g1"),
        ("a", "a", "ada", True, ErrorCode.NOT_ALLOWED, "you cannot mute yourself"),
        ("a", "zz", None, True, ErrorCode.BAD_MESSAGE, "no player 'zz'"),
        ("a", "d", "dee", True, ErrorCode.NOT_ALLOWED, "dee is already muted"),
        ("a", "c", "cy", False, ErrorCode.NOT_ALLOWED, "cy is not muted"),
    ],
)
def test_mutes_that_are_refused(
    player: str, target: str, name: str | None, on: bool, code: ErrorCode, message: str
) -> None:
    record, _ = match.mute(started(TimeControl()), "b", "d", "dee", True, 1)
    with pytest.raises(ProtocolError) as refused:
        match.mute(record, player, target, name, on, 2)
    assert (refused.value.code, refused.value.message) == (code, message)


def test_only_clock_games_abort_unmade_first_moves_so_soon() -> None:
    days = started(TimeControl("days", days=3), now=0)
    assert match.deadline(days, FIRST) == 3 * DAY_MS
    assert match.expire(days, FIRST + 1, FIRST) is None
    aborted = match.expire(days, 3 * DAY_MS, FIRST)
    assert aborted is not None and aborted[0].reason == "aborted"
    untimed = started(TimeControl(), now=0)
    assert match.deadline(untimed, FIRST) is None
    assert match.expire(untimed, 10**12, FIRST) is None


def test_the_game_type_is_stored_by_its_canonical_name() -> None:
    record = match.create(
        "g2", ADA, game_type="Base+PLM", time=TimeControl(), color="white", now=0, ttl_ms=1, seed=1
    )
    assert record.game_type == "Base+MLP"
