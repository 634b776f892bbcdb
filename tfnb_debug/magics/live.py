"""The live-view options of the recording cell magics (``--live``, ``--no-live``,
``--live-interval``) and the :class:`~tfnb_debug.features.live.LiveView` they ask for."""

from __future__ import annotations

import math
from typing import Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument

from tfnb_debug.features.live import LiveView

__all__ = ["DEFAULT_LIVE_INTERVAL", "live_arguments", "live_view"]

F = TypeVar("F")

#: seconds between two updates of the live view
DEFAULT_LIVE_INTERVAL = 2.0


def live_arguments(func: F) -> F:
    func = argument(
        "--live-interval",
        type=float,
        default=DEFAULT_LIVE_INTERVAL,
        metavar="S",
        help=f"seconds between live updates (default {DEFAULT_LIVE_INTERVAL:g})",
    )(func)
    func = argument("--no-live", action="store_true", help="no live view while the cell runs")(func)
    func = argument(
        "--live",
        action="store_true",
        help="a live view while the cell runs (default in Jupyter; a text line per update "
        "in a terminal)",
    )(func)
    return func


def live_view(shell: Any, args: Any, title: str, *, stop_on: str | None = None) -> LiveView:
    """The live view the options ask for; a one-line ``UsageError`` for bad ones.

    On by default in a Jupyter kernel (JupyterLab, Notebook 7, VS Code), off in
    a terminal IPython and with ``-q``; ``--live`` forces it on (a text line
    per update in a terminal), ``--no-live`` off.
    """
    if args.live and args.no_live:
        raise UsageError("--live and --no-live contradict each other: give one of them")
    interval = args.live_interval
    if not math.isfinite(interval) or interval < 0.05:
        raise UsageError(
            f"--live-interval {interval:g} is out of range: give seconds, 0.05 or more "
            f"(default {DEFAULT_LIVE_INTERVAL:g})"
        )
    if args.live and args.quiet:
        raise UsageError("-q shows nothing, so there is no live view: drop --live or -q")
    module = type(shell).__module__
    wanted = args.live or (not args.no_live and not args.quiet and module.startswith("ipykernel"))
    mode = None
    if wanted:
        mode = "print" if module.startswith("IPython.terminal") else "display"
    return LiveView(title, mode=mode, interval=interval, stop_on=stop_on)
