"""Call contracts: the failing user call's arguments checked against what the API it called takes.

One check per documented contract of the APIs users call most.  Each check reads the live
arguments of :class:`~tfnb_debug.explain._api.LiveCall` and returns a :class:`Violation`
naming the argument that breaks the contract, what it is, what the API takes, and a fix
derived from the two (never a fix already in place).  :func:`read_contract` runs them while
the exception is read and keeps plain values only (a :class:`ContractReport`).

``CONTRACTS`` lists, for each check, the API names it covers and the raise
sites (message patterns) whose exception it explains; ``scripts/explain_coverage.py``
reads it to build the coverage table of docs/diagnostics.md.

This module holds the registry and the runner (which contracts apply to a call, the
layers checked when the call itself breaks none); the checks live in sibling modules, one
per family (:mod:`._layer_call_contracts`, :mod:`._data_shape_contracts`, the others imported
below); :mod:`._sparse_ragged`, :mod:`._preprocessing` and :mod:`._inference_noise` add
their own tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._api import UNREAD, LiveCall, layer_frames, unpacked_call, user_call
from tfnb_debug.explain._argument_contracts import (
    batch_size_argument,
    class_for_instance,
    decorator_without_call,
    function_signature,
    int_argument,
    keras2_argument,
    layer_list_inputs,
    shape_argument,
    signature_binding,
    tensor_as_axis,
    tensorshape_api_on_tuple,
)
from tfnb_debug.explain._call import describe_value
from tfnb_debug.explain._callback_contracts import logs_key, schedule_return
from tfnb_debug.explain._confusion_contracts import confusion_matrix_ids
from tfnb_debug.explain._contract_tables import FAMILY_CONTRACTS
from tfnb_debug.explain._data_contracts import (
    class_weight_type,
    fit_argument_kinds,
    fit_targets,
    image_channels,
    labels_logits_order,
    lambda_function,
    padding_values_dtype,
    set_weights_unbuilt,
    softmax_labels,
    target_keys,
)
from tfnb_debug.explain._data_shape_contracts import (
    baked_sample_count,
    data_against_input,
    dataset_columns_for_one_input,
    from_tensor_slices,
    image_layer_rank,
    image_rank,
    loss_argument_order,
    output_axes,
    series_row,
    target_shape,
    text_dataset_into_numeric_model,
    to_categorical,
)
from tfnb_debug.explain._dataset_structure import (
    dataset_concatenate,
    dataset_map,
    map_over_windows,
    padded_batch,
    sampled_datasets,
)
from tfnb_debug.explain._distribute_contracts import distribute_non_dataset, scalar_average_loss
from tfnb_debug.explain._error_argument import argument_of_error
from tfnb_debug.explain._inference_noise import INFERENCE_NOISE
from tfnb_debug.explain._key_contracts import missing_key
from tfnb_debug.explain._layer_call_contracts import (
    add_weight_shape,
    attention_inputs,
    mha_inputs,
    rnn_initial_state,
    set_weights,
    shared_layer_width,
    unpacked_result,
)
from tfnb_debug.explain._layer_init_contracts import call_signature, layer_without_init
from tfnb_debug.explain._layer_inputs import (
    frames_axis_missing,
    key_value_sources,
    steps_axis_dropped,
)
from tfnb_debug.explain._map_contracts import (
    binary_metric_two_columns,
    map_after_batch,
    map_element_dtype,
    positional_into_training,
)
from tfnb_debug.explain._merge_sizes import merge_sizes
from tfnb_debug.explain._model_contracts import (
    compile_keys,
    fit_class_weight,
    model_graph,
    override_signature,
    step_unpack,
    user_function_arity,
    xla_unsupported,
)
from tfnb_debug.explain._model_outputs import MODEL_OUTPUTS
from tfnb_debug.explain._normalization import (
    given_statistics,
    normalization_statistics,
    widened_by_normalization,
)
from tfnb_debug.explain._op_dtypes import (
    allowed_dtypes,
    layer_weights_dtype,
    text_cast,
    traced_call,
)
from tfnb_debug.explain._op_shapes import matmul_inner
from tfnb_debug.explain._optimizer_calls import (
    apply_given_pairs,
    apply_gradients,
    fit_optimizer,
    learning_rate_type,
    tape_gradient,
)
from tfnb_debug.explain._preprocessing import PREPROCESSING
from tfnb_debug.explain._py_dataset import py_dataset_batches
from tfnb_debug.explain._rank_asserts import rank_assert
from tfnb_debug.explain._reshape_sizes import reshape_target
from tfnb_debug.explain._saved_objects import load_custom_objects
from tfnb_debug.explain._sparse_ragged import SPARSE_RAGGED
from tfnb_debug.explain._spatial import (
    image_input_without_channels,
    merge_shapes,
    shrunk_input,
)
from tfnb_debug.explain._step_contracts import default_step, predict_step_unpacks
from tfnb_debug.explain._tape_results import (
    consumed_pairs,
    none_gradient,
    numpy_sources,
    numpy_target,
)
from tfnb_debug.explain._tensor_ops import TENSOR_OPS
from tfnb_debug.explain._unbuilt_weights import load_weights_unbuilt
from tfnb_debug.explain._unknown_axis import unknown_axis_weight
from tfnb_debug.explain._value_kinds import (
    list_into_layer,
    method_not_called,
    ragged_data,
    ragged_list,
    receiver_is_class,
)
from tfnb_debug.explain._violation import Violation
from tfnb_debug.explain._violation import is_a as _is_a
from tfnb_debug.explain._weights_files import (
    model_file_to_load_weights,
    weights_against_model,
    weights_file_to_load_model,
)

INTERNAL = ("AttributeError", "IndexError", "KeyError", "TypeError")


@dataclass(frozen=True)
class ContractReport:
    """The failing call into the library and what its contracts found (plain values)."""

    api: str
    source: str
    filename: str
    lineno: int
    arguments: tuple[str, ...]  # each bound argument, described
    violations: tuple[Violation, ...]


Check = Callable[[LiveCall, BaseException], "Violation | None"]


@dataclass(frozen=True)
class Contract:
    """A check, the APIs it applies to (public names, matched by suffix), the raise sites it explains."""

    apis: tuple[str, ...]
    check: Check
    explains: tuple[str, ...] = ()  # regexes over raise-site messages (for the coverage table)
    layer: bool = False  # also checked on a layer's own call frame inside a model's run


def read_contract(exc: BaseException, is_user_file: Any) -> ContractReport | None:
    """The user's failing call with its contracts checked; when it breaks none, the layers that
    ran inside it (a layer's ``call`` frame, innermost first) are checked with what they got."""
    call = (
        unpacked_call(exc, is_user_file)
        or user_call(exc, is_user_file)
        or traced_call(exc, is_user_file)
    )
    if call is None:
        return None
    violations = _check(call, exc, CONTRACTS)
    if not violations:
        layer_contracts = tuple(c for c in CONTRACTS if c.layer)
        for layer in layer_frames(exc, is_user_file) + _named_layers(call, exc):
            violations = _check(layer, exc, layer_contracts)
            if violations:
                break
    return ContractReport(
        api=call.api,
        source=call.source,
        filename=call.filename,
        lineno=call.lineno,
        arguments=tuple(_describe(call, name) for name in list(call.values)[:8]),
        violations=tuple(violations),
    )


_CALLING = re.compile(r"Exception encountered when calling (\w+)\.call\(\)")


def _named_layers(call: LiveCall, exc: BaseException) -> list[LiveCall]:
    """The layers of the call's model of the class Keras names in "Exception encountered when
    calling X.call()" (Keras filters their frames out), with their symbolic input as ``inputs``."""
    names = set(_CALLING.findall(str(exc)))
    model = call.receiver
    if not names or not _is_a(model, "Model"):
        return []
    out = []
    for layer in all_sublayers(model):
        # the named class, or the RNN whose cell it is (Keras names GRUCell.call, not GRU)
        cell = getattr(layer, "cell", None)
        if type(layer).__name__ not in names and type(cell).__name__ not in names:
            continue
        for values in _node_arguments(layer):
            out.append(
                LiveCall(
                    call.api,
                    "__call__",
                    layer,
                    layer,
                    values=values,
                    source=call.source,
                    namespaces=call.namespaces,
                )
            )
    return out[:8]


def _node_arguments(layer: Any) -> list[dict[str, Any]]:
    """What the layer was called with in the model's graph (each inbound node's arguments:
    ``inputs`` and keywords such as ``initial_state``), else its symbolic input alone."""
    found = []
    for node in list(getattr(layer, "_inbound_nodes", []) or [])[:4]:
        arguments = getattr(node, "arguments", None)
        args = list(getattr(arguments, "args", ()) or ())
        kwargs = dict(getattr(arguments, "kwargs", {}) or {})
        if args or kwargs:
            found.append({"inputs": args[0] if args else None, **kwargs})
    if found:
        return found
    try:
        return [{"inputs": layer.input}]
    except Exception:
        return []


def _check(call: LiveCall, exc: BaseException, contracts: tuple[Contract, ...]) -> list[Violation]:
    violations: list[Violation] = []
    names = _api_names(call)  # once per call: the MRO walk is the costly part
    for contract in contracts:
        if not _applies(contract, names):
            continue
        try:
            found = contract.check(call, exc)
        except Exception:
            found = None
        if found is not None and found not in violations:
            violations.append(found)
    return violations


def _applies(contract: Contract, names: set[str]) -> bool:
    """``Layer.add_weight`` matches ``keras.Layer.add_weight`` and the same method of a subclass
    (``names``: the call's :func:`_api_names`); ``tf.image.`` (ending in a dot) every API under
    it; ``*`` every call."""
    if "*" in contract.apis:
        return True
    for api in contract.apis:
        for name in names:
            if api.endswith(".") and name.startswith(api):
                return True
            if name == api or name.endswith("." + api):
                return True
    return False


def _api_names(call: LiveCall) -> set[str]:
    """The call's API name, and the same method on every library base class (LSTM -> RNN, Layer)."""
    from tfnb_debug.explain._api import public_name

    names = {call.api}
    owner = (
        call.receiver
        if call.receiver is not None
        else (call.callee if isinstance(call.callee, type) else None)
    )
    if owner is not None:
        cls = owner if isinstance(owner, type) else type(owner)
        for klass in cls.__mro__:
            base = public_name(klass)
            names.add(
                f"{base}.{call.method}" if call.method and call.method != "__call__" else base
            )
    return names


def _describe(call: LiveCall, name: str) -> str:
    value = call.values.get(name, UNREAD)
    text = call.text(name)
    if value is UNREAD:
        return f"{name}=`{text}` (not read)"
    described = describe_value(text, value).describe()
    return (
        f"{name}={described}" if described != f"`{text}`" else f"{name}=`{text}` ({_kind(value)})"
    )


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, int | float | str | bool):
        return repr(value)[:40]
    return type(value).__name__


