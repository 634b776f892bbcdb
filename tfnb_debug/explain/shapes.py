"""Shape errors: a Keras layer rejecting its input (S01), an op or loss on incompatible shapes (S07).

The rules read the shapes in the exception's message.  Where the data's axes came from (S12,
or S11 for raw text) is read by :mod:`tfnb_debug.explain._data_origin`, the hints that need
only the shapes by :mod:`tfnb_debug.explain._shape_hints`.
"""

from __future__ import annotations

import re

from tfnb_debug.diagnostics.shape_hints import producer_rank_hint
from tfnb_debug.explain._batch_fixer_findings import batch_fixer_finding, reshape_batch_finding
from tfnb_debug.explain._broadcast_sizes import broadcast_sizes
from tfnb_debug.explain._context import (
    ErrorContext,
    fmt_shape,
    keras_loss_function,
    parse_shape,
    same_shape,
    scope_owner,
    split_node,
    target_output_shapes,
)
from tfnb_debug.explain._data_origin import (
    DataOrigin,
    _data_origin,
    _sample_count_width,
    _unbatched_dataset,
    data_itself,
    fed_by_data,
    padded_single_example,
)
from tfnb_debug.explain._example_axes import example_axes
from tfnb_debug.explain._image_axes import full_shape
from tfnb_debug.explain._input_order import input_order
from tfnb_debug.explain._op_hints import batch_axis_hint, matmul_hint
from tfnb_debug.explain._returned_tuples import returned_tuple
from tfnb_debug.explain._shape_evidence import (
    class_axis,
    fixed_batch,
    sample_counts,
    strip_op_scope,
    table_width,
)
from tfnb_debug.explain._shape_hints import (
    _feature_hint,
    _label_width_hint,
    _loss_shape_hint,
    _merge_hint,
    _rank_hint,
    dilated_window,
    failing_layer,
    frame_target_hint,
    image_layer_on_sequence_hint,
    merge_shapes,
    sequence_rank_hint,
    shrunk_hint,
    with_user_line,
    written_argument,
)
from tfnb_debug.explain._weight_operand import constant_operand, weight_operand
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_SHAPE_RE = r"(\([^()]*\))"
_INPUT_SPEC = re.compile(
    r"Input (\d+)(?: with name '[^']*')? of layer '([^']+)' is incompatible with the layer: ([^\n]*)"
)
_AXIS_VALUE = re.compile(
    r"expected axis (-?\d+) of input shape to have value (\d+), but received input with shape "
    + _SHAPE_RE
)
_NDIM = re.compile(
    r"expected (min_ndim|ndim|max_ndim)=(\d+), found ndim=(\d+)\. Full shape received: " + _SHAPE_RE
)
_SPEC_SHAPE = re.compile(r"expected shape=" + _SHAPE_RE + r", found shape=" + _SHAPE_RE)
_MODEL_INPUT = re.compile(
    r"Expected shape " + _SHAPE_RE + r", but input has incompatible shape " + _SHAPE_RE
)
_UNKNOWN_RANK = "Cannot take the length of shape with unknown rank"
_CALLING = re.compile(r"Exception encountered when calling (\w+)\.call\(\)")
_INCOMPATIBLE = re.compile(r"Incompatible shapes: \[([-\d,?]*)\] vs\. \[([-\d,?]*)\]")
_DIMS_EQUAL = re.compile(
    r"Dimensions must be equal, but are (\d+) and (\d+) for '\{\{node ([^}]+)\}\} = (\w+)\[[^\]]*\]"
    r"\(([^)]*)\)' with input shapes: (.*?)\.(?:\s|$)"
)
_MATMUL = re.compile(r"Matrix size-incompatible: In\[0\]: \[([\d,]+)\], In\[1\]: \[([\d,]+)\]")

TFSHAPE = "tfshape"


def _tfshape_step(upto: str) -> NextStep:
    return NextStep(
        text=f"re-run this cell with `%%tfshape` as its first line to see the shape table up to {upto}",
        magic=TFSHAPE,
        fallback="print the shapes going in: `model.summary()` and `x.shape` for each input",
    )


