"""What a name was assigned in the lines above the failing one: ``x = df.values`` read back.

Plain text over the cell's (or file's) lines, no tfnb_debug imports: the readers at every
level of ``explain`` use it (the failing call's arguments, the data, the labels, the tape).
"""

from __future__ import annotations

import linecache
import re

__all__ = ["assigned_before", "assigned_from"]


def assigned_before(name: str, filename: str, lineno: int) -> str:
    """The right-hand side of the last ``name = ...`` in the file above line ``lineno``."""
    return assigned_from(name, linecache.getlines(filename)[: max(lineno - 1, 0)])


def assigned_from(name: str, before: list[str]) -> str:
    """The right-hand side of the last ``name = ...`` in the lines before the failing one."""
    if not name.isidentifier():
        return ""
    pattern = re.compile(rf"^\s*{re.escape(name)}\s*=\s*(.+?)\s*$")
    found = ""
    for line in before:
        match = pattern.match(line)
        if match:
            found = match.group(1)
    return found
