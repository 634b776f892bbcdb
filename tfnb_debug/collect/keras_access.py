"""The one place tfnb_debug reaches into Keras and TensorFlow: private names, layer walks, model checks.

A Keras or TensorFlow upgrade that moves something touches this file only:

* :func:`private` (or ``from tfnb_debug.collect.keras_access import Loss``)
  resolves a short name from the table ``PRIVATE`` (``keras.src...``,
  ``tensorflow.python...``), importing it when first asked for;
* :func:`direct_sublayers`, :func:`all_sublayers`, :func:`layer_paths` and
  :func:`model_leaves` walk a model's layers (Keras' private
  ``_flatten_layers``, with ``.layers`` as the fallback);
* :func:`require_keras` (and its two shapes :func:`require_keras_model` and
  :func:`check_model`) turns anything that is not a Keras 3 model or layer into
  a one-line :class:`~tfnb_debug.ground.errors.TfnbDebugError`.

The training-memory estimate that ``%tfshape`` and ``%%tfmem`` share is
:func:`tfnb_debug.collect.memory_estimate.collect_model_memory`, which walks
layers through this module.

Nothing heavy is imported at module level: TensorFlow-free modules may import this one.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tfnb_debug.ground.errors import TfnbDebugError

if TYPE_CHECKING:  # the classes, for annotations; at run time __getattr__ imports them
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
    from keras.src.layers.layer import Layer
    from keras.src.losses.loss import Loss
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    from keras.src.optimizers.loss_scale_optimizer import LossScaleOptimizer
    from tensorflow.python.ops.resource_variable_ops import ResourceVariable

__all__ = [
    "PRIVATE",
    "BaseOptimizer",
    "Layer",
    "Loss",
    "LossScaleOptimizer",
    "ResourceVariable",
    "TensorFlowTrainer",
    "all_sublayers",
    "build_from_data",
    "check_model",
    "direct_sublayers",
    "distributed_dataset",
    "layer_paths",
    "model_leaves",
    "model_optimizers",
    "private",
    "require_keras",
    "require_keras_model",
]

# short name -> (module, attribute or None for the module itself); every private
# Keras/TensorFlow name a feature uses, so that an upgrade has one table to fix
PRIVATE: dict[str, tuple[str, str | None]] = {
    # Keras 3 internals
    "Layer": ("keras.src.layers.layer", "Layer"),
    "Loss": ("keras.src.losses.loss", "Loss"),
    "BaseOptimizer": ("keras.src.optimizers.base_optimizer", "BaseOptimizer"),
    "LossScaleOptimizer": ("keras.src.optimizers.loss_scale_optimizer", "LossScaleOptimizer"),
    "TensorFlowTrainer": ("keras.src.backend.tensorflow.trainer", "TensorFlowTrainer"),
    "Sequential": ("keras.src.models.sequential", "Sequential"),
    "CompileMetrics": ("keras.src.trainers.compile_utils", "CompileMetrics"),
    "Function": ("keras.src.ops.function", "Function"),
    "DataLayer": ("keras.src.layers.preprocessing.data_layer", "DataLayer"),
    "in_symbolic_scope": ("keras.src.backend.common.symbolic_scope", "in_symbolic_scope"),
    "global_state": ("keras.src.backend.common.global_state", None),
    # get/set_keras_mask: the mask a tensor carries to the next layer's __call__
    "keras_masking": ("keras.src.backend.common.masking", None),
    "GLOBAL_SEED_GENERATOR": ("keras.src.random.seed_generator", "GLOBAL_SEED_GENERATOR"),
    "backend_random": ("keras.src.backend", "random"),  # the active backend's random ops
    "backend_nn": ("keras.src.backend.tensorflow.nn", None),
    # TensorFlow internals
    "ResourceVariable": ("tensorflow.python.ops.resource_variable_ops", "ResourceVariable"),
    "op_callbacks": ("tensorflow.python.framework.op_callbacks", None),
    "tracing_compilation": (
        "tensorflow.python.eager.polymorphic_function.tracing_compilation",
        None,
    ),
    "device_lib": ("tensorflow.python.client.device_lib", None),
    # its traceback filter (_EXCLUDED_PATHS): tfnb_debug's frames are left out like TF's own
    "tf_traceback_utils": ("tensorflow.python.util.traceback_utils", None),
    "keras_traceback_utils": ("keras.src.utils.traceback_utils", None),
    # the filter of the Python stack recorded for each op ("Detected at node ... defined at")
    "tf_stack": ("tensorflow.python.util.tf_stack", None),
    "PolymorphicFunction": (
        "tensorflow.python.eager.polymorphic_function.polymorphic_function",
        "Function",
    ),
    # the iterators whose first batches a run folder hashes (D02)
    "OwnedIterator": ("tensorflow.python.data.ops.iterator_ops", "OwnedIterator"),
    "DistributedIteratorBase": (
        "tensorflow.python.distribute.input_lib",
        "DistributedIteratorBase",
    ),
    # the threads MirroredStrategy runs each replica in (collect/_patching.py gives them the hooks)
    "MirroredReplicaThread": (
        "tensorflow.python.distribute.mirrored_run",
        "_MirroredReplicaThread",
    ),
    # what %tfpipeline unwraps (experimental_distribute_dataset / distribute_datasets_from_function)
    "DistributedDataset": ("tensorflow.python.distribute.input_lib", "DistributedDataset"),
    "DistributedDatasetsFromFunction": (
        "tensorflow.python.distribute.input_lib",
        "DistributedDatasetsFromFunction",
    ),
}


def private(name: str) -> Any:
    """The private Keras/TensorFlow object ``PRIVATE[name]`` names (imported on first use).

    Raises ``ImportError``/``AttributeError`` when an upgrade moved it; callers
    that can do without it catch those.
    """
    module_name, attribute = PRIVATE[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)


def __getattr__(name: str) -> Any:
    """``from tfnb_debug.collect.keras_access import TensorFlowTrainer`` resolves lazily."""
    if name in PRIVATE:
        return private(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def distributed_dataset(value: Any) -> tuple[str, Any, int | None] | None:
    """For a ``tf.distribute`` distributed dataset: how it was made
    (``"experimental_distribute_dataset"`` or ``"distribute_datasets_from_function"``), the
    ``tf.data.Dataset`` given to ``experimental_distribute_dataset`` (None for the other: a
    function makes one per input pipeline) and the number of replicas it feeds.  None for
    anything else."""
    for name, made_by, source in (
        ("DistributedDataset", "experimental_distribute_dataset", "_original_dataset"),
        ("DistributedDatasetsFromFunction", "distribute_datasets_from_function", None),
    ):
        try:
            cls = private(name)
        except (ImportError, AttributeError):
            continue
        if isinstance(value, cls):
            dataset = getattr(value, source, None) if source else None
            replicas = getattr(value, "_num_replicas_in_sync", None)
            return made_by, dataset, replicas if isinstance(replicas, int) else None
    return None


# ------------------------------------------------------------------ layer walks
def direct_sublayers(layer: Any) -> list[Any]:
    """The layers ``layer`` tracks directly, in Keras' order ([] for anything else)."""
    flatten = getattr(layer, "_flatten_layers", None)
    if flatten is not None:
        try:
            return list(flatten(include_self=False, recursive=False))
        except Exception:  # a half-built custom layer: fall back to .layers
            pass
    return list(getattr(layer, "layers", None) or [])


