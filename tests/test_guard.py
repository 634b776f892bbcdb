"""The one guard: nothing stays patched and the model keeps its state, for every feature.

Unit tests of :mod:`tfnb_debug.collect._patching` (``Patches``, ``patched``,
``preserved``), then every feature run three ways (success, the user's
exception raised inside the model, ``KeyboardInterrupt`` raised inside the
model) with a fingerprint of everything tfnb_debug may patch taken before and
compared after, and the variables compared bit for bit where the feature
promises it (README, docs/diagnostics.md, docs/workshop.md).
"""

from __future__ import annotations

import random
import types
from collections.abc import Callable, Iterator
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import run_magic
from tfnb_debug.collect._patching import Patches, patched, preserve, preserved
from tfnb_debug.collect.snapshot import VariableSnapshot, global_seed_generator, same_bits

# -- Patches / patched: the attributes -------------------------------------------------


class Base:
    def method(self) -> str:
        return "base"


class Child(Base):
    pass


def replacement(self: Any) -> str:
    return "patched"


def run_block(outcome: str, inside: Callable[[], None] = lambda: None) -> None:
    """Run ``inside`` in a block that ends as ``outcome`` says: ok, error or interrupt."""
    inside()
    if outcome == "error":
        raise ValueError("user boom")
    if outcome == "interrupt":
        raise KeyboardInterrupt


OUTCOMES = {"ok": None, "error": ValueError, "interrupt": KeyboardInterrupt}


def ends_as(outcome: str) -> Any:
    expected = OUTCOMES[outcome]
    return pytest.raises(expected) if expected is not None else _no_raise()


