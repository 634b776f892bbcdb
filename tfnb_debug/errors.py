"""The exception and warning types tfnb_debug raises for bad input."""

from __future__ import annotations


class TfnbDebugError(ValueError):
    """Bad input to a tfnb_debug function: the message is one line naming the problem and the fix.

    The magics turn it into IPython's one-line ``UsageError``.
    """


class TfnbDebugWarning(UserWarning):
    """Something tfnb_debug could not do fully; the report says what is missing."""


def first_line(err: BaseException) -> str:
    """The first line of an exception's message, or its type name when the message is empty."""
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__
