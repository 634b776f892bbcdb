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
from IPython.core.magic_arguments import argument, kwds, magic_arguments

from tfnb_debug.explain.report import ExplainReport
from tfnb_debug.ground.state import ExtensionState, state_for

AUTO = "auto_explain"
EVENT = "post_run_cell"
REPORTED = "_tfnb_debug_reported"
WIDGET = "auto_explain_widget"


def register_auto(shell: Any, state: ExtensionState) -> None:
    """Hook the diagnosis onto ``post_run_cell``; unload removes it via ``state.callbacks``."""
    state.settings.setdefault(AUTO, True)

    def callback(result: Any) -> None:
        explain_failed_cell(shell, result)

    shell.events.register(EVENT, callback)
    state.callbacks.append((EVENT, callback))
    state.closers.append(lambda: close_widget(shell))


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
        bundle: dict[str, Any] = dict(report._repr_mimebundle_())  # a rendering bug stays silent
        if widgets_render(shell):
            raw_cell = getattr(getattr(result, "info", None), "raw_cell", "") or ""
            view = rerun_button(shell, report, raw_cell)
            if view is not None:
                bundle.update(view)
        from IPython.display import display

        display(bundle, raw=True)
    except Exception:
        return


def widgets_render(shell: Any) -> bool:
    """Widgets render only in a Jupyter kernel (not a terminal or a plain shell)."""
    return getattr(shell, "kernel", None) is not None


def rerun_button(shell: Any, report: ExplainReport, raw_cell: str) -> dict[str, Any] | None:
    """A widget view: a button that re-runs the failed cell under the next step's cell magic.

    Only for a step whose magic is registered, and not for a cell that already
    starts with a cell magic.  The text form stays in the same bundle, so a
    frontend without widgets shows the exact text to type.  The previous
    button is closed (one live widget at a time; unload closes the last).
    """
    steps = [s for s in report.next_steps if s.magic and s.magic in (report.available_magics or ())]
    if not steps or not raw_cell.strip() or raw_cell.lstrip().startswith("%%"):
        return None
    import ipywidgets as widgets

    magic = steps[0].magic
    button = widgets.Button(description=f"Re-run this cell with {steps[0].command()}")
    button.layout.width = "auto"
    out = widgets.Output()

    def on_click(_: Any) -> None:
        with out:
            out.clear_output()
            shell.run_cell_magic(magic, "", raw_cell)  # an error is shown by Output.__exit__

    button.on_click(on_click)
    box = widgets.VBox([button, out])
    state = state_for(shell)
    previous = state.settings.pop(WIDGET, None)
    if previous is not None:
        _close(previous)
    state.settings[WIDGET] = box
    return {
        "application/vnd.jupyter.widget-view+json": {
            "model_id": box.model_id,
            "version_major": 2,
            "version_minor": 0,
        }
    }


def _close(box: Any) -> None:
    for child in getattr(box, "children", ()):
        child.close()
    box.close()


def close_widget(shell: Any) -> None:
    """Close the last diagnosis button (run on unload)."""
    box = state_for(shell).settings.pop(WIDGET, None)
    if box is not None:
        _close(box)


@magics_class
class AutoMagics(Magics):
    @line_magic
    @magic_arguments()
    @kwds(usage="%(prog)s auto [on|off|status]")
    @argument("feature", choices=["auto"], metavar="auto", help="the setting to change: auto")
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
        S01, S06, S07, P12, T02, R03, N01, G03, G04 and a next step).

        Usage::

            %tfnb auto off      # no more boxes under tracebacks
            %tfnb auto on
            %tfnb auto status   # (or just %tfnb auto) says whether it is on
        """
        from tfnb_debug.magics.shell import parse_arguments

        args = parse_arguments(self.tfnb, line)
        settings = state_for(self.shell).settings
        if args.value != "status":
            settings[AUTO] = args.value == "on"
        on = settings.get(AUTO, True)
        print(f"tfnb_debug: automatic error diagnosis is {'on' if on else 'off'}")
