"""Whose code a file holds: the user's (a notebook cell, their own module) or a library's.

One answer for every part of tfnb_debug that walks frames or code objects (the
diagnosis under a failing cell, ``%%tfcheck``'s first-NaN frame, the pre-traced
functions followed through a cell's calls).  Standard library only.
"""

from __future__ import annotations

import os
import re
import sysconfig
from types import TracebackType

# A terminal IPython cell; ipykernel's cells are real files (``/tmp/ipykernel_<pid>/<hash>.py``)
# outside every library root, so the path test below takes them as the user's.
_IPYTHON_INPUT = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")
_LIBRARY_MARKERS = ("site-packages", "dist-packages", "__autograph_generated_file", "<frozen")


def _library_roots() -> tuple[str, ...]:
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tfnb_debug/ itself
    return tuple(sorted(os.path.normpath(r) + os.sep for r in roots if r))


_ROOTS = _library_roots()


def ipython_cell_number(filename: str) -> int | None:
    """The execution count in a terminal IPython cell's file name, else None."""
    match = _IPYTHON_INPUT.match(filename)
    return int(match.group(1)) if match else None


def is_user_file(filename: str) -> bool:
    """Whether code in ``filename`` is the user's: not installed packages, the standard
    library, TensorFlow's generated AutoGraph files or tfnb_debug's own."""
    if _IPYTHON_INPUT.match(filename):
        return True
    if filename.startswith("<") or any(marker in filename for marker in _LIBRARY_MARKERS):
        return False
    if filename.endswith((".pyx", ".pxd", ".pxi")) and not os.path.isabs(filename):
        return False  # a compiled (Cython) module of a package: "numpy/random/mtrand.pyx"
    path = os.path.normpath(os.path.abspath(filename))
    return not any(path.startswith(root) for root in _ROOTS)


def innermost_user_traceback(exc: BaseException) -> TracebackType | None:
    """The traceback entry of the innermost frame of ``exc`` that runs the user's code (a cell
    or a file of theirs), None when no frame does."""
    tb, user = exc.__traceback__, None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            user = tb
        tb = tb.tb_next
    return user
