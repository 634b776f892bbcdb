"""Ground-level text helpers: an error's first line and key sentence, ANSI codes removed, a loss's name.

TensorFlow-free and importing nothing of tfnb_debug, so collectors, rules,
renderers and magics can all use them.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["first_line", "key_sentence", "loss_name", "strip_ansi"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FUNCTION_NODE = re.compile(r"\{\{function_node [^}]*\}\}\s*")
_OP_SUFFIX = re.compile(r"\s*\[Op:[^\]]*\]\s*(name:\s*\S*)?\s*$")
# Lines of a Keras/TensorFlow message that wrap the sentence rather than say what is wrong.
_WRAPPERS = (
    "Graph execution error:",
    "Detected at node",
    "in user code:",
    'File "',
    "Exception encountered when calling",
    "Arguments received by",
    "Could not automatically infer the output shape",
    "Either the `",
    "Error encountered:",
    "•",
    "[[",
    "!!!",
)


def loss_name(loss: Any) -> str:
    """What a user calls a compiled loss: its name, function name or class name."""
    if isinstance(loss, str):
        return loss
    if isinstance(loss, dict):
        return ", ".join(f"{key}: {loss_name(value)}" for key, value in loss.items())
    if isinstance(loss, list | tuple):
        return ", ".join(loss_name(value) for value in loss)
    fn = getattr(loss, "fn", None)
    return str(
        getattr(fn, "__name__", None) or getattr(loss, "__name__", None) or type(loss).__name__
    )


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour codes (Keras colours parts of its messages)."""
    return _ANSI.sub("", text)


def first_line(err: BaseException) -> str:
    """The first line of an exception's message, or its type name when the message is empty."""
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def key_sentence(message: str, *, limit: int = 300) -> str:
    """The line of a Keras/TensorFlow error message that says what is wrong, or ``""``.

    Colour codes, ``{{function_node ...}}`` markers, the ``[Op:...]`` suffix and
    Keras' wrapper lines (``Exception encountered when calling``, ``Graph
    execution error:``, the argument list, ...) are skipped; a line longer than
    ``limit`` characters is cut with an ellipsis.
    """
    for raw in strip_ansi(message).splitlines():
        line = _OP_SUFFIX.sub("", _FUNCTION_NODE.sub("", raw)).strip()
        if line and not line.startswith(_WRAPPERS):
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
