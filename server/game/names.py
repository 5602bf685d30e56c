"""Names people and bots are shown by: what a name may be, and which names are taken.

A nickname is read as Unicode NFKC (so ``Ａｄａ`` is ``Ada``), then must have 1 to
``MAX_NICKNAME`` letters, digits, spaces, ``.``, ``-`` or ``_``, at least one of them a visible
letter or digit, and no character of the kind that shows as blank (U+3164 HANGUL FILLER...).
Its letters must come from one script, so that ``аda`` (a Cyrillic ``а``) does not pass for
``ada``; the lookalike tables are the Unicode consortium's (``confusable_homoglyphs``). A
person's name may not pretend to be a bot: not a bot level or a bot account, and no last word
``bot``, whatever the case, the separators or the lookalike letters (``Ехреrt_Bot`` is refused).
Nor may a guest take an account's name, whatever the case, the separators or the width of its
letters (``folded``: ``Magnus C`` and ``ｍａｇｎｕｓ_c`` are ``magnus_c``'s).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Final

from confusable_homoglyphs import confusables

from protocol import MAX_NICKNAME, ErrorCode, ProtocolError

NICKNAME_RE: Final = re.compile(rf"[\w .\-]{{1,{MAX_NICKNAME}}}")
_BLANK_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0")
"""Letters (``\\w`` matches them) that show as nothing: Unicode's default-ignorable ones."""
_SEPARATORS: Final = re.compile(r"[\s._\-]+")


def _refuse(why: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_MESSAGE, why)


def readable(text: str, what: str = "nickname") -> str:
    """``text`` as a name (NFKC, spaces around it dropped), if it is one anyone can read;
    ``what`` names it in a refusal.

    Raises:
        ProtocolError: BAD_MESSAGE saying why not.
    """
    name = unicodedata.normalize("NFKC", text).strip()
    if not NICKNAME_RE.fullmatch(name):
        raise _refuse(
            f"a {what} has 1 to {MAX_NICKNAME} letters (of one script), digits, spaces, "
            "'.', '-', '_'"
        )
    if _BLANK_LETTERS.intersection(name):
        raise _refuse(f"a {what} may not hold characters that show as blank")
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise _refuse(f"a {what} needs a letter or a digit")
    if confusables.is_mixed_script(name):
        raise _refuse(f"a {what}'s letters come from one script (no lookalike letters)")
    return name


def folded(name: str) -> str:
    """``name`` as NFKC, case folded, its separators (spaces, ``.``, ``_``, ``-``) dropped: how
    a guest's name is compared with the accounts' (``Ｍａｇｎｕｓ c`` is ``magnusc``, as
    ``magnus_c`` is)."""
    return _SEPARATORS.sub("", unicodedata.normalize("NFKC", name).casefold())


def skeleton(name: str) -> str:
    """What ``name`` looks like, for comparing names: case folded, separators dropped, and
    each lookalike letter replaced by the Latin letter it passes for."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    found = confusables.is_confusable(folded, greedy=True, preferred_aliases=["latin"]) or []
    latin = {}
    for entry in found:
        ascii_ = [h["c"] for h in entry["homoglyphs"] if h["c"].isascii()]
        if ascii_:
            latin[entry["character"]] = ascii_[0].casefold()
    return "".join(latin.get(c, c) for c in _SEPARATORS.sub("", folded))


def reserved(levels: Iterable[str], bots: Iterable[str]) -> frozenset[str]:
    """The skeletons of the names a person may not take: each bot level, as it is and as its
    bots are called (``expert bot``), and each bot account's name."""
    taken = {skeleton(name) for name in bots}
    for level in levels:
        taken |= {skeleton(level), skeleton(f"{level} bot")}
    return frozenset(taken)


def nickname(text: str, taken: frozenset[str]) -> str:
    """``text`` as a person's nickname: readable, and not pretending to be a bot (``taken``:
    see ``reserved``).

    Raises:
        ProtocolError: BAD_MESSAGE saying why not.
    """
    name = readable(text, "nickname")
    words = _SEPARATORS.split(name.strip(" .-_"))
    if skeleton(name) in taken or skeleton(words[-1]) == "bot":
        raise _refuse(f"{name!r} is a bot's name: choose another nickname")
    return name


def bot_name(text: str, levels: Iterable[str]) -> str:
    """``text`` as a bot account's name: readable, and not one of the server's bot levels.

    Raises:
        ProtocolError: BAD_MESSAGE saying why not.
    """
    name = readable(text, "bot's name")
    if skeleton(name) in reserved(levels, ()):
        raise _refuse(f"{name!r} is the name of one of the server's bot levels")
    return name
