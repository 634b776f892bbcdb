"""The change an optimizer step makes to some variables, read from the optimizer's own
``assign``/``assign_add``/``assign_sub`` calls while the step is traced.

The update norm of a recorded step is ``|w_new - w_old|``.  Holding ``w_old`` (the
weights read before the step) until the step has updated them makes TensorFlow copy
each such variable before its in-place update (copy-on-write): for a model whose
parameters sit in one large kernel (TensorFlow's quickstart: 2.7M values in one
``Dense``), that copy was most of what recording a step cost.  For the large variables
of a step traced in a ``tf.function``, the recorder
(:mod:`~tfnb_debug.collect.gradient_recorder`) instead

* takes the weight norm before the step inside a ``cond`` that returns only the norms
  (nothing of the variable is held when the optimizer writes it), and
* reads the update from the optimizer's calls: ``assign_add(v, d)`` adds ``d``,
  ``assign_sub(v, d)`` subtracts it, ``assign(v, x)`` adds ``x - v`` (read just before
  that write, which waits for the difference), each cast to the variable's dtype as the
  write casts it.

Only optimizers whose step writes the model's variables through those three methods
alone are read this way (:func:`reads_updates`): Keras' own, without weight decay
(written with ``variable.assign_sub`` directly), EMA or gradient accumulation (a step
inside a ``cond``).  A variable whose change was not seen whole (a sparse ``assign``,
a write in another graph) gets no update norm (NaN: not available), never a wrong one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import tensorflow as tf

from tfnb_debug.collect._patching import patched

__all__ = ["UpdateDeltas", "reads_updates", "updates_of"]

#: the optimizer methods whose code must be Keras' own for :func:`reads_updates`
_KERAS_OWN = (
    "update_step",
    "_backend_update_step",
    "_backend_apply_gradients",
    "_distributed_tf_update_step",
    "assign",
    "assign_add",
    "assign_sub",
)


def reads_updates(optimizer: Any) -> bool:
    """Whether every write of ``optimizer``'s step to a trained variable goes through its
    ``assign``/``assign_add``/``assign_sub`` (a Keras optimizer of Keras' own code,
    without weight decay, EMA or gradient accumulation)."""
    if getattr(optimizer, "weight_decay", None) or getattr(optimizer, "use_ema", False):
        return False
    if getattr(optimizer, "gradient_accumulation_steps", None):
        return False
    for name in _KERAS_OWN:
        method = getattr(type(optimizer), name, None)
        if method is None or not str(getattr(method, "__module__", "")).startswith("keras."):
            return False
    return True


def _target(variable: Any) -> Any:
    """The ``tf.Variable`` behind a Keras variable (or the variable itself)."""
    return getattr(variable, "_value", variable)


def _key(variable: Any) -> Any:
    target = _target(variable)
    ref = getattr(target, "ref", None)
    return ref() if callable(ref) else id(target)


class UpdateDeltas:
    """The summed change each of ``variables`` got from the optimizer's writes."""

    def __init__(self, variables: Sequence[Any]) -> None:
        self._slots: dict[Any, int] = {}
        for j, v in enumerate(variables):
            target = _target(v)
            self._slots[_key(target)] = j
            # under a strategy the optimizer writes each device's own copy of the variable
            if isinstance(target, tf.distribute.DistributedValues):
                for component in target.values:
                    self._slots[_key(component)] = j
        self._dtypes = [tf.as_dtype(_target(v).dtype) for v in variables]
        self._changes: list[tf.Tensor | None] = [None] * len(variables)
        self._unread: set[int] = set()

    def _slot(self, variable: Any) -> int | None:
        try:
            return self._slots.get(_key(variable))
        except TypeError:  # not a variable: nothing of ours
            return None

    def _add(self, j: int, change: tf.Tensor) -> None:
        current = self._changes[j]
        self._changes[j] = change if current is None else current + change

    def hook(self, original: Any, sign: float | None) -> Any:
        """``original`` (a bound ``assign*`` method) with its change to our variables added
        up; ``sign`` is +1 (``assign_add``), -1 (``assign_sub``) or None (``assign``)."""

        def hooked(variable: Any, value: Any) -> Any:
            j = self._slot(variable)
            if j is None:
                return original(variable, value)
            if isinstance(value, tf.IndexedSlices) and sign is None:
                self._unread.add(j)  # a scatter of some rows: the change is not the values
                return original(variable, value)
            written = tf.cast(tf.convert_to_tensor(value), self._dtypes[j])
            written = tf.cast(written, tf.float32)
            if sign is not None:
                self._add(j, written * sign)
                return original(variable, value)
            before = tf.cast(tf.convert_to_tensor(_target(variable)), tf.float32)
            change = written - before
            self._add(j, change)
            with tf.control_dependencies([change]):  # `before` is released before the write
                return original(variable, value)

        return hooked

    def changes(self) -> list[tf.Tensor | None]:
        """Each variable's change, or None where it was not seen whole (or not at all) in
        the graph being built now."""
        graph = tf.compat.v1.get_default_graph()
        return [
            None
            if change is None or j in self._unread or getattr(change, "graph", graph) is not graph
            else change
            for j, change in enumerate(self._changes)
        ]


@contextlib.contextmanager
def updates_of(optimizer: Any, variables: Sequence[Any]) -> Iterator[UpdateDeltas]:
    """``with updates_of(opt, variables) as deltas: opt.apply(...)``: ``deltas.changes()``
    gives what the block's writes through ``opt`` did to each of ``variables``.  The
    optimizer's methods are replaced on the instance for the block only."""
    deltas = UpdateDeltas(variables)
    signs: tuple[tuple[str, float | None], ...] = (
        ("assign_add", 1.0),
        ("assign_sub", -1.0),
        ("assign", None),
    )
    with patched() as patches:
        for name, sign in signs:
            patches.set(optimizer, name, deltas.hook(getattr(optimizer, name), sign))
        yield deltas
