"""The JSON Schema (draft 2020-12) of every message, generated from ``protocol``.

    python -m protocol.schema > docs/protocol.schema.json     # or: make schema

Every server serves it at ``GET /protocol.schema.json`` (made once, from the code it runs).

A frame is msgpack; the schema describes the map it decodes to, written as JSON. Each message is
an object with its ``type`` tag as a ``const`` and one property per field of its dataclass;
``$defs`` holds every message by class name, every value inside one (``GameState``, ``Seat``...),
``ErrorCode``, and ``ClientMessage`` and ``ServerMessage``, the ``oneOf`` of each direction.

What a client sends may leave out the fields that have a default (the schema gives it) and has
the decoder's bounds (``MAX_TEXT`` characters a string, ``MAX_LIST`` items a list); the server
always sends every field. A value used both ways whose schema differs (``TimeControl``'s
defaults) has a second definition, ``<Name>FromClient``. The schema maps exactly what
``protocol._check`` decodes, and refuses (TypeError) any other type hint: no message holds
msgpack ``bin`` (bytes) or a free-form map, since the decoder has no wire form for them.

What the schema cannot say, the decoder still checks: the ranges ``__post_init__`` enforces
(``TimeControl``, ``BotReady.max_games``), and that an integer field refuses a msgpack float
(JSON Schema counts ``4.0`` as an integer).
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import sys
import types
import typing
from typing import Any, Final, Literal, get_args, get_origin

from protocol import (
    CLIENT_MESSAGES,
    MAX_FRAME_BYTES,
    MAX_LIST,
    MAX_TEXT,
    SERVER_MESSAGES,
    Message,
    to_plain,
)

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
MAX_SAFE_INTEGER: Final = 2**53 - 1
"""The decoder refuses integers of 2**53 and beyond either way (JavaScript holds the rest)."""

DESCRIPTION: Final = (
    "Every message of the Hive Arena websocket protocol (docs/protocol.md), generated from "
    "protocol/ by `python -m protocol.schema`. Each frame is one msgpack map; this "
    "schema describes that map once decoded, written as JSON: msgpack str is a string, int "
    "an integer, float a number, nil null, array an array, map an object. No message holds "
    "msgpack bin (bytes) or an extension type. ClientMessage: what a client sends (fields "
    "with a default may be left out); ServerMessage: what the server sends (every field, "
    "always)."
)


def _description(cls: type) -> str | None:
    """The class's own docstring (not the signature dataclasses makes up for a class without
    one)."""
    doc = cls.__doc__
    if not doc or doc.startswith(f"{cls.__name__}("):
        return None
    return inspect.cleandoc(doc)


def _default(f: dataclasses.Field[Any]) -> Any:
    """The field's default value, or ``dataclasses.MISSING``."""
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


