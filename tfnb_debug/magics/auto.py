"""Explain every failed cell automatically, and ``%tfnb auto on|off|status`` to switch it.

The extension registers :func:`explain_failed_cell` on IPython's
``post_run_cell`` event, which fires after the traceback was printed, so the
diagnosis box appears under it.  The callback only reads the exception: the
traceback, the exception object and the cell's failed status are untouched,
and any error inside the diagnosis is swallowed so the user's error is the only
thing they see.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from tfnb_debug._state import ExtensionState, state_for

AUTO = "auto_explain"
EVENT = "post_run_cell"
REPORTED = "_tfnb_debug_reported"


def register_auto(shell: Any, state: ExtensionState) -> None:
    """Hook the diagnosis onto ``post_run_cell``; unload removes it via ``state.callbacks``."""
    state.settings.setdefault(AUTO, True)

    def callback(result: Any) -> None:
        explain_failed_cell(shell, result)

    shell.events.register(EVENT, callback)
    state.callbacks.append((EVENT, callback))


def mark_reported(exc: BaseException) -> None:
    """Tell the automatic diagnosis that a tfnb_debug magic already reported this exception."""
    with contextlib.suppress(Exception):
        setattr(exc, REPORTED, True)


def explain_failed_cell(shell: Any, result: Any) -> None:
    """Show the diagnosis of a failed cell's exception, or nothing; never raises."""
    try:
        if not state_for(shell).settings.get(AUTO, True):
            return
        exc = getattr(result, "error_in_exec", None)
        if exc is None or getattr(exc, REPORTED, False):
            return
        from tfnb_debug import explain

        cells = getattr(getattr(shell, "compile", None), "_filename_map", None)
        report = explain.explain_exception(exc, cells=cells)
        if report is None:
            return
        magics = shell.magics_manager.magics.get("cell", {})
        report = replace(report, available_magics=frozenset(magics))
        bundle = report._repr_mimebundle_()  # rendered here, so a rendering bug stays silent
        from IPython.display import display

        display(bundle, raw=True)
    except Exception:
        return


@magics_class
class AutoMagics(Magics):
    @line_magic
    @magic_arguments()
    @argument("feature", choices=["auto"], help="the setting to change: auto")
    @argument(
        "value",
        nargs="?",
        default="status",
        choices=["on", "off", "status"],
        help="on, off or status",
    )
    def tfnb(self, line: str) -> None:
        """Switch the automatic diagnosis of failed cells on or off.

        After ``%load_ext tfnb_debug`` every cell that raises a TensorFlow or
        Keras error gets a short diagnosis box under its traceback (findings
        S01, S06, S07, P12, T02, R03, N01, G03 and a next step).

        Usage::

            %tfnb auto off      # no more boxes under tracebacks
            %tfnb auto on
            %tfnb auto status   # (or just %tfnb auto) says whether it is on
        """
        args = parse_argstring(self.tfnb, line)
        settings = state_for(self.shell).settings
        if args.value != "status":
            settings[AUTO] = args.value == "on"
        on = settings.get(AUTO, True)
        print(f"tfnb_debug: automatic error diagnosis is {'on' if on else 'off'}")