def layer_rejects_input(ctx: ErrorContext) -> Explained | None:
    """S01 from Keras' input checks, a model's input check or a merge layer's shape check."""
    text = ctx.text
    spec = _INPUT_SPEC.search(text)
    if spec is not None:
        return _input_spec(ctx, spec)
    model_input = _MODEL_INPUT.search(text)
    if model_input is not None:
        expected, received = parse_shape(model_input.group(1)), parse_shape(model_input.group(2))
        calling = _CALLING.search(text)
        layer = (ctx.layer_of_class(calling.group(1)) if calling else None) or "the model"
        if expected is None or received is None:
            return None
        if (given := data_itself(ctx, expected)) is not None:
            return given
        # the catalog's S12: a single example passed without its batch axis
        single = len(received) == len(expected) - 1 and same_shape(received, expected[1:])
        unbatched = _data_origin(
            ctx,
            received,
            expected,
            ctx.input_source(layer, 0),
            extra_axis=len(received) == len(expected) + 1,
        ) or (None if single else example_axes(ctx, received, len(expected), expected))
        evidence = f"received {fmt_shape(received)}, expected {fmt_shape(expected)}"
        return _s01(
            ctx,
            layer,
            f"the model expects inputs of shape {fmt_shape(expected)} but received {fmt_shape(received)}",
            evidence=evidence + (f"; {unbatched[0]}" if unbatched else ""),
            origin=unbatched,
            structure=single,
            hint=unbatched[1]
            if unbatched
            else _rank_hint(
                layer, expected_ndim=len(expected), received=received, expected=expected
            ),
        )
    if _UNKNOWN_RANK in text and len(ctx.model_inputs) == 1 and ctx.model_inputs[0]:
        expected = ctx.model_inputs[0]
        unbatched = _unbatched_dataset(ctx, expected[1:])
        if unbatched is not None:
            layer = ctx.layer_names[-1] if ctx.layer_names else "the model"
            return _s01(
                ctx,
                layer,
                f"the model expects inputs of shape {fmt_shape(expected)} but received a tensor "
                "of unknown rank (tf.function relaxed the shapes of examples without a batch axis)",
                evidence=f"expected {fmt_shape(expected)}; {unbatched[0]}",
                hint=unbatched[1],
                origin=unbatched,
            )
    merge = merge_shapes(text)
    if merge is None:
        return returned_tuple(ctx)
    kind, shapes, batchless = merge
    tupled = returned_tuple(ctx, len(shapes))
    if tupled is not None:
        return tupled
    layer = ctx.layer_names[0] if ctx.layer_names else kind
    shown = ", ".join(fmt_shape(s) for s in shapes)
    return _s01(
        ctx,
        layer,
        f"the {kind} layer's inputs have shapes that do not fit together: {shown}",
        evidence=f"input shapes {shown}"
        + (" (per example, as Keras prints them)" if batchless else ""),
        hint=_merge_hint(shapes, kind, batchless),
    )


def sequential_build_fails(ctx: ErrorContext) -> Explained | None:
    """S01 for a layer that raised while Keras built a Sequential (constructor, ``add()``, ``build()``)."""
    from tfnb_debug.diagnostics.shape_hints import build_failure_hint

    build = ctx.sequential_build
    if build is None or ctx.is_a("ResourceExhaustedError") or ctx.is_a("MemoryError"):
        return None  # running out of memory is R03's, not a shape problem
    if _ARGUMENT_CHECK.search(ctx.key_sentence() or "") or written_argument(ctx):
        return None  # the layer refused one of its own arguments, and its message names it
    if not re.search(_SHAPE_WORDS, ctx.text):
        return None  # not about what the layer was given (a variable made in call, a bug)
    received = fmt_shape(build.received) if build.received is not None else "(?)"
    producer = build.producer or "code outside a layer"
    chain = " -> ".join(
        f"{s.name} {fmt_shape(s.shape) if s.shape is not None else '(?)'}"
        if s.name == "input"
        else f"{s.name} ({s.class_name}) {fmt_shape(s.shape) if s.shape is not None else '(?)'}"
        for s in build.steps
    )
    key = ctx.key_sentence() or ctx.type_name
    return (
        finding(
            "S01",
            f"{build.layer_class} '{build.layer}' raised while Keras built Sequential "
            f"'{build.model}' from its layer list: {key}",
            place=f"layer '{build.layer}'",
            evidence=f"received {received} {build.dtype} from {_from(producer)}; "
            f"built before it: {chain}",
            hint=build_failure_hint(
                key,
                layer=build.layer,
                class_name=build.layer_class,
                producer=producer,
                received=build.received,
                producer_class=next(
                    (s.class_name for s in build.steps if s.name == producer and s.class_name),
                    "",
                ),
            ),
        ),
        (_tfshape_step(f"'{build.layer}'"),),
    )