class _Builder:
    """Collects ``$defs`` while it maps type hints to schemas."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self._names: dict[tuple[type, bool], str] = {}
        self._building: set[tuple[type, bool]] = set()

    def message(self, tag: str, cls: type[Message], *, client: bool) -> dict[str, Any]:
        """A ``$ref`` to the definition of message ``cls``, tagged ``tag``."""
        if cls.__name__ in self.defs:
            raise TypeError(f"two definitions named {cls.__name__}")
        self.defs[cls.__name__] = {}  # its place: before the values it holds
        body = self._object(cls, client=client)
        body["properties"] = {"type": {"const": tag}, **body["properties"]}
        body["required"] = ["type", *body["required"]]
        self.defs[cls.__name__] = body
        return {"$ref": f"#/$defs/{cls.__name__}"}

    def _object(self, cls: type, *, client: bool) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for f in dataclasses.fields(cls):
            prop = self.value(hints[f.name], client=client, where=f"{cls.__name__}.{f.name}")
            default = _default(f)
            if default is dataclasses.MISSING or not client:
                required.append(f.name)  # the server sends every field
            else:
                prop = {**prop, "default": to_plain(default)}
            properties[f.name] = prop
        body: dict[str, Any] = {}
        description = _description(cls)
        if description:
            body["description"] = description
        body |= {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        return body

    def _dataclass(self, cls: type, *, client: bool) -> dict[str, Any]:
        """A ``$ref`` to the definition of the value class ``cls`` as sent that way."""
        key = (cls, client)
        if key in self._names:
            return {"$ref": f"#/$defs/{self._names[key]}"}
        if key in self._building:
            raise TypeError(f"{cls.__name__} holds itself: no wire form")
        self._building.add(key)
        body = self._object(cls, client=client)
        self._building.discard(key)
        name = cls.__name__
        if self.defs.get(name, body) != body:
            name += "FromClient" if client else "FromServer"
        if self.defs.setdefault(name, body) != body:
            raise TypeError(f"two definitions named {name}")
        self._names[key] = name
        return {"$ref": f"#/$defs/{name}"}

    def value(self, hint: Any, *, client: bool, where: str) -> dict[str, Any]:
        """The schema of a field of type ``hint`` (the cases of ``protocol._check``, in its
        order); ``client``: with the decoder's bounds on what a client sends."""
        origin = get_origin(hint)
        if origin is types.UnionType or origin is typing.Union:
            return self._union(get_args(hint), client=client, where=where)
        if origin is Literal:
            choices = list(get_args(hint))
            if all(isinstance(choice, str) for choice in choices):
                return {"type": "string", "enum": choices}
            return {"enum": choices}
        if origin is list:
            (item,) = get_args(hint)
            array = {"type": "array", "items": self.value(item, client=client, where=where)}
            return array | ({"maxItems": MAX_LIST} if client else {})
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._dataclass(hint, client=client)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return self._enum(hint)
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER}
        if hint is float:
            return {"type": "number"}
        if hint is str:
            return {"type": "string"} | ({"maxLength": MAX_TEXT} if client else {})
        if hint is type(None):
            return {"type": "null"}
        raise TypeError(f"{where}: no wire form for {hint!r}")

    def _union(self, options: tuple[Any, ...], *, client: bool, where: str) -> dict[str, Any]:
        schemas = [self.value(option, client=client, where=where) for option in options]
        nullable = {"type": "null"} in schemas
        others = [schema for schema in schemas if schema != {"type": "null"}]
        if nullable and len(others) == 1 and isinstance(others[0].get("type"), str):
            # X | None for a plain X: one schema, null among its types (and its choices)
            merged = {**others[0], "type": [others[0]["type"], "null"]}
            if "enum" in merged:
                merged["enum"] = [*merged["enum"], None]
            return merged
        return {"anyOf": schemas}

    def _enum(self, cls: type[enum.Enum]) -> dict[str, Any]:
        values = [member.value for member in cls]
        body: dict[str, Any] = {}
        description = _description(cls)
        if description:
            body["description"] = description
        if all(isinstance(value, str) for value in values):
            body["type"] = "string"
        body["enum"] = values
        if self.defs.setdefault(cls.__name__, body) != body:
            raise TypeError(f"two definitions named {cls.__name__}")
        return {"$ref": f"#/$defs/{cls.__name__}"}


def schema() -> dict[str, Any]:
    """The schema of every message, client's and server's."""
    builder = _Builder()
    # The server's first: the values they hold keep their plain names.
    server = [builder.message(t, c, client=False) for t, c in SERVER_MESSAGES.items()]
    client = [builder.message(t, c, client=True) for t, c in CLIENT_MESSAGES.items()]
    defs = {
        "ClientMessage": {
            "description": (
                f"A message a client sends: one binary frame of at most {MAX_FRAME_BYTES} "
                "bytes (a larger one closes the connection with 1009)."
            ),
            "oneOf": client,
        },
        "ServerMessage": {"description": "A message the server sends.", "oneOf": server},
        **builder.defs,
    }
    return {
        "$schema": DIALECT,
        "title": "Hive Arena wire protocol",
        "description": DESCRIPTION,
        "anyOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": defs,
    }


def dumps() -> str:
    """The schema as the text of docs/protocol.schema.json."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dumps())
