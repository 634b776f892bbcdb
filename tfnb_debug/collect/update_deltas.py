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
  write casts it; the terms become ops (casts, sum, norm) only inside the recorded
  step's ``cond`` (:class:`Change`), so an unrecorded step pays nothing for them.  Under a
  strategy the optimizer writes each device's copy: those are the variable's too.

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
from tfnb_debug.collect.grad_stats import norm

__all__ = ["Change", "UpdateDeltas", "reads_updates", "updates_of"]

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


class Change:
    """What one variable's writes in a step add up to, as the terms the optimizer passed;
    made into ops only when asked, inside the recorded step's ``cond`` (an unrecorded
    step pays nothing for it)."""

    def __init__(self, dtype: tf.DType) -> None:
        self._dtype = dtype
        self._terms: list[tuple[float, Any]] = []  # (sign, value written or changed by)

    def add(self, sign: float, value: Any) -> None:
        self._terms.append((sign, value))

    def in_graph(self, graph: Any) -> bool:
        return all(getattr(v, "graph", graph) is graph for _, v in self._terms)

    def _term(self, value: Any) -> tf.Tensor:
        # as the write casts it, then float32 for the norm
        return tf.cast(tf.cast(tf.convert_to_tensor(value), self._dtype), tf.float32)

    def norm(self) -> tf.Tensor:
        """|change| (one write: the norm of what it wrote, whatever its sign)."""
        if len(self._terms) == 1:
            return norm(self._term(self._terms[0][1]))
        total = tf.add_n([self._term(v) * sign for sign, v in self._terms])
        return norm(total)


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
        self._changes = [Change(tf.as_dtype(_target(v).dtype)) for v in variables]
        self._unread: set[int] = set()

    def _slot(self, variable: Any) -> int | None:
        try:
            return self._slots.get(_key(variable))
        except TypeError:  # not a variable: nothing of ours
            return None

    def hook(self, original: Any, sign: float | None) -> Any:
        """``original`` (a bound ``assign*`` method) with its change to our variables added
        up; ``sign`` is +1 (``assign_add``), -1 (``assign_sub``) or None (``assign``)."""

        def hooked(variable: Any, value: Any) -> Any:
            j = self._slot(variable)
            if j is None:
                return original(variable, value)
            if sign is not None:
                self._changes[j].add(sign, value)
                return original(variable, value)
            if isinstance(value, tf.IndexedSlices):
                self._unread.add(j)  # a scatter of some rows: the change is not the values
                return original(variable, value)
            written = tf.cast(tf.convert_to_tensor(value), _target(variable).dtype)
            change = written - tf.convert_to_tensor(_target(variable))
            self._changes[j].add(1.0, change)
            with tf.control_dependencies([change]):  # the read is released before the write
                return original(variable, value)

        return hooked

    def changes(self) -> list[Change | None]:
        """Each variable's change, or None where it was not seen whole (or not at all) in
        the graph being built now."""
        graph = tf.compat.v1.get_default_graph()
        return [
            None if not change._terms or j in self._unread or not change.in_graph(graph) else change
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