CONTRACTS: tuple[Contract, ...] = (
    Contract(("Model.fit", "Model.evaluate"), default_step, ()),
    Contract(("RNN", "Bidirectional"), rnn_initial_state, (r"initial_state", r"state"), layer=True),
    Contract(("RNN", "Bidirectional", "MultiHeadAttention"), unpacked_result),
    Contract(
        ("Attention", "AdditiveAttention"),
        attention_inputs,
        (r"must be called on a list of inputs",),
        layer=True,
    ),
    Contract(("MultiHeadAttention",), key_value_sources, (r"dimensions of `value` and `key`",)),
    Contract(("*",), steps_axis_dropped, (r"at least 3 dimensions", r"expected ndim=3")),
    Contract(("TimeDistributed",), frames_axis_missing, (r"Kernel shape must have the same",)),
    Contract(
        ("MultiHeadAttention",),
        mha_inputs,
        (r"missing a required argument", r"attention_mask"),
        layer=True,
    ),
    Contract(("Layer.add_weight",), add_weight_shape, (r"must be fully-defined",)),
    Contract(
        ("Layer.set_weights",),
        set_weights,
        (r"weight shape .* is not compatible", r"expects \d+ weights"),
    ),
    Contract(("Optimizer.apply_gradients",), consumed_pairs, (r"not enough values to unpack",)),
    Contract(("Optimizer.apply",), apply_given_pairs, (r"object of type 'zip' has no len",)),
    Contract(
        ("Optimizer.apply_gradients", "Optimizer.apply"),
        apply_gradients,
        (r"Unknown variable", r"_unique_id", r"No gradients provided for any variable"),
    ),
    Contract(("Model.fit", "Model.train_on_batch"), fit_optimizer, (r"Unknown variable",)),
    Contract(("keras.optimizers.",), learning_rate_type, (r"`learning_rate` should be float",)),
    Contract(("GradientTape.gradient",), numpy_sources, (r"has no attribute '_id'",)),
    Contract(("GradientTape.gradient",), numpy_target, (r"object has no attribute '_id'",)),
    Contract(("GradientTape.gradient",), tape_gradient, ()),
    Contract(
        ("to_categorical",),
        to_categorical,
        (r"index \d+ is out of bounds", r"invalid literal for int"),
    ),
    Contract(
        ("tf.image.",),
        image_rank,
        (
            r"must have either 3 or 4 dimensions",
            r"must be at least three-dimensional",
            r"'size' must be a 1-D",
        ),
    ),
    Contract(
        ("Dataset.from_tensor_slices",),
        from_tensor_slices,
        (r"Dimensions \d+ and \d+ are not compatible", r"non-rectangular"),
    ),
    Contract(("Dataset.map",), dataset_map, (r"takes \d+ positional argument",)),
    Contract(("Dataset.padded_batch",), padded_batch, (r"padded_shapes", r"padded shape")),
    Contract(("Dataset.concatenate",), dataset_concatenate, (r"Incompatible dataset elements",)),
    Contract(("Dataset.map",), map_over_windows, (r"_VariantDataset",)),
    Contract(
        ("Dataset.sample_from_datasets", "Dataset.choose_from_datasets"),
        sampled_datasets,
        (r"must have compatible element specs", r"same type"),
    ),
    Contract(
        ("tf.function", "ConcreteFunction"),
        function_signature,
        (r"Can not cast TensorSpec", r"input_signature"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch", "Model.compile"),
        compile_keys,
        (r"in loss dict", r"loss_weights", r"metrics"),
    ),
    Contract(("Model.fit",), fit_class_weight, (r"class_weight` is only supported",)),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict"),
        logs_key,
        (r"Failed to format this callback filepath",),
    ),
    Contract(("Model.fit",), schedule_return, (r"output of the `schedule` function",)),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict", "Model.train_on_batch"),
        step_unpack,
        (r"values to unpack",),
    ),
    Contract(("Model.fit",), class_weight_type, (r"has no attribute 'get'",)),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict"),
        fit_argument_kinds,
        (r"Unrecognized data type", r"must be at least rank 1"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch", "Model.test_on_batch"),
        target_keys,
        (r"Expected \w+, but got \w+ of type 'str'",),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch", "Model.test_on_batch"),
        fit_targets,
        (r"have different structures", r"same nested structure"),
    ),
    Contract(("Dataset.padded_batch",), padding_values_dtype, (r"Invalid `padding_values`",)),
    Contract(
        ("tf.image.",),
        image_channels,
        (r"must have 3 channels", r"Dimension must be 3", r"should be size 1"),
    ),
    Contract(
        ("softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits"),
        softmax_labels,
        (r"logits and labels must be", r"Rank mismatch"),
    ),
    Contract(("Layer.set_weights",), set_weights_unbuilt, (r"was expecting 0 weights",)),
    Contract(("Model.load_weights",), load_weights_unbuilt, (r"has not yet been built",)),
    Contract(("Lambda",), lambda_function, (r"could not automatically infer the shape",)),
    Contract(
        ("confusion_matrix",),
        confusion_matrix_ids,
        (r"Shapes of all inputs must match", r"`labels` out of bound"),
    ),
    Contract(("keras.Model", "keras.Function"), model_graph, (r"is not connected to `inputs`",)),
    Contract(
        ("Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Dot"),
        merge_shapes,
        (r"requires inputs with matching shapes", r"Inputs have incompatible shapes"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch"),
        target_shape,
        (r"Incompatible shapes", r"target.shape"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch"),
        output_axes,
        (r"must have the same rank", r"must have rank \(ndim\)"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict", "keras.Model"),
        baked_sample_count,
        (r"incompatible with the layer", r"expected shape="),
    ),
    Contract(("*",), none_gradient, (r"Attempt to convert a value \(None\)",)),
    Contract(("keras.Sequential",), image_input_without_channels, (r"min_ndim=4",)),
    Contract(("*",), unknown_axis_weight, (r"must be fully-defined",)),
    Contract(("*",), shrunk_input, (r"would be zero or negative", r"Negative dimension size")),
    Contract(
        ("*",),
        int_argument,
        (r"cannot be interpreted as an integer", r"expected a positive integer"),
    ),
    Contract(("*",), decorator_without_call, (r"has no attribute '__name__'",)),
    Contract(("Model.fit", "Model.evaluate", "Model.predict"), ragged_data, (r"ragged",)),
    Contract(("*",), image_layer_rank, (r"Expected image tensor to have rank 3",), layer=True),
    Contract(("*",), override_signature, (r"got an unexpected keyword argument",)),
    Contract(("*",), shared_layer_width, (r"expected axis -1 of input shape",), layer=True),
    Contract(("*",), method_not_called, (r"object of type 'method'",)),
    Contract(("*",), missing_key, (r"^'?\w+'?$",)),
    Contract(("Model.predict",), predict_step_unpacks, (r"Iterating over a symbolic",)),
    Contract(("Model.fit", "Model.evaluate"), py_dataset_batches, (r"same first dimension",)),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict"),
        merge_sizes,
        (r"requires inputs with matching shapes", r"Dimension \d+ in both shapes must be equal"),
    ),
    Contract(("*",), receiver_is_class, (r"missing 1 required positional argument",)),
    Contract(("*",), list_into_layer, (r"Only input tensors may be passed",)),
    Contract(("*",), ragged_list, (r"non-rectangular Python sequence", r"inhomogeneous shape")),
    Contract(
        ("*",),
        tensor_as_axis,
        (r"truth value of an array", r"concat_dim", r"cannot be used as a boolean"),
    ),
    Contract(
        ("ops.matmul", "tf.linalg.matmul", "tf.matmul", "ops.batch_matmul"),
        matmul_inner,
        (r"Inner dimensions", r"Matrix size-incompatible"),
    ),
    Contract(("*",), layer_list_inputs, (r"too many positional arguments",)),
    Contract(
        ("Model.compile",), class_for_instance, (r"Could not interpret optimizer identifier",)
    ),
    Contract(("*",), shape_argument, (r"Cannot convert .* to a shape",)),
    Contract(
        ("*",),
        allowed_dtypes,
        (r"is not in the list of allowed values", r"not in list of allowed values"),
    ),
    Contract(("tf.cast",), text_cast, (r"Cast string to",)),
    Contract(("*",), layer_weights_dtype, (r"Incompatible type conversion requested",)),
    Contract(("tf.nn.",), labels_logits_order, (r"must equal `logits.shape.rank - 1`",)),
    Contract(
        ("keras.losses.",), loss_argument_order, (r"must have rank \(ndim\) `target.ndim - 1`",)
    ),
    Contract(("load_model",), weights_file_to_load_model, (r"No model config found",)),
    Contract(("Model.load_weights",), model_file_to_load_weights, (r"could not be loaded",)),
    Contract(("Model.load_weights",), weights_against_model, (r"could not be loaded",)),
    Contract(
        ("load_model", "model_from_json"),
        load_custom_objects,
        (r"could not be deserialized", r"Could not locate", r"missing \d+ required"),
    ),
    Contract(("Model.fit", "Model.evaluate", "Model.predict"), data_against_input, ()),
    Contract(("Model.fit", "Model.evaluate", "Model.predict"), series_row, ()),
    Contract(("Model.fit", "Model.evaluate", "Model.predict"), text_dataset_into_numeric_model, ()),
    Contract(("Model.fit", "Model.evaluate", "Model.predict"), dataset_columns_for_one_input, ()),
    Contract(("*",), rank_assert, (r"must have rank \d+\.\s+Received rank",)),
    Contract(("experimental_distribute_dataset",), distribute_non_dataset, ("_variant_tensor",)),
    Contract(("compute_average_loss",), scalar_average_loss, (r"at least rank 1",)),
    Contract(("Normalization",), normalization_statistics, (), layer=True),
    Contract(
        ("Reshape",),
        reshape_target,
        (r"total size of the tensor must be unchanged",),
        layer=True,
    ),
    Contract(("Normalization",), given_statistics, (r"Unable to broadcast",), layer=True),
    *(Contract(*spec) for spec in PREPROCESSING),
    *(Contract(*spec) for spec in INFERENCE_NOISE),
    *(Contract(*spec) for spec in MODEL_OUTPUTS),
    *(Contract(*spec) for spec in TENSOR_OPS),
    *(Contract(*spec) for spec in FAMILY_CONTRACTS),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict", "Model.train_on_batch", "keras.Model"),
        widened_by_normalization,
        (),
    ),
    Contract(("*",), tensorshape_api_on_tuple, (r"has no attribute",)),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict", "tf.function"),
        xla_unsupported,
        (r"Detected unsupported operations", r"must be a compile-time constant"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch"),
        user_function_arity,
        (r"required positional argument",),
    ),
    Contract(("*",), batch_size_argument, (r"non-rectangular",)),
    Contract(("*",), call_signature, (r"missing a required argument",)),
    Contract(("*",), layer_without_init, (r"object has no attribute",)),
    Contract(
        ("*",), signature_binding, (r"missing a required argument", r"unexpected keyword argument")
    ),
    Contract(("*",), positional_into_training, (r"got multiple values for argument",)),
    Contract(("Dataset.map",), map_after_batch, ()),
    Contract(("Dataset.map",), map_element_dtype, (r"must be of type tf\.\w+; got",)),
    Contract(("update_state",), binary_metric_two_columns, ()),
    Contract(("*",), keras2_argument, (r"Unrecognized keyword arguments passed to",)),
    *(Contract(*spec) for spec in SPARSE_RAGGED),
    # last: the argument a library-internal exception is about, when no contract above named it
    Contract(
        ("*",),
        argument_of_error,
        (r"object is not (callable|iterable|subscriptable)", r"has no len\(\)"),
    ),
)
