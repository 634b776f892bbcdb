"""Explain a TensorFlow/Keras exception: the catalog findings behind it and a next step.

:func:`explain_exception` is pure: it reads the exception's messages and
traceback (never changes them) and returns an :class:`ExplainReport`, or None
when no rule recognises the error.  After ``%load_ext tfnb_debug`` the
extension calls it for every failed cell and shows the report under the
traceback (see :mod:`tfnb_debug.magics.auto`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from tfnb_debug.explain._context import ErrorContext, build_context
from tfnb_debug.explain._metric_labels import metric_label_encoding, metric_on_class_ids
from tfnb_debug.explain._nonfinite_findings import nonfinite_consequence
from tfnb_debug.explain.asserts import failed_check, label_range_check
from tfnb_debug.explain.checks import checked_upstream
from tfnb_debug.explain.contracts import broken_contract, internal_error
from tfnb_debug.explain.custom_layers import (
    build_given_shapes,
    call_returns_nothing,
    cell_state_count,
    static_batch_in_call,
    weight_without_input_size,
)
from tfnb_debug.explain.data import input_structure
from tfnb_debug.explain.data_functions import generator_structure, python_function_dtype
from tfnb_debug.explain.distribute import outside_scope, unsupported_distribution
from tfnb_debug.explain.diverged import diverged_fit
from tfnb_debug.explain.dtypes import dtype_mismatch
from tfnb_debug.explain.fit_weights import (
    class_weight_form,
    outputs_paired,
    validation_split_on_dataset,
)
from tfnb_debug.explain.indices import index_out_of_range
from tfnb_debug.explain.keras2_methods import removed_keras2_method
from tfnb_debug.explain.keras2_modules import removed_keras2_module_attribute
from tfnb_debug.explain.labels import (
    label_dtype,
    label_out_of_range,
    loss_output_mismatch,
)
from tfnb_debug.explain.layouts import backbone_too_small, channels_first_data
from tfnb_debug.explain.list_dtypes import list_dtypes
from tfnb_debug.explain.list_input import list_into_one_input
from tfnb_debug.explain.model import unbuilt_model
from tfnb_debug.explain.padded_widths import padded_arrays_differ, padded_to_longest
from tfnb_debug.explain.pair_inputs import one_tensor_for_pair
from tfnb_debug.explain.pipelines import (
    generator_shape,
    padded_too_small,
    parsed_example,
    ragged_batch,
    unknown_channels,
    unknown_shape,
    unknown_shape_in_map,
)
from tfnb_debug.explain.probabilities import doubled_outputs, probabilities_checked
from tfnb_debug.explain.reductions import (
    asserted_other_type,
    crop_larger_than_image,
    ensured_other_shape,
    reduced_missing_axis,
)
from tfnb_debug.explain.report import ExplainReport, NextStep
from tfnb_debug.explain.results import library_result
from tfnb_debug.explain.runtime import (
    no_gradients,
    nonfinite_check,
    out_of_memory,
    symbolic_value,
    variable_shape,
)
from tfnb_debug.explain.saving import restored_other_shape, unregistered_custom_object
from tfnb_debug.explain.shapes import (
    layer_rejects_input,
    op_shapes,
    sequential_build_fails,
    spatial_and_size,
)
from tfnb_debug.explain.step_data import step_data_structure
from tfnb_debug.explain.tables import check_made_wrong, map_over_pairs, numpy_line, table_column
from tfnb_debug.explain.tape import tape_misuse
from tfnb_debug.explain.targets import targets_outside_loss
from tfnb_debug.ground.reports import Finding, sort_findings

__all__ = ["ExplainReport", "NextStep", "explain_exception"]

TITLE = "tfnb_debug: why this cell failed"

Rule = Callable[[ErrorContext], "tuple[Finding, tuple[NextStep, ...]] | None"]

# Most specific first: an out-of-range label or a dtype clash is also an InvalidArgumentError.
RULES: tuple[Rule, ...] = (
    out_of_memory,
    outside_scope,
    unsupported_distribution,
    broken_contract,
    one_tensor_for_pair,
    step_data_structure,
    channels_first_data,
    backbone_too_small,
    diverged_fit,
    check_made_wrong,
    checked_upstream,
    failed_check,
    label_range_check,
    removed_keras2_method,
    removed_keras2_module_attribute,
    weight_without_input_size,
    build_given_shapes,
    call_returns_nothing,
    cell_state_count,
    static_batch_in_call,
    class_weight_form,
    outputs_paired,
    validation_split_on_dataset,
    label_out_of_range,
    index_out_of_range,
    loss_output_mismatch,
    metric_label_encoding,
    metric_on_class_ids,
    label_dtype,
    list_dtypes,
    dtype_mismatch,
    unregistered_custom_object,
    restored_other_shape,
    input_structure,
    list_into_one_input,
    unknown_shape,
    unknown_shape_in_map,
    unknown_channels,
    ragged_batch,
    padded_too_small,
    parsed_example,
    generator_shape,
    generator_structure,
    python_function_dtype,
    symbolic_value,
    library_result,
    table_column,
    numpy_line,
    map_over_pairs,
    reduced_missing_axis,
    ensured_other_shape,
    asserted_other_type,
    crop_larger_than_image,
    nonfinite_check,
    nonfinite_consequence,
    targets_outside_loss,
    probabilities_checked,
    doubled_outputs,
    tape_misuse,
    no_gradients,
    unbuilt_model,
    padded_to_longest,
    padded_arrays_differ,
    spatial_and_size,
    layer_rejects_input,
    variable_shape,
    op_shapes,
)
# Only when no rule above explained the error (one problem, one finding): a layer
# that raised while Keras built a Sequential from its layer list.
FALLBACK_RULES: tuple[Rule, ...] = (sequential_build_fails, internal_error)
# Rules that read only the error's message and shapes: a broken contract of the failing call
# names the argument and its fix, so these would only restate (or contradict) it.
MESSAGE_RULES: frozenset[Rule] = frozenset(
    {
        layer_rejects_input,
        op_shapes,
        spatial_and_size,
        input_structure,
        ragged_batch,
        dtype_mismatch,
    }
)


# Rules that read the live arguments or the user's own classes: when one explains the error,
# the message rules would only restate it (or contradict it) in a second finding.
EVIDENCE_RULES: frozenset[Rule] = frozenset(
    {
        broken_contract,
        step_data_structure,
        padded_to_longest,
        padded_arrays_differ,
        channels_first_data,
        backbone_too_small,
        weight_without_input_size,
        build_given_shapes,
        call_returns_nothing,
        static_batch_in_call,
    }
)


def explain_exception(
    exc: BaseException, *, cells: Mapping[str, int] | None = None, fallback: bool = True
) -> ExplainReport | None:
    """Explain a TensorFlow/Keras exception in the catalog's terms, or return None.

    ``cells`` maps code file names to notebook cell numbers (IPython's
    ``shell.compile._filename_map``) so places read ``Cell In[5], line 3``.
    Only ``Exception`` subclasses are explained (never ``KeyboardInterrupt``).
    ``fallback=False`` leaves out the generic rules that run when no specific
    one matched (a magic that has its own account of the failure uses that).
    """
    if not isinstance(exc, Exception):
        return None
    ctx = build_context(exc, cells=cells)
    findings: list[Finding] = []
    steps: list[NextStep] = []
    contract_broken = False
    for rule in RULES + (FALLBACK_RULES if fallback else ()):
        if rule in FALLBACK_RULES and findings:
            break
        if contract_broken and rule in MESSAGE_RULES:
            continue
        explained = rule(ctx)
        if explained is None:
            continue
        found, next_steps = explained
        contract_broken = contract_broken or rule in EVIDENCE_RULES
        if all(f.code != found.code for f in findings):
            findings.append(found)
            steps.extend(s for s in next_steps if s not in steps)
    if not findings:
        return None
    return ExplainReport(
        title=TITLE,
        # the catalog: "the finding that explains an exception has severity error", whatever
        # the code's severity where it is a symptom seen in a run that did not fail
        findings=sort_findings([replace(f, severity="error") for f in findings]),
        error_type=ctx.type_name,
        error_line=ctx.key_sentence(),
        next_steps=tuple(steps),
    )