# a layer validating its constructor arguments ("Argument `padding` must be either 'valid' or
# 'same'. Received: padding=causal"), or Keras refusing a positional argument in the layer's
# own code ("`name` must be passed as a keyword argument"): not a shape the layers before it gave
# a filter, not a message rule: a plain string, which the coverage table does not count
_SHAPE_WORDS = r"(?i)shape|dimension|ndim|rank|\baxi|size|incompatible|received"
_ARGUMENT_CHECK = re.compile(
    r"Argument `\w+` must|Invalid value for argument|`\w+` must be passed as a keyword argument"
)


def _from(producer: str) -> str:
    return "the model's input" if producer == "input" else f"layer '{producer}'"


def _input_spec(ctx: ErrorContext, spec: re.Match[str]) -> Explained | None:
    index, layer, detail = spec.group(1), spec.group(2), spec.group(3)
    axis = _AXIS_VALUE.search(detail)
    if axis is not None:
        received = parse_shape(axis.group(3)) or ()
        value = int(axis.group(2))
        source = ctx.input_source(layer, int(index))
        hint = table_width(ctx, value, received) or _feature_hint(
            ctx, layer, value, received, source
        )
        counted = _sample_count_width(ctx, value, received, source)
        return _s01(
            ctx,
            layer,
            f"input {index} has {received[-1] if received else '?'} features on axis "
            f"{axis.group(1)} but the layer was built for {value}",
            evidence=f"received {fmt_shape(received)}, expected axis {axis.group(1)} = {value}"
            + (f"; {counted.evidence}" if counted else ""),
            hint=counted.hint if counted else hint,
            origin=counted,
        )
    ndim = _NDIM.search(detail)
    if ndim is not None:
        kind, expected_ndim, found = ndim.group(1), int(ndim.group(2)), int(ndim.group(3))
        received = parse_shape(ndim.group(4)) or ()
        source = ctx.input_source(layer, int(index))
        maker = ctx.shape_maker(source)
        unbatched = (
            _unbatched_dataset(ctx, received)
            if found == expected_ndim - 1 and kind != "max_ndim"
            else None
        ) or _data_origin(
            ctx, received, None, source, extra_axis=kind != "min_ndim" and found > expected_ndim
        )
        if unbatched is None and found < expected_ndim and fed_by_data(source):
            unbatched = example_axes(ctx, received, expected_ndim)
        evidence = f"received {fmt_shape(received)}, expected {kind}={expected_ndim}"
        hint = (
            unbatched[1]
            if unbatched
            else (
                producer_rank_hint(
                    layer,
                    expected_ndim,
                    received,
                    maker.producer,
                    maker.producer_class,
                    maker.inner_last,
                )  # fmt: skip
                if maker is not None
                else None
            )
            or sequence_rank_hint(ctx, layer, expected_ndim, received)
            or image_layer_on_sequence_hint(ctx, layer, expected_ndim, received)
            or _rank_hint(layer, expected_ndim=expected_ndim, received=received)
        )
        return _s01(
            ctx,
            layer,
            f"input {index} has rank {found} but the layer expects {kind}={expected_ndim}",
            evidence=evidence + (f"; {unbatched[0]}" if unbatched else ""),
            hint=hint,
            origin=unbatched,
        )
    shapes = _SPEC_SHAPE.search(detail)
    expected = parse_shape(shapes.group(1)) if shapes is not None else None
    if expected and (given := data_itself(ctx, expected)) is not None:
        return given  # the data itself is one example (Keras batched its first axis)
    if shapes is not None:
        order = input_order(ctx)
        hint, structure = (
            (order.hint, True)
            if order is not None
            else full_shape(ctx, layer, shapes.group(1), shapes.group(2), int(index))
        )
        return _s01(
            ctx,
            layer,
            f"input {index} has shape {shapes.group(2)} but the layer expects {shapes.group(1)}",
            evidence=f"received {shapes.group(2)}, expected {shapes.group(1)}"
            + (f"; {order.evidence}" if order is not None else ""),
            hint=hint,
            structure=structure,
        )
    return _s01(
        ctx,
        layer,
        f"input {index} is incompatible with the layer: {detail.strip()}",
        evidence="",
        hint="",
    )


