"""Exceptions raised by the rules engine. Messages quote the offending input."""


class HiveError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class InvalidMoveError(HiveError):
    """A MoveString that cannot be read (bad syntax, unknown piece, unknown reference)."""


class IllegalMoveError(HiveError):
    """A readable move that the rules do not allow in this position."""


class InvalidGameStringError(HiveError):
    """A GameString or GameTypeString that cannot be read or does not replay."""
