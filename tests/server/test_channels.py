"""The messages between the processes (``server.storage.channels``): each packed and unpacked
there, in the forms docs/operating.md gives."""

from __future__ import annotations

import msgpack

from server.storage.channels import (
    Published,
    pack_moves,
    pack_signed_out,
    peek_published,
    unpack_moves,
    unpack_signed_out,
)


def test_a_game_s_change_round_trips_as_a_list_of_six() -> None:
    published = Published("abc", 7, b"record", b"event", "p1:3", 1_700_000_000_000)
    data = published.pack()
    assert msgpack.unpackb(data) == ["abc", 7, b"record", b"event", "p1:3", 1_700_000_000_000]
    assert peek_published(data) == published


def test_a_signed_out_session_round_trips_with_or_without_its_token() -> None:
    for hashed in ("h4sh", None):
        data = pack_signed_out("p1", hashed)
        assert msgpack.unpackb(data) == ["signed_out", "p1", hashed]
        assert unpack_signed_out(data) == ("p1", hashed)


def test_the_lobby_s_moves_round_trip_and_entries_of_other_types_are_left_out() -> None:
    data = pack_moves({"abc": (7, 3), "def": (2, 0)})
    assert msgpack.unpackb(data) == [["abc", 7, 3], ["def", 2, 0]]
    assert unpack_moves(data) == [("abc", 7, 3), ("def", 2, 0)]
    odd = msgpack.packb([["abc", "7", 3], [1, 2, 3], ["def", 2, 0]])
    assert unpack_moves(odd) == [("def", 2, 0)]
