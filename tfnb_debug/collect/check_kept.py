"""The checked functions ``%%tfcheck`` keeps across runs, and what their traces added to the checks.

A model's checked train, test and predict functions are kept after a clean run
in :mod:`tfnb_debug.collect.kept` (never on the model), under :data:`KIND`, as
one :class:`_KeptCheckedFunctions`; each function with its :class:`_Traced`:
the places its graph checks, the layers its failure tags name, the optimizers
it updates and their step counters.  The next run on the same model,
optimizer, compile configuration and options uses them again instead of
tracing, and takes those over.

:class:`CheckedFunctions` is the part of
:class:`~tfnb_debug.collect.check.NumericsChecks` that does this: it wraps each
function a model makes in the run (:meth:`CheckedFunctions.checked_function`,
called by the patched ``make_*_function``: gathers what its trace adds, counts
the train function's calls), installs a kept one instead when the model's
setup is unchanged (:meth:`CheckedFunctions.reuse_kept`), and at the end of a
clean run picks the functions a later run may use
(:meth:`CheckedFunctions._functions_to_keep`) and keeps them when told to
(:meth:`CheckedFunctions.keep_functions`).  The run's lists it adds to are set
by ``NumericsChecks.__init__``; the layers and outputs a reused function
checks are registered with the layer hook's ``_register`` and ``_add_output``
(:mod:`tfnb_debug.collect.check_layers`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tfnb_debug.collect.kept import Setup, keep, kept_for, kept_function

__all__ = ["FUNCTIONS", "KIND", "CheckedFunctions", "kept_checked_function"]

#: the store's kind for the checked functions kept here
KIND = "check"

#: the functions a Keras model makes for ``fit``/``evaluate``/``predict`` (one step each)
FUNCTIONS = ("train_function", "test_function", "predict_function")


def kept_checked_function(model: Any) -> Any:
    """The checked train function kept for ``model``, or None (dropped if the model's
    optimizer, compile configuration or trainable variables changed since)."""
    return kept_function(model, KIND)


@dataclass(eq=False)
class _Traced:
    """What tracing one function (train, test or predict) added to the checks, gathered
    while it ran.

    The places its graph checks, the layers its failure tags name, the
    optimizers it updates and their step counters (variables its graph adds
    to): a run that uses the function again without tracing takes these over.
    """

    layers: list[tuple[Any, str]] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)
    gradients: list[str] = field(default_factory=list)
    unchecked_gradients: list[str] = field(default_factory=list)
    optimizers: list[Any] = field(default_factory=list)
    counters: list[tuple[Any, Any]] = field(default_factory=list)
    _seen: set[tuple[Any, ...]] = field(default_factory=set, repr=False)

    def add_layer(self, layer: Any, path: str) -> None:
        """``layer`` called at ``path`` (once each: a set lookup, as every layer call of the
        trace comes here, where scanning the list grew with the square of the layers)."""
        if ("layer", id(layer), path) not in self._seen:
            self._seen.add(("layer", id(layer), path))
            self.layers.append((layer, path))

    def add_output(self, path: str) -> None:
        """The output at ``path`` is checked (once each)."""
        if ("output", path) not in self._seen:
            self._seen.add(("output", path))
            self.outputs.append(path)


def _add(items: list[Any], item: Any) -> None:
    """Append ``item`` unless it is there: names by value, objects (and the parts of a
    pair) by identity, never with ``==`` (a variable's ``==`` is elementwise)."""
    if all(not _same(known, item) for known in items):
        items.append(item)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))
    return a is b


@dataclass(eq=False)
class _Built:
    """A function the checks made (or took from the store) for a model in this run."""

    model: Any
    name: str  # one of FUNCTIONS
    function: Any  # Keras' function, traced under the checks
    wrapper: Any  # what the model's attribute ``name`` is while the run lasts
    traced: _Traced | None  # None: an eager function (nothing to keep)
    setup: Setup


@dataclass(eq=False)
class _KeptCheckedFunctions:
    """A model's checked train/test/predict functions kept across runs (in
    :mod:`tfnb_debug.collect.kept`), each with what its trace added to the checks."""

    model: weakref.ref[Any]
    setup: Setup
    functions: dict[str, tuple[Any, _Traced]]  # attribute name -> (function, its trace)
    loss_facts: tuple[Any, ...] = ()  # the (compiled) cross-entropy facts of their traces

    @property
    def function(self) -> Any:
        """The kept train function (None if only a test or predict function is kept)."""
        return self.functions.get("train_function", (None, None))[0]


