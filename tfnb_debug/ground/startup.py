"""What loading needs before anything else: TensorFlow present, and imported without its start-up lines.

Importing TensorFlow prints a handful of C++ log lines to the process's stderr
(absl's "before absl::InitializeLog()" banner, "oneDNN custom operations are
on", the CPU-instructions notice), above the extension's status line.  When the
extension is the first to import TensorFlow and the user has not set
``TF_CPP_MIN_LOG_LEVEL``, :func:`import_tensorflow_quietly` imports it with the
stderr file descriptor captured and passes on every line except those
informational ones: warnings and errors still show.  The environment is left as
it was, so numerics (``TF_ENABLE_ONEDNN_OPTS``) and later logging are the
user's.  Setting ``TF_CPP_MIN_LOG_LEVEL`` (``0`` shows everything) turns the
filter off.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from typing import IO

_INFO_LINE = re.compile(r"^I\d{4} [\d:.]+\s+\d+ \S+:\d+\] ")  # glog/absl format, INFO
_ABSL_BANNER = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR"
)
_CPU_NOTICE = re.compile(r"^To enable the following instructions: .* rebuild TensorFlow ")


def tensorflow_installed() -> bool:
    """Whether ``import tensorflow`` can find a module (nothing is imported)."""
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


def install_command() -> str:
    return f"{sys.executable} -m pip install tensorflow-cpu"


def missing_tensorflow_message() -> str:
    """One line: TensorFlow is missing from this kernel's environment, and the command that adds it."""
    return (
        "tfnb_debug needs TensorFlow, which is not installed for this kernel's Python "
        f"({sys.executable}): run `{install_command()}` "
        "(or `tensorflow` for GPU support), restart the kernel and load the extension again; "
        "no magics were registered"
    )


def missing_tensorflow_error(name: str) -> ModuleNotFoundError:
    """The one-line error a public function raises when TensorFlow cannot be imported."""
    return ModuleNotFoundError(
        f"tfnb_debug.{name} needs TensorFlow, which is not installed for this Python "
        f"({sys.executable}): run `{install_command()}` (or `tensorflow` for GPU support)",
        name="tensorflow",
    )


def drop_startup_noise(text: str) -> str:
    """``text`` without TensorFlow's informational start-up lines; every other line is kept."""
    kept = [
        line
        for line in text.splitlines(keepends=True)
        if not (
            _INFO_LINE.match(line) or line.rstrip("\r\n") == _ABSL_BANNER or _CPU_NOTICE.match(line)
        )
    ]
    return "".join(kept)


def import_tensorflow_quietly() -> None:
    """Import TensorFlow without its informational start-up lines, unless the user asked for them.

    Does nothing when TensorFlow is imported already (its lines are out) or when
    ``TF_CPP_MIN_LOG_LEVEL`` is set (the user chose what to see).
    """
    if "tensorflow" in sys.modules or "TF_CPP_MIN_LOG_LEVEL" in os.environ:
        return
    with _stderr_fd_filtered():
        import tensorflow  # noqa: F401


@contextlib.contextmanager
def _stderr_fd_filtered() -> Iterator[None]:
    """Capture file descriptor 2 (where C++ logs go) into a file; on exit, pass on what is not noise.

    A file, not a pipe, so that a large amount of output cannot block the writer.
    When descriptor 2 cannot be duplicated (no stderr at all), nothing is captured.
    """
    with contextlib.ExitStack() as stack:
        try:
            saved = os.dup(2)
        except OSError:
            yield
            return
        stack.callback(os.close, saved)
        capture: IO[bytes] = stack.enter_context(tempfile.TemporaryFile())
        _flush_stderr()
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            _flush_stderr()
            os.dup2(saved, 2)
            capture.seek(0)
            rest = drop_startup_noise(capture.read().decode("utf-8", "replace"))
            if rest:
                os.write(2, rest.encode("utf-8"))


def _flush_stderr() -> None:
    with contextlib.suppress(Exception):
        sys.stderr.flush()
