"""The layer hook of ``%%tfcheck``: every layer call checked, the layers seen, the failing one re-run.

:class:`LayerChecks` is the part of :class:`~tfnb_debug.collect.check.NumericsChecks`
that :func:`tfnb_debug.collect._patching.layer_call_hook` calls on every layer
call while the run lasts (:meth:`LayerChecks._layer_hook`):

* the layer is registered under its path (the names of the layers whose calls
  it runs in, then its own), which the failure tags name and
  ``NumericsChecks.record_failure`` looks up again
  (:meth:`LayerChecks._index_of_path`).  While a function traces, its
  :class:`~tfnb_debug.collect.check_kept._Traced` gets the layer and the
  output too, so a run that uses the function again knows them;
* the call's tensors go through the guards of its base,
  :class:`~tfnb_debug.collect.check_guards.TensorGuards`: the inputs of the
  outermost call (N05) and any input of an inner call that is not already a
  checked output, then every floating output.  In a graph the layer's single
  float input goes with its outputs' guards, to be copied to the host on their
  failing path (:meth:`LayerChecks._input_to_copy`);
* after a failure, the failing layer alone is re-run on that input (eagerly, on
  the arguments of the call that failed) with TensorFlow's op checks on, to
  name the op and the source line (:meth:`LayerChecks._op_detail`,
  :func:`tfnb_debug.collect.op_replay.rerun_with_op_checks`).

The state these methods read and fill is set by ``NumericsChecks.__init__``.
"""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from tfnb_debug.collect.check_guards import TensorGuards, _Copy
from tfnb_debug.collect.check_kept import _Traced
from tfnb_debug.collect.op_replay import OpDetail, rerun_with_op_checks

__all__ = ["LayerChecks"]


class LayerChecks(TensorGuards):
    """The layer hook's checks of each layer call, and the failing layer's replay (a mixin of
    :class:`~tfnb_debug.collect.check.NumericsChecks`, which sets the state below)."""

    op_detail: bool
    checked_outputs: list[str]  # layer paths, first-call order
    _seen_outputs: set[str]
    _stack: list[str]  # the names of the layers whose calls are running, outermost first
    _layers: list[tuple[Any, str]]  # (layer, path), in the order first called
    _layer_index: dict[tuple[int, str], int]  # (id(layer), path) -> index in _layers
    _eager_failure: tuple[Any, tuple[Any, ...], dict[str, Any]] | None
    _tracing: _Traced | None  # of the function running (and maybe tracing)

    # -- the layer hook ------------------------------------------------------------------

    def _layer_hook(
        self, layer: Any, call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        __tracebackhide__ = True
        path = "/".join([*self._stack, layer.name])
        index = self._register(layer, path)
        if self._tracing is not None:
            self._tracing.add_layer(layer, path)
        outermost = not self._stack
        kind = "input" if outermost else "layer-input"
        place = path if not outermost else layer.name
        try:
            args = tuple(self._check_tree(a, kind, place) for a in args)
            kwargs = {k: self._check_tree(v, kind, place) for k, v in kwargs.items()}
        except tf.errors.InvalidArgumentError:
            raise
        self._stack.append(layer.name)
        try:
            out = call(*args, **kwargs)
        finally:
            self._stack.pop()
        self._add_output(path)
        if self._tracing is not None:
            self._tracing.add_output(path)
        try:
            return self._check_outputs(out, path, index, args, kwargs)
        except tf.errors.InvalidArgumentError:
            if tf.executing_eagerly() and self._eager_failure is None:
                self._eager_failure = (layer, args, kwargs)
            raise

    def _add_output(self, path: str) -> None:
        """``path``'s output is checked (listed once, in first-call order)."""
        if path not in self._seen_outputs:
            self._seen_outputs.add(path)
            self.checked_outputs.append(path)

    def _register(self, layer: Any, path: str) -> int:
        key = (id(layer), path)
        if key not in self._layer_index:
            self._layer_index[key] = len(self._layers)
            self._layers.append((layer, path))
        return self._layer_index[key]

    def _index_of_path(self, path: str) -> int | None:
        for i, (_, p) in enumerate(self._layers):
            if p == path:
                return i
        return None

    def _check_tree(self, value: Any, kind: str, place: str) -> Any:
        if isinstance(value, tf.Tensor):
            return self._check(value, kind, place)
        if isinstance(value, list | tuple | dict):
            return keras.tree.map_structure(
                lambda v: self._check(v, kind, place) if isinstance(v, tf.Tensor) else v, value
            )
        return value

    def _check_outputs(
        self, out: Any, path: str, index: int, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        copy = None
        if not tf.executing_eagerly() and self.op_detail:
            copy = self._input_to_copy(path, args, kwargs)
        return keras.tree.map_structure(
            lambda v: self._check(v, "output", path, copy) if isinstance(v, tf.Tensor) else v,
            out,
        )

    def _input_to_copy(
        self, path: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> _Copy | None:
        """The layer's single float input, to copy to the host on the failing path only.

        A Python copy (:func:`_copy_input`), not a variable: assigning inputs
        of varying shapes to a shape-less variable trips Grappler (it fed later
        ops the wrong tensor).  XLA is off for the run, so the ``py_function``
        is allowed.  The copy goes to the run active when the graph runs: a
        kept graph outlives the run that traced it.
        """
        inputs = [t for t in keras.tree.flatten((args, kwargs)) if isinstance(t, tf.Tensor)]
        float_inputs = [t for t in inputs if t.dtype.is_floating]
        if len(float_inputs) != 1:
            return None
        return path, float_inputs[0]

    # -- after a failure -----------------------------------------------------------------

    def _op_detail(self, index: int | None) -> OpDetail | None:
        if index is None:
            return None
        layer, path = self._layers[index]
        if self._eager_failure is not None:
            failed_layer, args, kwargs = self._eager_failure
            if failed_layer is not layer:
                return None
            call_args, call_kwargs = args, dict(kwargs)
        else:
            if self._stashed is None or self._stashed[0] != path:
                return OpDetail("", "", "the failing layer's input was not captured")
            call_args, call_kwargs = (tf.convert_to_tensor(self._stashed[1]),), {}
        return rerun_with_op_checks(layer, call_args, call_kwargs)