def all_sublayers(layer: Any) -> list[Any]:
    """Every layer inside ``layer`` at any depth, each once, in Keras' order."""
    flatten = getattr(layer, "_flatten_layers", None)
    if flatten is not None:
        try:
            return list(flatten(include_self=False, recursive=True))
        except Exception:  # a half-built custom layer: walk the direct sublayers instead
            pass
    seen: dict[int, Any] = {}
    todo = direct_sublayers(layer)
    while todo:
        child = todo.pop(0)
        if id(child) not in seen:
            seen[id(child)] = child
            todo.extend(direct_sublayers(child))
    return list(seen.values())


def layer_paths(model: Any) -> Iterator[tuple[str, Any]]:
    """``(path, layer)`` for every layer inside ``model`` (nested ones as ``outer/inner``)."""

    def walk(layer: Any, prefix: str) -> Iterator[tuple[str, Any]]:
        for child in direct_sublayers(layer):
            path = f"{prefix}{child.name}"
            yield path, child
            yield from walk(child, path + "/")

    yield from walk(model, "")


def model_leaves(model: Any) -> list[Any]:
    """``model.layers`` with every nested model (anything with ``.layers``) opened, in order."""
    out = []
    for layer in getattr(model, "layers", []):
        if getattr(layer, "layers", None):
            out.extend(model_leaves(layer))
        else:
            out.append(layer)
    return out


# ------------------------------------------------------------------ model checks
def model_optimizers(model: Any) -> list[tuple[str, Any]]:
    """``(attribute, optimizer)`` for ``model.optimizer`` and every optimizer held as an attribute.

    A model with its own ``train_step`` (a GAN) often keeps its optimizers in
    attributes such as ``d_optimizer``; they train as much as ``model.optimizer``.
    """
    from keras.optimizers import Optimizer

    found: list[tuple[str, Any]] = []
    seen: set[int] = set()
    for name, value in [("optimizer", getattr(model, "optimizer", None)), *vars(model).items()]:
        items = list(value) if isinstance(value, list | tuple) else [value]
        for index, item in enumerate(items):
            if isinstance(item, Optimizer) and id(item) not in seen:
                seen.add(id(item))
                where = f"{name}[{index}]" if isinstance(value, list) else f"{name}({index})"
                found.append((name if item is value else where, item))
    return found