class _no_raise:  # noqa: N801 (reads like pytest.raises)
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_class_attribute_own_and_inherited(outcome: str) -> None:
    original = Base.__dict__["method"]
    with ends_as(outcome), patched((Base, "method", replacement), (Child, "method", replacement)):
        assert Base().method() == "patched" and "method" in vars(Child)
        run_block(outcome)
    assert Base.__dict__["method"] is original
    assert "method" not in vars(Child)  # inherited before: deleted again, not copied down
    assert Child().method() == "base"


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_module_attribute(outcome: str) -> None:
    module = types.ModuleType("user_module")
    module.helper = len  # type: ignore[attr-defined]
    with ends_as(outcome), patched((module, "helper", abs), (module, "extra", max)):
        assert module.helper is abs and module.extra is max  # type: ignore[attr-defined]
        run_block(outcome)
    assert module.helper is len  # type: ignore[attr-defined]
    assert not hasattr(module, "extra")


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("own", [False, True], ids=["class-call", "own-call"])
def test_keras_layer_instance_attribute(outcome: str, own: bool) -> None:
    x = np.ones((1, 3), "float32")
    layer = keras.layers.Dense(2)
    layer(x)  # built and called once, as a user's layer is
    if own:
        object.__setattr__(layer, "call", layer.call)  # the user's own instance attribute
    before = dict(vars(layer))
    tracked = list(layer._tracker.stored_ids) if hasattr(layer._tracker, "stored_ids") else None

    def identity(inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    with ends_as(outcome), patched((layer, "call", identity), (layer, "note", keras.layers.ReLU())):
        assert np.array_equal(layer(x), x)  # the replacement runs
        assert vars(layer)["call"] is identity
        assert not any(sub is vars(layer)["note"] for sub in layer._layers)  # not tracked
        run_block(outcome)
    assert vars(layer).keys() == before.keys()
    assert all(vars(layer)[key] is value for key, value in before.items())
    if tracked is not None:
        assert list(layer._tracker.stored_ids) == tracked
    assert layer(x).shape == (1, 2)


def test_plain_instance_and_keep() -> None:
    class Thing:
        pass

    thing = Thing()
    thing.kept = "mine"  # type: ignore[attr-defined]
    with patched() as patches:
        patches.keep(thing, "kept")
        patches.keep(thing, "history")
        thing.kept = "set by the block"  # type: ignore[attr-defined]
        thing.history = ["set by the block"]  # type: ignore[attr-defined]
        patches.keep(thing, "never_set")
        assert patches.original(thing, "kept") == "mine"
    assert vars(thing) == {"kept": "mine"}


def test_nested_patches_unwind_in_order() -> None:
    original = Base.__dict__["method"]

    def inner(self: Any) -> str:
        return "inner"

    with patched((Base, "method", replacement)) as outer:
        with patched((Base, "method", inner)) as nested:
            assert Base().method() == "inner"
            assert nested.original(Base, "method") is replacement
        assert Base().method() == "patched"
        with pytest.raises(KeyboardInterrupt), patched((Base, "method", inner)):
            raise KeyboardInterrupt
        assert Base().method() == "patched"
        outer.set(Base, "method", inner)  # twice in one Patches: the first original comes back
        assert outer.original(Base, "method") is original
    assert Base.__dict__["method"] is original


class Frozen(type):
    """A metaclass that refuses attribute changes while ``frozen`` is set."""

    frozen = False

    def __setattr__(cls, name: str, value: Any) -> None:
        if Frozen.frozen:
            raise RuntimeError(f"cannot put back {name}")
        super().__setattr__(name, value)


class Stubborn(metaclass=Frozen):
    def method(self) -> str:
        return "stubborn"


def test_a_failing_restore_still_restores_the_rest() -> None:
    module = types.ModuleType("other")
    module.value = 1  # type: ignore[attr-defined]
    originals = Base.__dict__["method"], Stubborn.__dict__["method"]
    patches = Patches()
    patches.set(Base, "method", replacement)
    patches.set(Stubborn, "method", replacement)
    patches.set(module, "value", 2)
    Frozen.frozen = True
    try:
        with pytest.raises(RuntimeError, match="cannot put back method"):
            patches.restore()
    finally:
        Frozen.frozen = False
    assert Base.__dict__["method"] is originals[0]  # restored before and after the failure
    assert module.value == 1  # type: ignore[attr-defined]
    assert Stubborn.__dict__["method"] is replacement  # the one that could not be restored
    assert len(patches) == 0  # and it is not retried by a second restore
    type.__setattr__(Stubborn, "method", originals[1])


def test_a_failing_set_is_not_recorded() -> None:
    patches = Patches()
    Frozen.frozen = True
    try:
        with pytest.raises(RuntimeError):
            patches.set(Stubborn, "method", replacement)
    finally:
        Frozen.frozen = False
    assert len(patches) == 0


# -- preserved: the state --------------------------------------------------------------


def small_model(*extra: keras.layers.Layer, run_eagerly: bool = False) -> keras.Model:
    keras.utils.set_random_seed(3)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, name="dense"),
            keras.layers.BatchNormalization(name="bn"),
            keras.layers.Dropout(0.3, name="drop"),
            *extra,
            keras.layers.Dense(3, name="head"),
        ],
        name="guarded",
    )
    model.compile(
        keras.optimizers.Adam(1e-2),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)  # optimizer and metric state exist
    return model


RS = np.random.RandomState(0)
X = RS.normal(size=(32, 6)).astype("float32")
Y = RS.randint(0, 3, 32)


def variables_state(model: keras.Model) -> list[bytes]:
    found = [*model.variables, *model.metrics_variables, *model.optimizer.variables]
    return [v.numpy().tobytes() for v in found]


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_preserved_gives_back_every_variable_and_the_random_states(outcome: str) -> None:
    model = small_model()
    before = variables_state(model)
    numpy_state, python_state = np.random.get_state(), random.getstate()
    had_global = global_seed_generator() is not None

    def train() -> None:
        model.fit(X, Y, batch_size=8, epochs=2, verbose=0)
        model(X, training=True)
        keras.random.normal((2,))  # unseeded: uses (and may create) the global seed generator
        np.random.rand(3)
        random.random()
        assert variables_state(model) != before

    with ends_as(outcome), preserved(model) as saved:
        run_block(outcome, train)
    assert variables_state(model) == before
    assert saved.changed() == []
    assert np.random.get_state()[1].tobytes() == numpy_state[1].tobytes()
    assert random.getstate() == python_state
    if not had_global:
        assert global_seed_generator() is None


