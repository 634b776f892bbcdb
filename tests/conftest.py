"""Shared fixtures: a real IPython shell with the extension loaded, and display capture."""

from __future__ import annotations

import gc
import os
import sys

# Quiet TensorFlow's C++ logs before anything imports it (level alone is not enough).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

from collections.abc import Iterator  # noqa: E402

import pytest  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402


def _open_figures() -> set[int]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    return set(pyplot.get_fignums()) if pyplot is not None else set()


def _close_figures_opened_since(before: set[int]) -> None:
    """Close the pyplot figures a test's user cells opened (a case that plots its history)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        for number in set(pyplot.get_fignums()) - before:
            pyplot.close(number)


@pytest.fixture(scope="module", autouse=True)
def _older_objects_frozen() -> None:
    """Each test file starts with what the files before it left collected, then frozen.

    A full garbage collection (``gc.collect()``, which ``keras.backend.clear_session()``
    runs too) scans every tracked object.  TensorFlow and Keras keep some graphs of every
    model fitted in the process (18 per ``fit`` of a new two-layer model, with or without
    tfnb_debug), so late in a worker that is millions of objects and several seconds
    per collection: the tests that collect took 5-40 times as long as alone.  Frozen
    (``gc.freeze()``), the survivors of the files before are left out of later
    collections; what this file makes is still collected as before.  The price: a cycle
    among objects that were alive at a file's start and die later is never collected
    (memory only; reference counting still frees the rest).
    """
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def bare_shell() -> InteractiveShell:
    """The process's real InteractiveShell, without the extension."""
    return InteractiveShell.instance()


@pytest.fixture
def shell(bare_shell: InteractiveShell) -> Iterator[InteractiveShell]:
    """A real InteractiveShell with tfnb_debug loaded; unloaded and cleaned after the test."""
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    user_keys = set(bare_shell.user_ns)
    figures = _open_figures()
    try:
        yield bare_shell
    finally:
        for key in set(bare_shell.user_ns) - user_keys:
            bare_shell.user_ns.pop(key, None)
        _close_figures_opened_since(figures)
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")