def _s01(
    ctx: ErrorContext,
    layer: str,
    message: str,
    *,
    evidence: str,
    hint: str,
    origin: DataOrigin | None = None,
    structure: bool = False,
) -> Explained:
    """S01 at a layer, or S12 when the data's origin or ``structure`` (one example) is the cause."""
    received = ctx.inputs_text()
    if received:
        evidence = f"{evidence}; input dtype {received}" if evidence else f"input dtype {received}"
    evidence = with_user_line(ctx, evidence)
    variable = ctx.variable_of(layer)
    place = f"layer '{layer}'" + (f" (`{variable}`)" if variable else "")
    if structure or origin is not None and origin.code == "S12":
        found = finding("S12", message, place=place, evidence=evidence, hint=hint)
    else:
        found = finding("S01", message, place=place, evidence=evidence, hint=hint)
    return (found, (_tfshape_step(f"'{layer}'"),))


def op_shapes(ctx: ErrorContext) -> Explained | None:
    """S07: an op, loss or metric failed on incompatible shapes."""
    text = ctx.text
    broadcast = broadcast_sizes(ctx)
    if broadcast is not None:
        return broadcast
    dims = _DIMS_EQUAL.search(text)
    if dims is not None:
        node, op, inputs, in_shapes = dims.group(3), dims.group(4), dims.group(5), dims.group(6)
        scope, _ = split_node(node)
        owner = scope_owner(strip_op_scope(scope, op))
        pair = re.findall(r"\[[^\]]*\]", in_shapes)[:2]
        kernel = _kernel_width(ctx, op, scope, inputs, in_shapes) or weight_operand(ctx, pair)
        if kernel is not None:
            return kernel
        return _s07(
            ctx,
            op,
            owner,
            node,
            f"{op} got inputs with shapes {in_shapes} ({dims.group(1)} vs {dims.group(2)} on one axis)",
            evidence=f"inputs {inputs.strip()}",
            loss=owner.startswith("the loss") or owner.startswith("the metric"),
            hint=ctx.read(constant_operand, tuple(pair))
            or batch_axis_hint(ctx, *pair)
            or frame_target_hint(ctx, pair)
            or _label_width_hint(inputs, pair, owner),
        )
    incompatible = _INCOMPATIBLE.search(text)
    matmul = _MATMUL.search(text)
    found = incompatible or matmul
    if found is not None and (ctx.is_a("InvalidArgumentError") or ctx.is_a("OpError")):
        node = ctx.node()
        label = "incompatible shapes" if incompatible else "matrix sizes that do not multiply"
        if node:
            scope, op = split_node(node)
            op_name = op
            owner = scope_owner(scope)
        else:
            op_name = ctx.eager_op() or "an op"
            owner, node = "", ""
        if incompatible:
            special = class_axis(ctx, op_name, owner, node, found.group(1), found.group(2))
            if special is not None and special.code == "M05":
                return (
                    finding(
                        "M05",
                        special.message,
                        place=special.place,
                        evidence=special.evidence,
                        hint=special.hint,
                    ),
                    (),
                )
            if special is not None:
                return _s07(
                    ctx, op_name, owner, node, special.message,
                    evidence=special.evidence, loss="loss" in owner, hint=special.hint,
                )  # fmt: skip
            fixer = batch_fixer_finding(ctx, found.group(1), found.group(2))
            if fixer is not None:
                return fixer
            fixed = fixed_batch(ctx, found.group(1), found.group(2))
            if fixed is not None:
                # the data's sample count against the batch size the model fixes: S12
                return (
                    finding(
                        "S12",
                        f"the data does not split into batches of the model's fixed size: "
                        f"{op_name} got [{found.group(1)}] vs [{found.group(2)}]",
                        place=f"op {op_name}" + (f" in {owner}" if owner else ""),
                        evidence=f"shapes [{found.group(1)}] and [{found.group(2)}]",
                        hint=fixed,
                    ),
                    (),
                )
        return _s07(
            ctx,
            op_name,
            owner,
            node,
            f"{op_name} got {label}: [{found.group(1)}] vs [{found.group(2)}]",
            evidence=f"shapes [{found.group(1)}] and [{found.group(2)}]",
            loss="loss" in owner or "metric" in owner,
            hint=batch_axis_hint(ctx, f"[{found.group(1)}]", f"[{found.group(2)}]")
            if incompatible
            else matmul_hint(found.group(1), found.group(2)),
        )
    shapes = target_output_shapes(ctx)
    if shapes is not None:
        from tfnb_debug.explain.labels import loss_output_mismatch

        if loss_output_mismatch(ctx) is not None:
            return None  # M03/M04/M05 name the cause; one problem, one finding
        labels, output = shapes
        loss = keras_loss_function(ctx)
        return sample_counts(ctx, labels, output) or _s07(
            ctx,
            loss or "the loss",
            f"the loss '{loss}'" if loss else "the loss",
            "",
            f"labels of shape {fmt_shape(labels)} do not fit the model output {fmt_shape(output)}",
            evidence=f"target.shape={fmt_shape(labels)}, output.shape={fmt_shape(output)}",
            loss=True,
            hint=_loss_shape_hint(labels, output, loss or ""),
        )
    return None


