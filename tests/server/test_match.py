"""The pure game logic of the server: clocks, deadlines and changes at a given time."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace
from typing import Any

import msgpack
import pytest

from protocol import ErrorCode, ProtocolError, Seat, TimeControl
from server.game import clock, match, rematches, social, view
from server.game.clock import DAY_MS
from server.game.frozen import evolve
from server.game.record import Record
from server.storage import codec

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
    assert view.clocks(record, 9_000).running == "white"
    assert clock.time_left(record, "white", 19_000) == 50_000
    record = move(record, "a", "wQ -wS1", 19_000)
    assert record.clock_white == 52_000  # 60 - 10 + 2
    assert clock.time_left(record, "black", 20_500) == 58_500
    assert clock.deadline(record, FIRST) == 19_000 + 60_000


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
    assert clock.deadline(record, FIRST) == moved + 2 * DAY_MS
    assert match.expire(record, moved + 2 * DAY_MS - 1, FIRST) is None
    flagged = match.expire(record, moved + 2 * DAY_MS, FIRST)
    assert flagged is not None and flagged[0].result == "WhiteWins"


def test_the_first_moves_have_a_timeout_of_their_own() -> None:
    record = started(TimeControl("clock", 60, 0), now=1_000)
    assert clock.deadline(record, FIRST) == 1_000 + FIRST
    record = move(record, "a", "wS1", 30_000)
    assert clock.deadline(record, FIRST) == 30_000 + FIRST
    aborted = match.expire(record, 30_000 + FIRST, FIRST)
    assert aborted is not None
    assert (aborted[0].status, aborted[0].result, aborted[0].reason) == ("over", None, "aborted")


def test_a_game_without_a_clock_has_no_deadline_once_started() -> None:
    record = started(TimeControl())
    record = move(record, "a", "wS1", 0)
    record = move(record, "b", "bS1 wS1-", 0)
    assert clock.deadline(record, FIRST) is None
    assert view.clocks(record, 10**12) == view.clocks(record, 0)


def test_moves_on_a_version_after_a_chat_line_are_current_but_not_before_a_move() -> None:
    record = started(TimeControl())
    talked, _ = social.chat(record, "a", "ada", "hi", 0)
    game = talked.new_game()
    moved, _ = match.play(talked, game, "a", "wS1", record.version, 0, FIRST)
    assert moved.moves == ["wS1"]
    with pytest.raises(ProtocolError) as refused:
        match.play(moved, moved.new_game(), "b", "bS1 wS1-", talked.version, 0, FIRST)
    assert refused.value.code == ErrorCode.STALE


def test_a_record_survives_its_storage_form() -> None:
    record = started(TimeControl("clock", 60, 2))
    record = move(record, "a", "wS1", 5)
    record, _ = social.chat(record, "c", "cy", "gl", 6)
    record, _ = social.mute(record, "a", "c", True, 7)
    record = replace(record, draw_offer="white", origin="0f0f", spectator_chat=False)
    assert codec.from_dict(codec.to_dict(record)) == record


def test_pack_gives_the_bytes_of_the_storage_form() -> None:
    """``codec.pack`` packs the record without building ``to_dict`` (msgpack's hook): the same
    bytes, seats without ``connected`` whatever they hold."""
    record = started(TimeControl("clock", 60, 2))
    record = move(record, "a", "wS1", 5)
    record, _ = social.chat(record, "c", "cy", "gl", 6)
    white, black = record.white, record.black
    assert white is not None and black is not None
    record = replace(
        record,
        white=replace(white, connected=True, rating=1500),
        challenge=replace(black, connected=True),
    )
    assert codec.pack(record) == msgpack.packb(codec.to_dict(record))
    assert codec.unpack(codec.pack(record)) == replace(
        record, white=replace(white, rating=1500), challenge=black
    )


def test_a_record_stored_before_chat_had_ids_and_mutes_loads() -> None:
    record, _ = social.chat(started(TimeControl()), "a", "ada", "gl", 6)
    old = codec.to_dict(record)
    del old["muted"]
    del old["chat"][0]["player"]
    loaded = codec.from_dict(old)
    assert loaded.muted == [] and loaded.chat[0].player is None
    assert loaded == replace(record, chat=[replace(record.chat[0], player=None)])


def test_a_player_mutes_and_unmutes_a_chatter() -> None:
    record = started(TimeControl())
    record, said = social.chat(record, "c", "cy", "boo", 1)
    assert (said.by, said.player) == ("cy", "c")
    record, muted = social.mute(record, "b", "c", True, 2)
    assert (muted.kind, muted.by, muted.text, muted.player) == ("mute", "bob", "cy", "c")
    assert record.muted == ["c"] and (record.moved, record.version) == (2, 4)  # not a move
    assert view.state(record, record.new_game(), 2).muted == ["c"]
    with pytest.raises(ProtocolError) as refused:
        social.chat(record, "c", "cy", "boo again", 3)
    assert (refused.value.code, refused.value.message) == (
        ErrorCode.NOT_ALLOWED,
        "you are muted in this game",
    )
    social.chat(record, "a", "ada", "others still chat", 3)
    record, unmuted = social.mute(record, "a", "c", False, 4)
    assert (unmuted.kind, unmuted.by, record.muted) == ("unmute", "ada", [])
    social.chat(record, "c", "cy", "sorry", 5)


@pytest.mark.parametrize(
    ("player", "target", "on", "code", "message"),
    [
        ("c", "b", True, ErrorCode.NOT_YOUR_GAME, "you do not play in game g1"),
        ("a", "a", True, ErrorCode.NOT_ALLOWED, "you cannot mute yourself"),
        ("a", "zz", True, ErrorCode.BAD_MESSAGE, "nobody 'zz' chatted in this game"),
        ("a", "b", True, ErrorCode.BAD_MESSAGE, "nobody 'b' chatted in this game"),
        ("a", "d", True, ErrorCode.NOT_ALLOWED, "dee is already muted"),
        ("a", "c", False, ErrorCode.NOT_ALLOWED, "cy is not muted"),
    ],
)
def test_mutes_that_are_refused(
    player: str, target: str, on: bool, code: ErrorCode, message: str
) -> None:
    record, _ = social.chat(started(TimeControl()), "d", "dee", "hi", 1)
    record, _ = social.chat(record, "c", "cy", "hi", 1)
    record, _ = social.mute(record, "b", "d", True, 1)
    with pytest.raises(ProtocolError) as refused:
        social.mute(record, player, target, on, 2)
    assert (refused.value.code, refused.value.message) == (code, message)


def test_a_mute_names_only_someone_who_chatted_here() -> None:
    """A mute's event carries the name of the player muted: only a chatter of the game may
    be muted, so no one else's name is ever published (anyone muted may still be unmuted)."""
    record, _ = social.chat(started(TimeControl()), "c", "cy", "hi", 1)
    record, muted = social.mute(record, "a", "c", True, 2)
    assert (muted.text, muted.player) == ("cy", "c")
    record = replace(record, chat=[])  # its lines scrolled away
    record, unmuted = social.mute(record, "a", "c", False, 3)
    assert (unmuted.text, record.muted) == ("a player", [])
    with pytest.raises(ProtocolError) as refused:
        social.mute(record, "a", "c", True, 4)
    assert refused.value.code == ErrorCode.BAD_MESSAGE


def test_the_players_close_and_open_the_chat_to_spectators() -> None:
    record = started(TimeControl())
    record, closed = social.spectator_chat(record, "b", False, 1)
    assert (closed.kind, closed.by, closed.text) == ("spectator_chat", "black", "closed")
    assert not view.state(record, record.new_game(), 1).spectator_chat
    with pytest.raises(ProtocolError) as refused:
        social.chat(record, "c", "cy", "let me in", 2)
    assert refused.value.code == ErrorCode.NOT_ALLOWED
    social.chat(record, "a", "ada", "players still chat", 2)
    for who, on, code in (
        ("c", True, ErrorCode.NOT_YOUR_GAME),
        ("a", False, ErrorCode.NOT_ALLOWED),
    ):
        with pytest.raises(ProtocolError) as refused:
            social.spectator_chat(record, who, on, 3)
        assert refused.value.code == code
    record, opened = social.spectator_chat(record, "a", True, 3)
    assert opened.text == "open" and record.spectator_chat
    social.chat(record, "c", "cy", "thanks", 4)


def test_a_player_offers_a_draw_once_a_move() -> None:
    record = started(TimeControl())
    record = move(record, "a", "wS1", 0)
    record, offered = match.draw(record, "b", "offer", 1)
    assert offered.kind == "draw_offer"
    record, _ = match.draw(record, "a", "decline", 2)
    with pytest.raises(ProtocolError) as refused:
        match.draw(record, "b", "offer", 3)
    assert refused.value.code == ErrorCode.NOT_ALLOWED
    record, _ = match.draw(record, "a", "offer", 3)  # the other side has its own offer
    record, _ = match.draw(record, "b", "decline", 4)
    record = move(record, "b", "bS1 wS1-", 5)
    record = move(record, "a", "wQ -wS1", 6)
    record, again = match.draw(record, "b", "offer", 7)  # a move later: allowed again
    assert again.kind == "draw_offer"


def test_two_rematch_requests_are_an_agreement() -> None:
    record, _ = match.resign(started(TimeControl()), "a", 1)
    offered, event, new = rematches.rematch(record, "a", 2, "g2", 7)
    assert (event.kind, offered.rematch_offer, new) == ("rematch_offer", "white", None)
    old, event, new = rematches.rematch(offered, "b", 3, "g2", 7)
    assert event.kind == "rematch" and event.text == "g2" and old.rematch == "g2"
    assert new is not None and (new.white, new.black) == (BOB, ADA)
    with pytest.raises(ProtocolError):
        rematches.rematch(offered, "a", 3, "g3", 7)  # one's own offer again


def test_a_game_against_a_bot_left_by_its_person_is_aborted_or_lost() -> None:
    bot = Seat("bot:easy", "easy bot", bot="easy", account="bot")
    record = match.create(
        "g3", ADA, game_type="Base", time=TimeControl(), color="white", now=0, ttl_ms=1, seed=1
    )
    record, _ = match.join(record, bot, 0)
    assert record.bot_opponent() == bot
    ended, event = match.abandon(record, "a", 1)
    assert (ended.result, ended.reason, event.kind) == (None, "aborted", "over")
    record = move(move(record, "a", "wS1", 0), "bot:easy", "bS1 wS1-", 0)
    ended, _ = match.abandon(record, "a", 2)
    assert (ended.result, ended.reason) == ("BlackWins", "abandoned")
    assert started(TimeControl()).bot_opponent() is None  # two people


def test_a_record_spells_its_game_string_as_the_engine_does() -> None:
    """``Record.game_string`` builds the GameString without replaying the moves."""
    record = started(TimeControl())
    assert record.game_string() == record.new_game().game_string()
    for mover, text in (("a", "wS1"), ("b", "bS1 wS1-"), ("a", "wQ -wS1")):
        record = move(record, mover, text, 0)
        assert record.game_string() == record.new_game().game_string()
    resigned, _ = match.resign(record, "b", 1)
    assert resigned.game_string() == record.new_game().game_string()  # UHP has no resigning
    won = replace(record, status="over", result="WhiteWins", reason="queen")
    assert won.game_string().startswith("Base;WhiteWins;Black[2];")


def test_first_moves_not_made_abort_the_game_whatever_the_time_control() -> None:
    days = started(TimeControl("days", days=3), now=0)
    assert clock.deadline(days, FIRST) == 3 * DAY_MS  # a correspondence move has its days
    assert match.expire(days, FIRST + 1, FIRST) is None
    aborted = match.expire(days, 3 * DAY_MS, FIRST)
    assert aborted is not None and aborted[0].reason == "aborted"
    untimed = started(TimeControl(), now=0)
    assert clock.deadline(untimed, FIRST) == FIRST
    assert match.expire(untimed, FIRST - 1, FIRST) is None
    aborted = match.expire(untimed, FIRST, FIRST)
    assert aborted is not None and (aborted[0].reason, aborted[0].result) == ("aborted", None)


def test_the_game_type_is_stored_by_its_canonical_name() -> None:
    record = match.create(
        "g2", ADA, game_type="Base+PLM", time=TimeControl(), color="white", now=0, ttl_ms=1, seed=1
    )
    assert record.game_type == "Base+MLP"


def test_a_seat_is_stored_without_what_only_clients_see() -> None:
    """``connected`` is the view's (server.game.view fills it in): not written to Redis, and a
    record written with it (before it was left out) loads."""
    record = started(TimeControl())
    stored = codec.to_dict(record)
    assert stored["white"] is not None and "connected" not in stored["white"]
    assert stored["black"] is not None and "connected" not in stored["black"]
    stored["white"]["connected"] = True
    assert codec.from_dict(stored) == record


def test_evolve_copies_as_replace_does_and_refuses_what_is_not_a_field() -> None:
    record = move(started(TimeControl("clock", 60, 2)), "a", "wS1", 5_000)
    changes: dict[str, Any] = {"version": 9, "moves": ["wS1", "bS1 wS1-"], "held": 7, "white": BOB}
    made = evolve(record, **changes)
    assert made == replace(record, **changes)
    assert list(vars(made)) == list(vars(record))  # the fields in order: what msgpack packs
    assert record.version == 3 and made.version == 9  # a copy: the original untouched
    with pytest.raises(FrozenInstanceError):
        made.version = 10  # type: ignore[misc]
    with pytest.raises(TypeError, match="no field 'verison'"):
        evolve(record, verison=3)
    # A class whose __init__ checks its fields goes through replace: it still checks them.
    with pytest.raises(ValueError, match=r"base in 1\.\.10800"):
        evolve(TimeControl("clock", 60, 2), base=0)