def test_preserve_changed_names_the_variables() -> None:
    model = small_model()
    saved = preserve(model, optimizer=False, metrics=False, rng=False)
    model(X, training=True)
    assert "guarded/bn/moving_mean" in saved.changed()
    saved.restore()
    assert saved.changed() == []


def test_restore_assigns_back_exactly_the_variables_whose_bits_changed() -> None:
    """Only what differs is assigned (the rest is left alone); a value that compares
    equal but differs in bits (``-0.0`` for ``0.0``) counts as changed, a NaN kept as
    the same NaN does not."""
    v = tf.Variable([0.0, np.nan, 1.5])
    kept = tf.Variable([1.0, 2.0])
    snapshot = VariableSnapshot.take([v, kept])
    v.assign([-0.0, np.nan, 1.5])
    assert snapshot.changed() == [v.name]
    writes: list[str] = []
    for variable in (v, kept):
        assign = variable.assign
        variable.assign = lambda value, a=assign, n=variable.name: (writes.append(n), a(value))
    snapshot.restore()
    assert writes == [v.name]
    expected = np.float32([0.0, np.nan, 1.5])
    assert np.array_equal(v.numpy().view(np.uint32), expected.view(np.uint32))
    assert snapshot.changed() == []


@pytest.mark.parametrize(
    ("now", "saved", "same"),
    [
        (np.float32([np.nan, 1.0]), np.float32([np.nan, 1.0]), True),
        (np.float32([-0.0]), np.float32([0.0]), False),
        (np.float32(3.0), np.float32(3.0), True),  # a 0-d value
        (np.float32([1.0, 2.0]), np.float32([[1.0, 2.0]]), False),  # same bits, other shape
        (np.float32([1.0]), np.float64([1.0]), False),
        (np.array([b"a"]), np.array([b"a"]), True),
        (np.array([b"ab", b"c"], object), np.array([b"ab", b"c"], object), True),  # no bit view
        (np.array([b"ab"], object), np.array([b"ac"], object), False),
    ],
)
def test_same_bits(now: np.ndarray, saved: np.ndarray, same: bool) -> None:
    assert same_bits(now, np.asarray(saved)) is same


# -- every feature ---------------------------------------------------------------------

TRIP: dict[str, Any] = {"error": None, "after": 0, "calls": 0, "fired": 0}


class Trip(keras.layers.Layer):
    """Passes its input through; raises ``TRIP["error"]`` after ``TRIP["after"]`` eager calls."""

    def call(self, inputs: tf.Tensor, training: bool | None = None) -> tf.Tensor:
        if TRIP["error"] is not None and tf.executing_eagerly():
            TRIP["calls"] += 1
            if TRIP["calls"] > TRIP["after"]:
                TRIP["fired"] += 1
                raise TRIP["error"]
        return inputs


def _owners() -> list[Any]:
    """The classes and modules tfnb_debug patches (or could patch)."""
    from keras.src import backend
    from keras.src.backend.tensorflow import nn as backend_nn
    from keras.src.backend.tensorflow.optimizer import TFOptimizer
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
    from keras.src.layers.layer import Layer
    from keras.src.losses.loss import Loss
    from keras.src.models.functional import Functional
    from keras.src.models.model import Model
    from keras.src.models.sequential import Sequential
    from keras.src.ops.operation import Operation
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    from keras.src.optimizers.loss_scale_optimizer import LossScaleOptimizer
    from keras.src.trainers.trainer import Trainer
    from tensorflow.python.eager.polymorphic_function import (
        polymorphic_function,
        tracing_compilation,
    )

    return [
        Operation,
        Layer,
        Trainer,
        TensorFlowTrainer,
        Model,
        Functional,
        Sequential,
        BaseOptimizer,
        TFOptimizer,
        keras.optimizers.Optimizer,
        LossScaleOptimizer,
        Loss,
        keras.callbacks.CallbackList,
        tf.GradientTape,
        tf.nn,
        backend_nn,
        tf.random,
        backend.random,
        tracing_compilation,
        polymorphic_function.Function,
    ]


