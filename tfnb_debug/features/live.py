"""The live view: one display that updates in place while a recorded cell runs.

``%%tfgrad``, ``%%tfmem`` and ``%%tfcheck`` open a :class:`LiveView` around
the cell.  At the end of a training step (see
:mod:`tfnb_debug.collect.step_ticks`), at most once per ``interval`` seconds
(throttled by time, not by steps), the view asks each of its sources for a
:class:`LivePart` and updates one display handle: step, loss, per-layer
gradient norms, memory and the findings known so far.  When the cell ends,
the same display is replaced by the full report (or the partial report of a
failed or interrupted cell).

What a source reads: a gradient recording copies the records written since
the last update from the device (each record crosses once; the end of the
cell copies only the rest), memory comes from the sampler thread's host
readings, ``%%tfcheck`` reads its step counters.  Nothing is read per step,
except with ``stop_on``: then the gradient records are copied at every step
(one read per step, as ``keras.callbacks.TerminateOnNaN`` reads the loss),
so that training stops at the first bad step.

In a Jupyter kernel the view is a display handle (HTML and a text line); in
a terminal IPython it prints one text line per update.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from tfnb_debug.records.live import STOP_CODES, LivePart, LiveState, StopRequest, merge_parts
from tfnb_debug.render.live import live_html, live_text

__all__ = [
    "STOP_CODES",
    "LivePart",
    "LiveSource",
    "LiveState",
    "LiveView",
    "StopRequest",
    "TrainingStopped",
    "merge_parts",
]


class Rendered:
    """One update as a display object: its HTML and its text line, drawn once."""

    def __init__(self, state: LiveState) -> None:
        self.html = live_html(state)
        self.text = live_text(state)

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


class TrainingStopped(Exception):
    """Raised in a custom training loop by ``--stop-on`` after the first bad step.

    ``%%tfgrad`` catches it and shows the report up to that step; ``model.fit``
    is stopped without it (through ``model.stop_training``).
    """

    def __init__(self, request: StopRequest) -> None:
        super().__init__(request.describe())
        self.request = request


class LiveSource(Protocol):
    def live_part(self) -> LivePart: ...

    def stop_request(self, kind: str) -> StopRequest | None: ...


@dataclass
class LiveView:
    """The live display of one cell; a context manager around the cell's code.

    ``mode``: ``"display"`` (an updating display handle: Jupyter front ends),
    ``"print"`` (a text line per update: terminal IPython) or ``None`` (no
    display; only ``stop_on`` acts).  ``interval``: seconds between updates.
    """

    title: str
    mode: str | None = "display"
    interval: float = 2.0
    stop_on: str | None = None
    sources: list[LiveSource] = field(default_factory=list)
    #: seconds each update took (collect + render + publish): the live view's cost
    costs: list[float] = field(default_factory=list)
    stopped: StopRequest | None = None
    _handle: Any = None
    _ticks: Any = None
    _start: float = 0.0
    _next: float = 0.0
    _updates: int = 0
    _failed: str | None = None

    def __post_init__(self) -> None:
        from tfnb_debug.ground.errors import TfnbDebugError

        if self.mode not in ("display", "print", None):
            raise TfnbDebugError(f"mode must be 'display', 'print' or None, got {self.mode!r}")
        if self.stop_on is not None and self.stop_on not in STOP_CODES:
            raise TfnbDebugError(
                f"stop_on must be one of {', '.join(map(repr, STOP_CODES))} or None, "
                f"got {self.stop_on!r}"
            )
        if not isinstance(self.interval, int | float) or not self.interval >= 0:
            raise TfnbDebugError(f"interval must be seconds (0 or more), got {self.interval!r}")

    @property
    def active(self) -> bool:
        return self.mode is not None or self.stop_on is not None

    def add(self, source: LiveSource) -> None:
        self.sources.append(source)

    def __enter__(self) -> LiveView:
        self._start = time.monotonic()
        self._next = self._start + self.interval
        if not self.active:
            return self
        from tfnb_debug.collect.step_ticks import StepTicks

        if self.mode == "display":
            from IPython.display import display

            self._handle = display(Rendered(self._state(LivePart())), display_id=True)
        self._ticks = StepTicks(self._on_step)
        self._ticks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._ticks is not None:
            ticks, self._ticks = self._ticks, None
            ticks.__exit__(*exc)

    # -- at each step ------------------------------------------------------------------------
    def _on_step(self, source: str, model: Any, in_fit: bool) -> None:
        __tracebackhide__ = True
        if self.stop_on is not None and (source == "fit") == in_fit:
            self._check_stop(model, in_fit)
        if self.mode is not None and time.monotonic() >= self._next:
            self.update()

    def _check_stop(self, model: Any, in_fit: bool) -> None:
        __tracebackhide__ = True
        assert self.stop_on is not None
        request = None
        for live_source in self.sources:
            with contextlib.suppress(Exception):  # a failed check must not stop training
                request = live_source.stop_request(self.stop_on)
            if request is not None:
                break
        if request is None:
            return
        first = self.stopped is None
        self.stopped = self.stopped or request  # the first stop is the one the report names
        if first and self.mode is not None:
            self.update()
        if in_fit and model is not None:
            model.stop_training = True  # fit ends after this batch, as TerminateOnNaN does
        else:
            raise TrainingStopped(request)

    def update(self) -> None:
        """Collect every source's part now and show it (errors end the live view, quietly)."""
        if self._failed is not None or self.mode is None:
            return
        began = time.monotonic()
        try:
            shown = Rendered(self._state(merge_parts([s.live_part() for s in self.sources])))
            if self.mode == "display" and self._handle is not None:
                self._handle.update(shown)
            elif self.mode == "print":
                print(shown.text, flush=True)
        except Exception as err:  # the live view is a convenience: never in training's way
            self._failed = f"{type(err).__name__}: {err}"
            return
        self._updates += 1
        now = time.monotonic()
        self.costs.append(now - began)
        self._next = now + self.interval

    def _state(self, part: LivePart, *, final: bool = False) -> LiveState:
        return LiveState(
            title=self.title,
            elapsed=time.monotonic() - self._start,
            updates=self._updates,
            interval=self.interval,
            part=part,
            stopped=self.stopped,
            final=final,
        )

    # -- at the end --------------------------------------------------------------------------
    def show(self, report: Any) -> bool:
        """Replace the live display by ``report``; False when there is no live display."""
        if self._handle is None:
            return False
        try:
            self._handle.update(report)
        except Exception:
            return False
        return True

    @contextlib.contextmanager
    def closed_on_error(self) -> Iterator[None]:
        """Around the making of the report: if it fails, the last update stays, marked ended."""
        try:
            yield
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """No report to show (the cell failed before any): leave the last update, marked final."""
        if self._handle is None:
            return
        with contextlib.suppress(Exception):
            parts = merge_parts([s.live_part() for s in self.sources])
            self._handle.update(Rendered(self._state(parts, final=True)))


def stop_note(request: StopRequest) -> str:
    """The line a report gets when ``--stop-on`` stopped training."""
    return request.describe() + " (the report covers the steps up to it)"


def with_stop_note(report: Any, request: StopRequest | None) -> Any:
    if request is None or report is None:
        return report
    return replace(report, summary=(stop_note(request), *report.summary))


def recent(values: Iterable[float], limit: int) -> tuple[float, ...]:
    out = tuple(float(v) for v in values)
    return out[-limit:]
