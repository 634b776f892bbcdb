"""The failing layer replayed alone with op-level checks: which op made the first NaN/Inf.

When ``%%tfcheck`` finds a NaN/Inf in a layer's output, :func:`rerun_with_op_checks` runs
that layer once more on its captured input, in a ``tf.function`` under TensorFlow's own
op-level numerics checks (their console output silenced), and reads the first failure's op
and the user's line that created it (:class:`OpDetail`), resolving the paths TensorFlow
shortens to "...suffix".
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from tfnb_debug.ground.files import is_user_file

__all__ = ["OpDetail", "rerun_with_op_checks"]


@dataclass(frozen=True)
class OpDetail:
    """The op that produced the first NaN/Inf inside a layer, from an op-level re-run."""

    op_type: str
    source: str  # "file:line: code" of the user's frame that created the op, or ""
    error: str = ""  # why the re-run could not name it


def rerun_with_op_checks(layer: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> OpDetail:
    """Re-run ``layer`` alone in a ``tf.function`` with op-level checks and parse the first failure.

    TensorFlow's own output during the re-run (the "Detected Infinity or NaN"
    dump its C++ runtime writes to stderr, ``INFO:tensorflow`` log lines) is
    swallowed: the report says what it found.
    """
    from tfnb_debug.collect._patching import suspended

    kwargs = {k: v for k, v in kwargs.items() if k != "training"}
    try:
        with _quiet_tensorflow():
            tf.debugging.enable_check_numerics()
            try:
                with suspended():
                    tf.function(lambda: layer(*args, **kwargs))()
            finally:
                tf.debugging.disable_check_numerics()
    except tf.errors.InvalidArgumentError as err:
        return _parse_op_error(str(err), _code_files(layer))
    except Exception as err:
        return OpDetail("", "", f"re-running the layer raised {type(err).__name__}")
    return OpDetail("", "", "the layer gave finite outputs when re-run alone on its captured input")


@contextlib.contextmanager
def _quiet_tensorflow() -> Iterator[None]:
    """Swallow what TensorFlow prints in this block: C++ stderr (file descriptor 2) and the
    ``tensorflow`` Python logger; both restored in ``finally``.

    The user's own ``sys.stderr`` is flushed first, so nothing of theirs is lost.
    """
    import logging
    import sys
    import tempfile

    logger = logging.getLogger("tensorflow")
    disabled = logger.disabled
    logger.disabled = True
    saved_fd: int | None = None
    try:
        with tempfile.TemporaryFile() as sink:
            try:
                sys.stderr.flush()
                saved_fd = os.dup(2)
                os.dup2(sink.fileno(), 2)
            except (OSError, ValueError, AttributeError):
                saved_fd = None  # no file descriptor 2 here: only the logger is quieted
            try:
                yield
            finally:
                if saved_fd is not None:
                    os.dup2(saved_fd, 2)
                    os.close(saved_fd)
    finally:
        logger.disabled = disabled


_OP_RE = re.compile(r'op "([^"]+)"')
_FRAME_RE = re.compile(r"\+ (\S[^\n]*?) \(L(\d+)\) ?([^\n]*)")


def _parse_op_error(text: str, known_files: Iterable[str] = ()) -> OpDetail:
    """The op and the user's source line from an ``enable_check_numerics`` error.

    TensorFlow shortens long paths to ``...<last characters>``; those are
    matched against ``known_files`` (the files of the failing layer's code) and
    the files Python knows (``linecache``, ``sys.modules``).  tfnb_debug's own
    frames are told by the installed package directory, so a user's folder that
    happens to be called ``tfnb_debug`` keeps its source line.
    """
    import linecache

    op = _OP_RE.search(text)
    source = ""
    frames = _FRAME_RE.findall(text)
    candidates = (
        _python_files(known_files) if any(f.startswith("...") for f, _, _ in frames) else []
    )
    user = []
    for shown, line, func in frames:
        file = _resolve_shortened(shown, int(line), candidates)
        if file and is_user_file(file):
            user.append((file, line, func))
    if user:
        file, line, func = user[-1]
        code = linecache.getline(file, int(line)).strip()
        source = f"{file}:{line}" + (f" in {func.strip()}" if func.strip() else "")
        source += f": {code}" if code else ""
    return OpDetail(op.group(1) if op else "", source)


def _code_files(layer: Any) -> list[str]:
    """The files of the code of ``layer``'s class and its bases."""
    files: list[str] = []
    for klass in type(layer).__mro__:
        for value in vars(klass).values():
            code = getattr(getattr(value, "__func__", value), "__code__", None)
            name = getattr(code, "co_filename", None)
            if isinstance(name, str) and name not in files:
                files.append(name)
    return files


def _python_files(known_files: Iterable[str]) -> list[str]:
    import linecache

    files = list(dict.fromkeys(known_files))
    files += [name for name in list(linecache.cache) if isinstance(name, str)]
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str):
            files.append(name)
    return list(dict.fromkeys(files))


def _resolve_shortened(shown: str, line: int, candidates: Sequence[str]) -> str:
    """The real path of a frame TensorFlow shortened to ``...<suffix>``, or "" if unknown."""
    import linecache

    if not shown.startswith("..."):
        return shown
    suffix = shown[3:]
    matches = [c for c in candidates if c.endswith(suffix)]
    with_line = [c for c in matches if linecache.getline(c, line).strip()]
    found = with_line or matches
    return found[0] if found else ""