def _kernel_width(
    ctx: ErrorContext, op: str, scope: str, inputs: str, in_shapes: str
) -> Explained | None:
    """S01: a layer's kernel (a variable read in its scope) multiplies an input of another width
    than the layer was built for, inside a graph Keras' input checks did not cover (an RNN
    cell's step)."""
    shapes = re.findall(r"\[([^\]]*)\]", in_shapes)
    if op != "MatMul" or "ReadVariableOp" not in inputs or len(shapes) < 2:
        return None
    data, weight = shapes[0].split(","), shapes[1].split(",")
    if len(data) != 2 or len(weight) != 2 or not data[1].strip().isdigit():
        return None
    got, built = int(data[1]), int(weight[0]) if weight[0].strip().isdigit() else None
    if built is None or got == built:
        return None
    parts = [p for p in scope.split("/") if p]
    cell = next((p for p in reversed(parts) if "_cell" in p), "")
    layer = re.sub(r"_\d+$", "", cell.split("_cell")[0]) if cell else ""
    layer = layer or (re.sub(r"_\d+$", "", parts[-1]) if parts else "the layer")
    inputs_decl = ctx.model_inputs[0] if len(ctx.model_inputs) == 1 else None
    declared = f" (the model's Input is {fmt_shape(inputs_decl)})" if inputs_decl else ""
    return _s01(
        ctx,
        layer,
        f"'{layer}' was built for {built} input features per step{declared}, but gets {got}",
        evidence=f"its kernel reads [{weight[0]},{weight[1]}], the input [{shapes[0]}]",
        hint=f"declare the Input with the data's {got} features (e.g. keras.Input((steps, {got}))"
        f" for a sequence), or feed data with {built} features per step",
    )


