"""``tfnb_debug.inspect(model, inputs)`` and the ``%tfshape --inspect`` glue."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.widgets.inspector import InspectorOptions, LayerInspector
from tfnb_debug.widgets.session import current_cell_id

__all__ = ["emit_inspector", "inspect", "inspect_for_magic"]


def inspect(
    model: Any,
    inputs: Any = None,
    *,
    input_shape: str | Sequence[Any] | None = None,
    training: bool = False,
    stats: bool = True,
    gradients: Any = None,
    options: InspectorOptions | None = None,
    thresholds: Any = None,
    name: str | None = None,
) -> LayerInspector:
    """Trace ``model`` like :func:`tfnb_debug.trace_shapes` and return a click-through inspector.

    ``inputs`` (array, tensor, list or dict of them) or ``input_shape`` as for
    ``trace_shapes``; without either, the same synthetic batch (batch 2,
    seeded) is built from the model's input spec and kept, so that the
    selected layer's output can be captured later.  ``gradients`` is a
    ``%tfgrad`` report of the same model; without it, the latest one of this
    model in the session is used when a layer is selected.  If the model
    raises, the inspector starts on the failing layer (use ``%tfshape
    --inspect`` to also get the exception).

    Display the result (last line of a cell, or ``display(...)``): widget
    frontends show the inspector, every other frontend the static table.
    ``inspector.select("model/conv")`` selects a layer from code and returns
    its :class:`~tfnb_debug.widgets.details.LayerDetails`.

    Example::

        insp = tfnb_debug.inspect(model, x_batch)
        insp            # shows the inspector
    """
    from tfnb_debug.features.shapes import trace_shapes

    options = _options(options, training)
    inputs, note = _resolve_inputs(model, inputs, input_shape)
    report = trace_shapes(
        model, inputs, training=training, stats=stats, thresholds=thresholds, name=name
    )
    if note:
        report = replace(report, input_note=note)
    return LayerInspector(
        report,
        model=model,
        inputs=inputs,
        gradients=gradients,
        options=options,
        cell_id=current_cell_id(),
    )


def inspect_for_magic(
    shell: Any,
    model: Any,
    inputs: Any,
    args: Any,
    *,
    input_shape: str | None = None,
    stats: bool = True,
    name: str | None = None,
) -> Any:
    """``%tfshape --inspect MODEL [INPUT]``: show the inspector; re-raise the model's error.

    Like the plain magic, a failing model still shows (the inspector, on the
    failing row) and then the user's exception propagates unchanged.
    ``-o``/``-v NAME`` give the :class:`LayerInspector` (its ``.report`` is
    the shape report).
    """
    __tracebackhide__ = True
    from tfnb_debug.features.shapes import trace_shapes

    inputs, note = _resolve_inputs(model, inputs, input_shape)
    cell = current_cell_id()

    def show(report: Any) -> LayerInspector:
        if note:
            report = replace(report, input_note=note)
        inspector = LayerInspector(report, model=model, inputs=inputs, cell_id=cell)
        emit_inspector(shell, inspector, args)
        return inspector

    def on_failure(partial: Any) -> None:
        show(partial)

    report = trace_shapes(
        model, inputs, stats=stats, reraise=True, on_failure=on_failure, name=name
    )
    inspector = show(report)
    return inspector if args.output else None


def emit_inspector(shell: Any, inspector: LayerInspector, args: Any) -> LayerInspector | None:
    """Display and/or store an inspector as ``-q``/``-o``/``-v NAME`` ask."""
    if not args.quiet:
        from IPython.display import display

        display(inspector)
    if args.var:
        shell.user_ns[args.var] = inspector
    return inspector if args.output else None


def inspector_for_cell(shell: Any, report: Any, args: Any) -> LayerInspector | None:
    """``%%tfshape --inspect``: the cell's models are found in the notebook by name.

    Config, weights, parameter arithmetic and gradients are shown; activations
    need the inputs, which a cell trace does not keep (the pane says so).
    """
    roots = {c.path.split("/", 1)[0] for c in getattr(report, "calls", ()) if c.depth == 0}
    keras = sys.modules.get("keras")
    models = []
    if keras is not None:
        for value in list(shell.user_ns.values()):
            if isinstance(value, keras.layers.Layer) and str(value.name) in roots:
                models.append(value)
    inspector = LayerInspector(report, models=models, cell_id=current_cell_id())
    return emit_inspector(shell, inspector, args)


def _options(options: InspectorOptions | None, training: bool) -> InspectorOptions:
    if options is not None and not isinstance(options, InspectorOptions):
        raise TfnbDebugError(
            "options must be tfnb_debug.widgets.inspector.InspectorOptions, "
            f"got {type(options).__name__}"
        )
    return replace(options or InspectorOptions(), training=training)


def _resolve_inputs(
    model: Any, inputs: Any, input_shape: str | Sequence[Any] | None
) -> tuple[Any, str]:
    """The batch ``trace_shapes`` would build, kept so that activations can be captured later."""
    from tfnb_debug.collect.shape_inputs import (
        batch_from_shapes,
        check_model,
        input_spec_of,
        parse_input_shape,
        synthetic_batch,
    )

    check_model(model)
    if inputs is not None and input_shape is not None:
        raise TfnbDebugError("give either an input or an input shape, not both")
    if inputs is not None:
        return inputs, ""
    spec = input_spec_of(model)
    if input_shape is not None:
        batch = batch_from_shapes(parse_input_shape(input_shape), spec)
        return batch, "input: synthetic batch of the given shape (random normal floats)"
    if spec is not None:
        return synthetic_batch(spec), (
            "input: synthetic batch built from the model's input spec "
            "(batch 2, random normal floats)"
        )
    return None, ""  # trace_shapes reports S04 (unbuilt model)