class CheckedFunctions:
    """A model's train/test/predict functions as they run in a checked run, kept for the
    next (a mixin of :class:`~tfnb_debug.collect.check.NumericsChecks`, which sets the
    state below; ``_register`` and ``_add_output`` are the layer hook's)."""

    op_detail: bool
    checked_losses: list[str]
    checked_gradients: list[str]
    unchecked_gradients: list[str]
    reused: list[_KeptCheckedFunctions]
    _optimizers: list[Any]
    _counters: list[tuple[Any, Any]]
    _batches: int
    _failed_batch: int | None
    _tracing: _Traced | None
    _built: list[_Built]
    _to_keep: list[tuple[Any, _KeptCheckedFunctions]]
    _register: Callable[[Any, str], int]
    _add_output: Callable[[str], None]

    def _setup(self, model: Any) -> Setup:
        """What ``model``'s checked functions depend on.  Not the model's XLA
        setting: the checks always run without XLA (it is pinned off for the run)."""
        return Setup(model, (KIND, self.op_detail), xla=False)

    def keep_functions(self, loss_facts: Sequence[Any] = ()) -> None:
        """Keep the checked functions of this run for the next run (after a clean run, when
        nothing else needs a fresh trace: the caller decides).  ``loss_facts``: the
        loss watch's facts of the run, all from compiled losses."""
        for model, entry in self._to_keep:
            entry.loss_facts = tuple(loss_facts)
            keep(entry, model, KIND)
        self._to_keep = []

    def checked_function(
        self, model: Any, name: str, function: Any, traced: _Traced | None = None
    ) -> Any:
        """``model``'s ``name`` (one of :data:`FUNCTIONS`) as it runs in this run.

        While it runs, what its tracing adds to the checks is gathered
        (:class:`_Traced`; a kept function's goes on into its own ``traced``),
        so that the function can be kept for the next run.  A train function
        also counts its calls: in ``fit`` one call is one batch, so a failed
        call gives the failing step exactly, however many optimizers the train
        step updates.  With ``steps_per_execution > 1`` a call runs several
        batches, so then the optimizer updates tell the step (calls are not
        counted).
        """
        count = name == "train_function" and getattr(model, "steps_per_execution", 1) == 1
        if traced is None and not bool(getattr(model, "run_eagerly", False)):
            traced = _Traced()

        def checked(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            if count:
                self._batches += 1
            outer, self._tracing = self._tracing, traced
            try:
                return function(*args, **kwargs)
            except BaseException:
                if count and self._failed_batch is None:
                    self._failed_batch = self._batches - 1
                raise
            finally:
                self._tracing = outer

        checked.__tfnb_debug_checked__ = True  # type: ignore[attr-defined]
        self._built.append(_Built(model, name, function, checked, traced, self._setup(model)))
        return checked

    # -- keeping the checked functions ---------------------------------------------------

    def reuse_kept(self, model: Any, name: str) -> bool:
        """Install ``model``'s kept checked ``name`` function if its setup is unchanged;
        whether it was.  This run takes over what its trace added to the checks, and
        its step counters start again from zero."""
        if bool(getattr(model, "run_eagerly", False)):
            return False
        kept = kept_for(model, KIND, self._setup(model))
        if kept is None or name not in kept.functions:
            return False
        function, traced = kept.functions[name]
        if any(self._counter_known(optimizer) for optimizer, _ in traced.counters):
            return False  # this run counts that optimizer already, with its own counter
        for layer, path in traced.layers:
            self._register(layer, path)
        for path in traced.outputs:
            self._add_output(path)
        for loss in traced.losses:
            _add(self.checked_losses, loss)
        for place in traced.gradients:
            _add(self.checked_gradients, place)
        for place in traced.unchecked_gradients:
            _add(self.unchecked_gradients, place)
        for optimizer in traced.optimizers:
            _add(self._optimizers, optimizer)
        for optimizer, counter in traced.counters:
            counter.assign(0)
            self._counters.append((optimizer, counter))
        if traced.optimizers:
            from tfnb_debug.collect.memory_steps import watch_graph_optimizers

            watch_graph_optimizers(traced.optimizers)  # %%tfmem counts the steps as if traced
        _add(self.reused, kept)
        setattr(model, name, self.checked_function(model, name, function, traced))
        return True

    @property
    def reused_models(self) -> list[str]:
        """The names of the models whose kept checked functions this run used."""
        return [str(getattr(kept.model(), "name", "model")) for kept in self.reused]

    def _counter_known(self, optimizer: Any) -> bool:
        return any(known is optimizer for known, _ in self._counters)

    def _functions_to_keep(self) -> list[tuple[Any, _KeptCheckedFunctions]]:
        """The checked functions built (or reused) in this run that a later run may use.

        Only when they all belong to one model, each was made once, ran in a
        graph and is still the model's, and the model's setup did not change
        during the run.  Kept functions of the same setup that this run did not
        use are kept on with them.
        """
        models = {id(b.model) for b in self._built}
        names = [b.name for b in self._built]
        if len(models) != 1 or len(names) != len(set(names)):
            return []
        model = self._built[0].model
        setup = self._setup(model)
        functions: dict[str, tuple[Any, _Traced]] = {}
        for built in self._built:
            if (
                built.traced is None
                or getattr(model, built.name, None) is not built.wrapper
                or not built.setup.same(setup)
            ):
                return []
            functions[built.name] = (built.function, built.traced)
        before = kept_for(model, KIND, setup)
        if before is not None:
            functions = {**before.functions, **functions}
        return [(model, _KeptCheckedFunctions(weakref.ref(model), setup, functions))]
