"""The guard ops of ``%%tfcheck``: how a tensor is checked where it is made, eagerly or in a graph.

:class:`TensorGuards` is the part of :class:`~tfnb_debug.collect.check.NumericsChecks`
that puts a check on a tensor and hands back the checked copy, which the tensor's
consumers then use:

* eagerly, ``tf.debugging.check_numerics`` itself; in graphs a guard
  (:meth:`TensorGuards._guard`): one sum and an ``If`` op whose two branches
  (:func:`_branches`) are concrete functions shared by every guard of the same
  dtypes.  Only when the sum is not finite does the exact check run, raising
  with ``check_numerics``' own message and the failure tag (:data:`TAG`, read
  back by ``NumericsChecks.record_failure``).  The checked copy waits for the
  guard (a control dependency), and a custom gradient guards the gradient
  flowing back into a layer's output (:func:`_checked_gradient`, held by
  nothing but its tag: TensorFlow keeps a graph's custom gradients for good);
* what Keras reads from a tensor besides its values (its mask, the logits of a
  sigmoid or softmax output) goes over to the checked copy
  (:meth:`TensorGuards._keras_facts`);
* the gradients given to an optimizer, dense or ``IndexedSlices``, behind one
  guard for all of them (:meth:`TensorGuards.check_gradients`);
* in a graph, the guard of a layer's output may carry the layer's input (picked
  by the layer hook, :mod:`tfnb_debug.collect.check_layers`): on the failing
  path that input is copied to the host (:func:`_copy_input`, a
  ``tf.py_function``) before the exact check raises, for the run active then
  (:func:`_active`: the runs in progress, which ``NumericsChecks`` enters and
  leaves), so that the failing layer can be re-run afterwards.

Every checked copy is remembered (weakly), so a tensor is never checked twice.
The state these methods read and fill (``_checked``, ``_stashed``) is set by
``NumericsChecks.__init__``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import tensorflow as tf

__all__ = ["TAG", "TensorGuards"]

TAG = "tfnb_check"

#: the runs in progress, innermost last: where a graph's input copy goes
_ACTIVE: list[TensorGuards] = []
_ACTIVE_LOCK = threading.Lock()


def _active() -> TensorGuards | None:
    with _ACTIVE_LOCK:
        return _ACTIVE[-1] if _ACTIVE else None


def _values(grad: Any) -> Any:
    """The dense values of a gradient: an ``IndexedSlices``' (an Embedding's, a gather's)
    ``values``, or the tensor itself."""
    return grad.values if isinstance(grad, tf.IndexedSlices) else grad


def _with_values(grad: Any, values: Any) -> Any:
    """``grad`` with its values replaced by ``values`` (the checked copy)."""
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(values, grad.indices, grad.dense_shape)
    return values


def _checkable_gradient(grad: Any) -> bool:
    """A gradient whose values a check reads: a float tensor or ``IndexedSlices``."""
    return isinstance(grad, tf.Tensor | tf.IndexedSlices) and grad.dtype.is_floating


#: the ops whose input Keras' cross-entropy losses take as the logits of their output
#: (``keras.src.backend.tensorflow.nn._get_logits``), each made again by its raw op
_LOGIT_OPS: dict[str, Callable[[Any], Any]] = {
    "Sigmoid": lambda x: tf.raw_ops.Sigmoid(x=x),
    "Softmax": lambda x: tf.raw_ops.Softmax(logits=x),
}


class TensorGuards:
    """The checks put on tensors: guards in graphs, ``check_numerics`` eagerly (a mixin of
    :class:`~tfnb_debug.collect.check.NumericsChecks`, which sets the state below)."""

    _checked: weakref.WeakValueDictionary[int, Any]  # the checked copies, by id
    _stashed: tuple[str, Any] | None  # (layer path, its input) copied by a failing guard
    _noted: str | None  # the first failing guard's message, noted before it raises

    def _check(
        self,
        tensor: Any,
        kind: str,
        place: str,
        copy: _Copy | None = None,
    ) -> Any:
        """``tensor``, checked: eagerly with ``check_numerics``; in graphs with a cheap guard."""
        if not tensor.dtype.is_floating or self._is_checked(tensor):
            return tensor
        tag = f"{TAG}|{kind}|{place}|"
        # float16 gradients are scaled by LossScaleOptimizer and may overflow on purpose
        # (it then skips the step), so the backward pass of float16 tensors is not checked.
        check_backward = kind == "output" and tensor.dtype != tf.float16
        backward = f"{TAG}|backward|{place}|" if check_backward else None
        if tf.executing_eagerly():
            checked = tf.debugging.check_numerics(tensor, tag)  # its gradient checks dy too
            if not check_backward:
                checked = tensor  # checked already (eagerly); keep the plain gradient
            guard = None
        else:
            guard = self._guard(tensor, tag, copy)
            checked = _after(tensor, guard, backward)
        checked = self._keras_facts(tensor, checked, guard, backward)
        self._checked[id(checked)] = checked
        return checked

    def _keras_facts(self, tensor: Any, checked: Any, guard: Any, backward_tag: str | None) -> Any:
        """``checked`` (the checked copy of ``tensor``) with what Keras reads from ``tensor``
        besides its values, so the checked cell trains exactly like the plain one.

        * its mask (``_keras_mask``: the next layer's ``__call__`` takes it from its input);
        * the logits of a probability output: Keras' cross-entropy losses compute from the
          logits of a sigmoid/softmax output, kept on the tensor (``_keras_logits``) or, in a
          graph, the input of the raw ``Sigmoid``/``Softmax`` op that made it.  Lost, the loss
          is computed from clipped probabilities instead, whose gradient vanishes once an
          output saturates (an unscaled-input classifier then trains to a different model).

        The logits go through the output's guard (a loss computed from them waits for the
        check) and the gradient flowing back into them is checked like the output's.  A
        raw op's output is made again (the same op, on the guarded logits: the same values)
        so that Keras finds the op it looks for.
        """
        if checked is tensor:
            return checked
        from tfnb_debug.collect.keras_access import private

        masking = private("keras_masking")
        mask = masking.get_keras_mask(tensor)
        after_guard = guard if guard is not None else tf.constant(True)
        logits = getattr(tensor, "_keras_logits", None)
        op = None if tf.executing_eagerly() else getattr(tensor, "op", None)
        remake = _LOGIT_OPS.get(str(getattr(op, "type", "")))
        if logits is not None:
            checked._keras_logits = _after(logits, after_guard, backward_tag)
        elif op is not None and remake is not None and len(op.inputs) == 1:
            checked = remake(_after(op.inputs[0], after_guard, backward_tag))
        if mask is not None:
            masking.set_keras_mask(checked, mask)
        return checked

    def _guard(self, tensor: Any, tag: str, copy: _Copy | None = None) -> Any:
        """A scalar op that raises if ``tensor`` holds NaN/Inf.

        The common path is one sum (NaN and Inf propagate into it) and an
        ``If`` op; only when the sum is not finite does the exact check run on
        the whole tensor (after ``copy``: a layer's input copied to the host),
        so a sum that merely overflowed never reports a NaN that is not there.
        The ``If``'s two branches are functions shared by every guard of the
        same dtypes (:func:`_branches`), so a guard adds three ops to the
        trace, not two branch graphs of its own: on a model of a few hundred
        layers that is most of what tracing the checked step took.
        """
        wide = tensor if tensor.dtype in (tf.float32, tf.float64) else tf.cast(tensor, tf.float32)
        total = tf.reduce_sum(wide)
        source = copy[1] if copy is not None else None
        fine, exact = _branches(tensor.dtype, None if source is None else source.dtype)
        inputs = [tensor, tf.constant(tag), tf.constant(copy[0] if copy is not None else "")]
        if source is not None:
            inputs.append(source)
        return tf.raw_ops.If(
            cond=tf.math.is_finite(total),
            input=inputs,
            Tout=[tf.bool],
            then_branch=fine,
            else_branch=exact,
            output_shapes=[[]],
        )[0]

    def check_gradients(self, grads: list[Any], places: dict[int, str]) -> list[Any]:
        """The gradients (``places``: index -> variable path), checked before they are applied.

        In graphs one guard covers them all: one sum per gradient, one
        ``tf.cond``; on the failing path the exact checks run in list order, so
        the first variable in forward order is the one reported.
        """
        if not places:
            return grads
        if tf.executing_eagerly():
            return [
                _with_values(g, self._check(_values(g), "gradient", places[i]))
                if i in places
                else g
                for i, g in enumerate(grads)
            ]
        indices = sorted(places)
        values = {i: _values(grads[i]) for i in indices}

        def fine() -> Any:
            return tf.constant(True)

        def exact() -> Any:
            last: list[Any] = []
            for i in indices:
                with tf.control_dependencies(last):
                    last = [tf.debugging.check_numerics(values[i], f"{TAG}|gradient|{places[i]}|")]
            with tf.control_dependencies(last):
                return tf.constant(True)

        totals = [tf.reduce_sum(tf.cast(values[i], tf.float32)) for i in indices]
        guard = tf.cond(tf.math.is_finite(tf.add_n(totals)), fine, exact)
        out = list(grads)
        with tf.control_dependencies([guard]):
            for i in indices:
                checked = tf.identity(values[i])
                self._checked[id(checked)] = checked
                out[i] = _with_values(grads[i], checked)
        return out

    def _is_checked(self, tensor: Any) -> bool:
        return self._checked.get(id(tensor)) is tensor


def _after(tensor: Any, guard: Any, backward_tag: str | None) -> Any:
    """``tensor`` behind a control dependency on ``guard``; with ``backward_tag``, the
    gradient flowing back into it is checked too (:func:`_checked_gradient`).

    In a graph, ``tf.custom_gradient`` puts the gradient function into TensorFlow's
    process-wide gradient registry, where it stays for good, with all it holds.  So it
    holds the tag alone (:func:`_backward_check`), never the run: the run holds every
    layer and model it checked, which would then never be freed.
    """
    if backward_tag is None:
        with tf.control_dependencies([guard]):
            return tf.identity(tensor)

    @tf.custom_gradient
    def passed(x: Any) -> Any:
        with tf.control_dependencies([guard]):
            y = tf.identity(x)
        return y, _backward_check(backward_tag)

    return passed(tensor)


def _backward_check(tag: str) -> Callable[[Any], Any]:
    """The gradient function of a checked output, holding ``tag`` and nothing else."""

    def grad(dy: Any) -> Any:
        if not isinstance(dy, tf.Tensor) or not dy.dtype.is_floating:
            return dy
        return _checked_gradient(dy, tag)

    return grad


def _checked_gradient(dy: Any, tag: str) -> Any:
    """``dy`` (the gradient flowing back into a checked output) through its guard.

    The value passes through a ``StatelessIf`` (same sum and shared
    branches as :meth:`TensorGuards._guard`, the exact branch returning ``dy`` once it
    passed), not behind a control dependency on a stateful op: a graph
    then runs the check exactly when the gradient is used.  A frozen
    layer's backward pass, which no trainable variable needs (a frozen
    base under a trained head), is pruned as in the plain step instead
    of being computed in every step only to be checked.
    """
    wide = dy if dy.dtype in (tf.float32, tf.float64) else tf.cast(dy, tf.float32)
    fine, exact = _branches(dy.dtype, None, passing=True)
    out = tf.raw_ops.StatelessIf(
        cond=tf.math.is_finite(tf.reduce_sum(wide)),
        input=[dy, tf.constant(tag), tf.constant("")],
        Tout=[dy.dtype],
        then_branch=fine,
        else_branch=exact,
        output_shapes=[dy.shape],
    )[0]
    out.set_shape(dy.shape)
    return out


#: a layer's path and its input, copied to the host when the layer's output check fails
_Copy = tuple[str, Any]

#: the shared branches of the guards' ``If`` ops, by (checked dtype, copied input's dtype,
#: whether they pass the tensor on)
_BRANCHES: dict[tuple[Any, Any, bool], tuple[Any, Any]] = {}
_BRANCHES_LOCK = threading.Lock()


def _copy_input(place: Any, value: Any) -> bool:
    """On a failing guard: ``value`` (the input of the layer at ``place``) to the active run."""
    active = _active()
    if active is not None and active._stashed is None:
        active._stashed = (place.numpy().decode(), value.numpy())
    return False


def _note_failure(message: Any, bad: Any) -> bool:
    """On a guard whose tensor has NaN/Inf: its message to the active run, before the
    assertion raises.  When several guards of one step fail together, TensorFlow may
    report the step's error as the cancellation of one of them (``CancelledError``, no
    message of ours): the run still knows which guard failed first."""
    active = _active()
    if active is not None and bool(bad.numpy()) and active._noted is None:
        active._noted = message.numpy().decode()
    return False


def _branches(dtype: Any, source: Any, *, passing: bool = False) -> tuple[Any, Any]:
    """The ``If`` branches of a guard on a ``dtype`` tensor (with a ``source`` input to copy,
    or None): ``(fine, exact)``, concrete functions of ``(tensor, tag, place[, input])``.

    ``exact`` copies the input (:func:`_copy_input`), notes the failure to the active run
    (:func:`_note_failure`), then raises
    ``InvalidArgumentError`` with ``check_numerics``' own message
    (``<tag> : Tensor had NaN values``) unless the tensor is finite.  Made
    once per dtype pair and shared by every guard: traced with no hook
    active, so they are not the user's traces.  ``passing``: both return the
    tensor itself instead of True (the exact one once it passed).
    """
    key = (dtype, source, passing)
    with _BRANCHES_LOCK:
        if key in _BRANCHES:
            return _BRANCHES[key]
    from tfnb_debug.collect._patching import suspended

    specs = [tf.TensorSpec(None, dtype), tf.TensorSpec([], tf.string), tf.TensorSpec([], tf.string)]
    if source is not None:
        specs.append(tf.TensorSpec(None, source))

    # named parameters (no ``*args``): TensorFlow warns of the names it makes for those
    def fine(tensor: Any, tag: Any, place: Any, copied: Any = None) -> Any:
        return tf.identity(tensor) if passing else tf.constant(True)

    def exact(tensor: Any, tag: Any, place: Any, copied: Any = None) -> Any:
        deps = (
            [] if copied is None else [tf.py_function(_copy_input, [place, copied], Tout=tf.bool)]
        )
        with tf.control_dependencies(deps):
            nan = tf.reduce_any(tf.math.is_nan(tensor))
            inf = tf.reduce_any(tf.math.is_inf(tensor))
            what = tf.where(nan & inf, "Inf and NaN", tf.where(nan, "NaN", "Inf"))
            message = tf.strings.join([tag, " : Tensor had ", what, " values"])
            noted = tf.py_function(_note_failure, [message, nan | inf], Tout=tf.bool)
        with tf.control_dependencies([noted]):
            failed = tf.debugging.Assert(tf.logical_not(nan | inf), [message])
        with tf.control_dependencies([failed]):
            return tf.identity(tensor) if passing else tf.constant(True)

    with tf.init_scope(), suspended():
        made = tuple(
            tf.function(branch, input_signature=specs, autograph=False).get_concrete_function()
            for branch in (fine, exact)
        )
    with _BRANCHES_LOCK:
        return _BRANCHES.setdefault(key, made)