def _functions(obj: Any) -> dict[str, Any]:
    """``obj``'s own attribute names, and the function objects among them (by identity)."""
    out: dict[str, Any] = {}
    for name, value in vars(obj).items():
        if name == "__warningregistry__":
            continue
        out[name] = value if callable(value) and not isinstance(value, type) else None
    return out


def fingerprint(*models: keras.Model) -> list[tuple[str, dict[str, Any]]]:
    """Every own attribute of the patched classes/modules, of the models' layers and optimizers."""
    found = [(repr(owner), _functions(owner)) for owner in _owners()]
    for model in models:
        for layer in model._flatten_layers(include_self=True, recursive=True):
            found.append((f"layer {layer.name}", _functions(layer)))
        if getattr(model, "optimizer", None) is not None:
            found.append(("optimizer", _functions(model.optimizer)))
        for metric in model.metrics:
            found.append((f"metric {metric.name}", _functions(metric)))
    return found


def differences(before: list[Any], after: list[Any]) -> list[str]:
    out = []
    for (where, old), (_, new) in zip(before, after, strict=True):
        for name in sorted(old.keys() | new.keys()):
            if name not in new:
                out.append(f"{where}.{name} removed")
            elif name not in old:
                out.append(f"{where}.{name} added")
            elif old[name] is not new[name]:
                out.append(f"{where}.{name} replaced")
    return out


def full_state(model: keras.Model) -> list[bytes | None]:
    gen = global_seed_generator()
    return [*variables_state(model), gen.state.numpy().tobytes() if gen is not None else None]


@pytest.fixture
def nb(shell: InteractiveShell) -> Iterator[InteractiveShell]:
    model = small_model(Trip(name="trip"), run_eagerly=True)
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)
    shell.user_ns.update(model=model, x=X, y=Y, xb=X[:8], yb=Y[:8], ds=ds)
    TRIP.update(error=None, after=0, calls=0, fired=0)
    try:
        yield shell
    finally:
        TRIP.update(error=None, after=0, calls=0, fired=0)


FIT = "model.fit(x, y, batch_size=8, epochs=1, verbose=0)"


def _trace_shapes(shell: InteractiveShell) -> None:
    from tfnb_debug import trace_shapes

    trace_shapes(shell.user_ns["model"], shell.user_ns["xb"], training=True)


def _record_gradients(shell: InteractiveShell) -> None:
    from tfnb_debug import record_gradients

    model = shell.user_ns["model"]
    with record_gradients(watch=[model]):
        model.fit(X, Y, batch_size=8, epochs=1, verbose=0)


def _auto_diagnosis(shell: InteractiveShell) -> None:
    with capture_output():
        result = shell.run_cell("model(xb)")  # the user's own call fails in the cell
    if result.error_in_exec is not None:
        raise result.error_in_exec


def _magic(line: str, cell: str | None = None) -> Callable[[InteractiveShell], None]:
    def run(shell: InteractiveShell) -> None:
        run_magic(shell, line, cell)

    return run


