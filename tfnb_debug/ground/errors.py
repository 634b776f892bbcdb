"""The exception and warning types tfnb_debug raises for bad input."""

from __future__ import annotations

from tfnb_debug.ground.text import first_line as first_line  # kept importable from here


class TfnbDebugError(ValueError):
    """Bad input to a tfnb_debug function: the message is one line naming the problem and the fix.

    The magics turn it into IPython's one-line ``UsageError``.
    """


class TfnbDebugWarning(UserWarning):
    """Something tfnb_debug could not do fully; the report says what is missing."""
