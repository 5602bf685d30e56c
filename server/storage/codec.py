"""How a game is stored: a ``Record`` and its events as msgpack (trusted: only the server
writes them). What only clients see (a seat's ``connected``) is not stored."""

from __future__ import annotations

from typing import Any

import msgpack

from protocol import Event, RatingChange, Seat, TimeControl, to_plain
from server.game.record import Record

_SHOWN_ONLY = ("connected",)
"""Fields of a ``Seat`` that are the view's, not the game's."""


def to_dict(record: Record) -> dict[str, Any]:
    plain: dict[str, Any] = to_plain(record)
    for key in ("white", "black", "challenge"):
        seat = plain.get(key)
        if seat is not None:
            for name in _SHOWN_ONLY:
                seat.pop(name, None)
    return plain


def _seat(data: dict[str, Any]) -> Seat:
    return Seat(**{k: v for k, v in data.items() if k not in _SHOWN_ONLY})


def from_dict(data: dict[str, Any]) -> Record:
    """A record as stored (records stored before a field existed get its default)."""
    values = dict(data)
    values["time"] = TimeControl(**values["time"])
    for key in ("white", "black", "challenge"):
        if values.get(key) is not None:
            values[key] = _seat(values[key])
    values["chat"] = [Event(**e) for e in values["chat"]]
    if "rating_changes" in values:
        values["rating_changes"] = [RatingChange(**c) for c in values["rating_changes"]]
    return Record(**values)


def _stored(value: Any) -> Any:
    """msgpack's hook for the dataclasses of a record: the dict of their fields (the record's
    own ``__dict__``, its fields in order: the bytes of ``to_dict``, with no copy made), a
    seat's without what only the view shows."""
    fields = vars(value)
    if type(value) is Seat:
        return {k: v for k, v in fields.items() if k not in _SHOWN_ONLY}
    return fields


def pack(record: Record) -> bytes:
    """The stored bytes of ``record``: those of ``to_dict(record)``, packed without building
    it (msgpack walks the lists and asks ``_stored`` for the dataclasses only)."""
    packed: bytes = msgpack.packb(record, default=_stored)
    return packed


def unpack(data: bytes) -> Record:
    return from_dict(msgpack.unpackb(data))


def pack_event(event: Event) -> bytes:
    fields = [event.version, event.kind, event.at, event.by, event.text]
    if event.player is not None:  # the other events keep the form they had before it
        fields.append(event.player)
    packed: bytes = msgpack.packb(fields, use_bin_type=True)
    return packed


def unpack_event(data: bytes) -> Event:
    """An event as ``pack_event`` stored it (without ``player``: stored before it was added,
    or None)."""
    version, kind, at, by, text, *player = msgpack.unpackb(data)
    return Event(version, kind, at, by, text, *player)