def creation_scope(model: Any) -> contextlib.AbstractContextManager[Any]:
    """The scope of the ``tf.distribute`` strategy an unbuilt ``model`` was created under,
    when the caller is not in it already: a call that builds the model there makes
    distributed variables, as the user's own first call under ``strategy.run`` or ``fit``
    would (built outside, they are plain variables the strategy's optimizer refuses:
    "`colocate_vars_with` must only be passed a variable created in this
    tf.distribute.Strategy.scope()").  A null context otherwise."""
    try:
        strategy = vars(model).get("_distribute_strategy")
        built = bool(getattr(model, "built", True))
    except TypeError:
        return contextlib.nullcontext()
    if strategy is None or built:
        return contextlib.nullcontext()
    import tensorflow as tf

    if tf.distribute.has_strategy() and tf.distribute.get_strategy() is strategy:
        return contextlib.nullcontext()
    return strategy.scope()


def optimizer_built_before_trace(model: Any) -> list[Any]:
    """Build ``model``'s optimizer before its train function is traced, as Keras does under a
    strategy (``optimizer.build(model.trainable_variables)``: the variables, names and values
    it makes in the trace otherwise); return the trainable variables, or ``[]`` when it is
    left to the trace (eager, several replicas, an unbuilt model, no optimizer).

    Without a strategy Keras builds the optimizer inside the first trace of ``fit``, and a
    ``tf.function`` whose first trace creates variables is traced a second time: an
    instrumented step paid both traces.  Call only where the model is about to train.
    """
    if bool(getattr(model, "run_eagerly", False)):
        return []
    optimizer = getattr(model, "optimizer", None)
    try:
        if optimizer is None or int(model.distribute_strategy.num_replicas_in_sync) != 1:
            return []
        variables = list(model.trainable_variables)
        if variables and not getattr(optimizer, "built", True):
            with model.distribute_strategy.scope():
                optimizer.build(variables)
    except Exception:
        return []  # Keras builds it in the trace, as without tfnb_debug
    return variables if getattr(optimizer, "built", False) else []


def build_from_data(model: Any, x: Any) -> None:
    """Build an unbuilt ``model`` by calling it on the first example of ``x`` (an array,
    tensor, or a list or dict of them), as its own first ``fit`` or call would: under the
    ``tf.distribute`` strategy it was created in (:func:`creation_scope`), drawing its
    initial weights from the same seed state in the same order, so the weights are the
    ones the user's next ``fit`` would have made.  Nothing happens to a built model, a
    layer that is not a model, or when ``x`` is None; a call that fails is left to the
    caller's own call to report."""
    import keras

    if x is None or not isinstance(model, keras.Model) or model.built:
        return
    try:
        first = keras.tree.map_structure(lambda a: a[:1], x)
        with creation_scope(model):
            model(first, training=False)
    except Exception:  # the caller's own call on x says what is wrong with it
        return


def require_keras(
    obj: Any,
    *,
    what: str = "MODEL",
    layer: bool = False,
    built: bool = False,
    example: str = "",
) -> Any:
    """``obj`` if it is a Keras 3 model (or, with ``layer``, any Keras 3 layer).

    Otherwise a one-line :class:`TfnbDebugError` naming what was passed, with a
    hint for a tf_keras / Keras 2 object; ``built`` also refuses an unbuilt model;
    ``example`` ends the first message with a usage example.
    """
    import keras

    expected = keras.layers.Layer if layer else keras.Model
    if not isinstance(obj, expected):
        noun = "a Keras 3 model or layer" if layer else "a Keras model"
        hint = ""
        if type(obj).__module__.startswith(("tf_keras", "tensorflow.python.keras")):
            hint = " (a tf_keras / Keras 2 object: build it with `import keras` (Keras 3))"
        tail = f": {example}" if example else ""
        raise TfnbDebugError(f"{what} must be {noun}, got {type(obj).__name__}{hint}{tail}")
    if built and not obj.built:
        raise TfnbDebugError(
            f"{what} {obj.name!r} is not built yet: call it once on a batch first "
            "(`model(x)`) or give it an Input"
        )
    return obj


def require_keras_model(model: Any, *, what: str = "MODEL", built: bool = True) -> Any:
    """``model`` as a built Keras 3 model (``built=False``: built or not), else a one-line error."""
    return require_keras(model, what=what, built=built)


def check_model(model: Any, what: str = "model") -> None:
    """Refuse anything but a Keras 3 model or layer (what ``%tfshape`` and the inspector trace)."""
    require_keras(
        model, what=what, layer=True, example="pass the model object, e.g. `%tfshape model`"
    )
