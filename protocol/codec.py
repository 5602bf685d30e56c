"""Frames to messages and back: ``encode`` and ``decode``, the only code that touches msgpack
for the wire. Decoding is total: anything but a well-formed message of a known type raises one
``ProtocolError`` (``BAD_MESSAGE`` or ``UNKNOWN_TYPE``) saying what is wrong."""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from typing import Any, Final, Literal, get_args, get_origin

import msgpack

from protocol.common import (
    CLIENT_MESSAGES,
    MAX_INT,
    MAX_LIST,
    MAX_TEXT,
    SERVER_MESSAGES,
    ErrorCode,
    Message,
    ProtocolError,
)


def encode(message: Message) -> bytes:
    """The msgpack frame of ``message``: the same as packing ``to_plain(message)``, but msgpack
    walks the lists and the plain values itself and asks ``_plain`` only for the dataclasses
    and enums inside (a state holds a hundred small dataclasses and a thousand plain values)."""
    body = dict(_plain(message))
    body["type"] = message.TYPE
    packed: bytes = msgpack.packb(body, default=_plain)
    return packed


def packed_size(value: Any) -> int:
    """The bytes ``value`` (a message's value, or a list of them) takes in a frame: as long as
    packing ``to_plain(value)``, found as ``encode`` packs it."""
    return len(msgpack.packb(value, default=_plain))


def _plain(value: Any) -> Any:
    """A dataclass as the dict of its fields (its lists of dataclasses made lists of dicts, the
    rest not converted further), an enum as its value."""
    cls: type = type(value)
    names = _field_names(cls)
    if names is not None:
        # A dataclass instance's __dict__ holds its fields in order (the messages have no
        # slots and set nothing else): msgpack reads it as it is, with no dict built.
        fields = getattr(value, "__dict__", None)
        if fields is None or len(fields) != len(names):
            fields = {name: getattr(value, name) for name in names}
        listed = _listed(cls)
        if listed:
            # A state's pieces and legal moves: a list comprehension takes each item's dict
            # for a fraction of a call of this hook per item.
            fields = dict(fields)
            for name in listed:
                fields[name] = [item.__dict__ for item in fields[name]]
        return fields
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"cannot encode {type(value).__name__}")


@functools.cache
def _listed(cls: type) -> tuple[str, ...]:
    """The fields of dataclass ``cls`` that hold a list of dataclasses whose instances keep
    their fields, and only them, in their ``__dict__`` (no slots): their items' dicts are what
    msgpack packs."""
    listed = []
    for name, hint in typing.get_type_hints(cls).items():
        if get_origin(hint) is not list:
            continue
        (item,) = get_args(hint)
        plain = isinstance(item, type) and dataclasses.is_dataclass(item)
        if plain and "__slots__" not in vars(item):
            listed.append(name)
    return tuple(listed)


def decode(frame: bytes | str, *, registry: dict[str, type[Message]] | None = None) -> Message:
    """The message in ``frame`` (by default one a client may send).

    ``MAX_TEXT`` and ``MAX_LIST`` bound what clients send; a server message (``registry``
    ``SERVER_MESSAGES``) may be as long as a game makes it.

    Raises:
        ProtocolError: BAD_MESSAGE or UNKNOWN_TYPE, with what is wrong.
    """
    if registry is None:
        registry = CLIENT_MESSAGES
    bounded = registry is not SERVER_MESSAGES
    if isinstance(frame, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "frames are binary msgpack, not text")
    try:
        body = msgpack.unpackb(frame, strict_map_key=True)
    except Exception as error:  # msgpack raises several unrelated types for bad input
        why = str(error) or type(error).__name__  # some say nothing (FormatError, StackError)
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not msgpack: {why}") from None
    if not isinstance(body, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is a map with a 'type' key")
    tag = body.pop("type", None)
    if not isinstance(tag, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a string 'type'")
    cls = registry.get(tag)
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {tag[:40]!r}")
    try:
        message = _from_wire(cls, body, tag, bounded)
    except (TypeError, ValueError) as error:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, str(error)) from None
    assert isinstance(message, Message)
    return message


def decode_server(frame: bytes) -> Message:
    """A message the server sent (for clients written in Python: tests, bots, the load bench)."""
    return decode(frame, registry=SERVER_MESSAGES)


_SCALARS: Final = frozenset({str, int, bool, float, bytes, type(None)})


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    """The field names of a dataclass, or None for any other type (found once per type)."""
    try:
        return _FIELD_NAMES[cls]
    except KeyError:
        names = None
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_NAMES[cls] = names
        return names


def to_plain(value: Any) -> Any:
    """``value`` with every dataclass made a dict of its fields and every enum its value
    (what msgpack packs). A state of a hundred legal moves is built of many small dataclasses,
    so each class's field names are looked up once."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    if cls is list:
        return [to_plain(item) for item in value]
    names = _field_names(cls)
    if names is not None:
        return {name: to_plain(getattr(value, name)) for name in names}
    if isinstance(value, enum.Enum):
        return value.value
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _from_wire(cls: type, body: dict[Any, Any], where: str, bounded: bool) -> object:
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [key for key in body if key not in fields]
    if unknown:
        raise ValueError(f"{where}: unknown field {str(unknown[0])[:40]!r}")
    values = {}
    for name, f in fields.items():
        if name in body:
            values[name] = _check(hints[name], body[name], f"{where}.{name}", bounded)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"{where}: missing field {name!r}")
    try:
        return cls(**values)
    except ValueError as error:  # a check of the class itself (TimeControl's ranges)
        raise ValueError(f"{where}: {error}") from None


def _check(hint: Any, value: Any, where: str, bounded: bool) -> Any:
    """``value`` as the type ``hint`` asks for; raises ValueError naming the field. ``bounded``:
    refuse strings and lists over ``MAX_TEXT`` and ``MAX_LIST``."""
    origin = get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        options = get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _check(option, value, where, bounded)
            except ValueError as error:
                errors.append(str(error))
        raise ValueError(errors[0] if len(errors) == 1 else f"{where}: unexpected {value!r:.40}")
    if origin is Literal:
        if value not in get_args(hint):
            choices = ", ".join(map(repr, get_args(hint)))
            raise ValueError(f"{where}: {value!r:.40} is not one of {choices}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list")
        if bounded and len(value) > MAX_LIST:
            raise ValueError(f"{where}: more than {MAX_LIST} items")
        (item,) = get_args(hint)
        return [_check(item, v, f"{where}[{i}]", bounded) for i, v in enumerate(value)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected a map")
        return _from_wire(hint, value, where, bounded)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise ValueError(f"{where}: unknown value {value!r:.40}") from None
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where}: expected true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}: expected an integer")
        if abs(value) > MAX_INT:
            raise ValueError(f"{where}: {value} is out of range (integers lie within ±(2**53 - 1))")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{where}: expected a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{where}: expected a string")
        if bounded and len(value) > MAX_TEXT:
            raise ValueError(f"{where}: longer than {MAX_TEXT} characters")
        return value
    raise TypeError(f"{where}: no wire form for {hint!r}")  # a bug in this module