def _s07(
    ctx: ErrorContext,
    op: str,
    owner: str,
    node: str,
    message: str,
    *,
    evidence: str,
    loss: bool,
    hint: str = "",
) -> Explained:
    place = f"op {op}"
    inside = [u for u in ctx.user_layers if u.method == "call"]
    if owner or inside:  # the user's own layer whose call ran the op
        place += (
            f" in {owner}" if owner else f" in layer '{inside[0].name}' ({inside[0].class_name})"
        )
    if node:
        evidence = f"{evidence}; node {node}" if evidence else f"node {node}"
    if not hint:
        head = ctx.trained[0].output_layer if len(ctx.trained) == 1 else ""
        hint = (
            f"the labels and the model output{f' (layer {head!r})' if head else ''} disagree: "
            "compare y.shape with model.output_shape (output units, one-hot vs integer labels, "
            "extra axes, and any constant in the loss's own code)"
            if loss
            else "the two operands must have equal sizes on every axis (or size 1 to broadcast): "
            "print their shapes just before this op"
        )
    defined = ctx.defined_at()
    if defined is not None:
        evidence += f"; defined at {ctx.where(*defined)}"
    else:
        evidence = with_user_line(ctx, evidence)
    return (
        finding("S07", message, place=place, evidence=evidence, hint=hint),
        (_tfshape_step("the loss" if loss else "the failing op"),),
    )


_NEGATIVE_DIM = re.compile(
    r"Negative dimension size caused by subtracting (\d+) from (\d+) for '\{\{node ([^}]+)\}\}"
    r".*?with input shapes: (\[[^\]]*\])"
)
_ZERO_OUTPUT = re.compile(
    r"Computed output size would be zero or negative\. Received `inputs shape=" + _SHAPE_RE
)
_RESHAPE_OP = re.compile(
    r"Input to reshape is a tensor with (\d+) values, but the requested shape has (\d+)"
)


def spatial_and_size(ctx: ErrorContext) -> Explained | None:
    """S12, S01 or S07 for sizes: a single example padded by Keras, a spatial size that shrank
    below a kernel, a tf.reshape whose target holds another number of values (a Reshape layer
    in a Sequential is the build rule's, which shows the layers built before it)."""
    text = ctx.text
    negative = _NEGATIVE_DIM.search(text)
    if negative is not None:
        received = parse_shape(negative.group(4)) or ()
        single = padded_single_example(ctx, received)
        if single is not None:
            return single
        return _shrunk(ctx, int(negative.group(1)), int(negative.group(2)), received)
    zero = _ZERO_OUTPUT.search(text)
    if zero is not None:
        received = parse_shape(zero.group(1)) or ()
        return _shrunk(ctx, None, None, received)
    op = _RESHAPE_OP.search(text)
    if op is not None:
        have, want = int(op.group(1)), int(op.group(2))
        fixer = reshape_batch_finding(ctx, have, want)
        if fixer is not None:
            return fixer
        return _s07(
            ctx,
            "Reshape",
            "",
            ctx.node() or "",
            f"tf.reshape got a tensor with {have} values but the requested shape holds {want}",
            evidence=f"{have} values, requested {want}",
            loss=False,
            hint="the requested shape must hold exactly as many values as the tensor: fix the "
            "sizes, or use -1 for one axis (for the batch axis: -1 or tf.shape(x)[0], never a "
            "constant batch size)",
        )
    return None


def _shrunk(
    ctx: ErrorContext, kernel: int | None, left: int | None, received: tuple[int | None, ...]
) -> Explained:
    layer = failing_layer(ctx, "")
    detail = (
        f"a {kernel}-wide window does not fit in the {left} positions left"
        if kernel is not None
        else f"its output size would be zero or negative for input {fmt_shape(received)}"
    )
    dilated = dilated_window(ctx.text, layer, received)
    if dilated is not None:
        return _s01(ctx, layer, dilated[0], evidence=dilated[1], hint=dilated[2])
    return _s01(
        ctx,
        layer,
        f"the input is too short for layer '{layer}': {detail}"
        if ctx.sequential_build is not None and len(ctx.sequential_build.steps) == 1
        else f"the spatial size shrank too far before layer '{layer}': {detail}",
        evidence=f"received {fmt_shape(received)}",
        hint=shrunk_hint(layer, kernel, left, ctx.sequential_build, received),
    )