# (runner, eager model calls before the trip fires, state promised bit-identical)
FEATURES: dict[str, tuple[Callable[[InteractiveShell], None], int, bool]] = {
    "tfshape": (_magic("%tfshape -q model xb"), 0, True),
    "trace_shapes": (_trace_shapes, 0, True),
    "tfgrad-cell": (_magic("%%tfgrad -q", FIT), 2, False),
    "record_gradients": (_record_gradients, 2, False),
    "tfgrad-probe": (_magic("%tfgrad -q model xb yb"), 0, True),
    "tfmem": (_magic("%%tfmem -q", FIT), 2, False),
    "tfcheck": (_magic("%%tfcheck -q", FIT), 2, False),
    "tflint-data": (_magic("%tflint -q model --data ds"), 0, True),
    "tfoverfit": (_magic("%tfoverfit -q --steps 6 --samples 8 model (x,y)"), 2, True),
    "tfconsistency": (_magic("%tfconsistency -q model xb"), 1, True),
    "tfpipeline": (_magic("%tfpipeline -q ds --model model --batches 1"), 0, True),
    "auto-diagnosis": (_auto_diagnosis, 0, True),
    # the live view's step hooks, and --stop-on
    "tfgrad-live": (
        _magic("%%tfgrad --live --live-interval 0.05 --stop-on nan --mem", FIT),
        2,
        False,
    ),
    "tfmem-live": (_magic("%%tfmem --live --live-interval 0.05", FIT), 2, False),
    "tfcheck-live": (_magic("%%tfcheck --live --live-interval 0.05", FIT), 2, False),
}
SLOW = {
    "tfoverfit",
    "tfpipeline",
    "tfmem",
    "tfcheck",
    "tfgrad-cell",
    "record_gradients",
    "tfgrad-live",
    "tfmem-live",
    "tfcheck-live",
}


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize(
    "feature",
    [pytest.param(f, marks=pytest.mark.slow) if f in SLOW else f for f in FEATURES],
)
def test_feature_leaves_no_patch_and_keeps_its_promise(
    nb: InteractiveShell, feature: str, outcome: str
) -> None:
    run, after, promised = FEATURES[feature]
    model = nb.user_ns["model"]
    before, state = fingerprint(model), full_state(model)
    train_function = model.train_function
    TRIP.update(
        error={"ok": None, "error": ValueError("user boom"), "interrupt": KeyboardInterrupt()}[
            outcome
        ],
        after=after,
    )
    raised: type[BaseException] | None = None
    try:
        run(nb)
    except KeyboardInterrupt:
        raised = KeyboardInterrupt
    except Exception as err:
        raised = type(err)
    TRIP["error"] = None
    if outcome == "ok":
        assert raised is None
    else:
        assert TRIP["fired"], "the model was never called: the test proves nothing"
    if outcome == "interrupt":
        assert raised is KeyboardInterrupt  # never swallowed
    assert differences(before, fingerprint(model)) == []
    assert model.train_function is train_function
    if promised:
        assert full_state(model) == state


def test_the_fingerprint_sees_a_leaked_patch() -> None:
    from keras.src.layers.layer import Layer

    model = small_model()
    before = fingerprint(model)
    leaked = [
        (Layer, "__call__", lambda self, *a, **k: None),
        (tf.nn, "softmax", tf.nn.relu),
        (model.get_layer("bn"), "call", len),
    ]
    with patched(*leaked):
        assert differences(before, fingerprint(model)) == [
            f"{Layer!r}.__call__ replaced",
            f"{tf.nn!r}.softmax replaced",
            "layer bn.call added",
        ]
    assert differences(before, fingerprint(model)) == []


class Noisy(keras.layers.Layer):
    """Adds unseeded noise in training: draws from Keras' global seed generator."""

    def call(self, inputs: tf.Tensor, training: bool | None = None) -> tf.Tensor:
        return inputs + keras.random.normal(tf.shape(inputs)) if training else inputs


def test_a_training_trace_gives_back_the_global_seed_generator() -> None:
    # before the guard: only model.variables were put back, the global generator moved on
    from tfnb_debug import trace_shapes

    model = small_model(Noisy(name="noisy"))
    keras.random.normal((1,))  # the global generator exists
    before = full_state(model)
    trace_shapes(model, X[:4], training=True)
    assert full_state(model) == before


class RandomNoise(keras.layers.Layer):
    """A user's augmentation layer (seeded noise in training)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1)

    def call(self, inputs: tf.Tensor, training: bool | None = None) -> tf.Tensor:
        if not training:
            return inputs
        return inputs + keras.random.normal(tf.shape(inputs), seed=self.seed_generator)


@pytest.mark.parametrize("where", ["consistency", "overfit"])
def test_a_users_own_layer_call_survives(where: str) -> None:
    # before the guard: the inference-mode switch popped `call` from the instance, the user's too
    from tfnb_debug import check_consistency, overfit_small_batch

    model = small_model(RandomNoise(name="noise") if where == "overfit" else Trip())
    layer = model.layers[3]
    own = layer.call  # e.g. a user's monkeypatch, here the bound method itself
    object.__setattr__(layer, "call", own)
    if where == "consistency":
        check_consistency(model, X[:8])
    else:
        overfit_small_batch(model, (X, Y), samples=8, steps=2, plot=False)
    assert vars(layer).get("call") is own
