"""The ``--control`` option of the training cell magics (``%%tfgrad``, ``%%tfmem``,
``%%tfcheck``): when P15's control run on shuffled labels runs."""

from __future__ import annotations

from typing import Any, TypeVar

from IPython.core.magic_arguments import argument

__all__ = ["QUIET_SKIP", "control_argument", "label_control"]

F = TypeVar("F")

#: what P15 says when -q skipped its control run
QUIET_SKIP = "skipped with -q; add --control to run it"


def control_argument(func: F) -> F:
    return argument(
        "--control",
        action="store_true",
        help="run the short runs on copies of the model also with -q: P15's control on "
        "shuffled labels, and %%%%tfgrad's trial of a training fault's fix (a few seconds)",
    )(func)


def label_control(args: Any) -> bool | str:
    """``label_control`` for the recording: run the control unless -q asks for no report
    (then its cost buys nothing shown) and ``--control`` does not ask for it anyway."""
    return True if args.control or not args.quiet else QUIET_SKIP
