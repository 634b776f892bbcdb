"""What made the values a user's probability check rejected (M02, M03), and a model squashed
twice behind a failed comparison of its outputs (M08).

``tf.debugging.assert_non_negative(probs)``, ``assert_less_equal(probs, 1.0)`` or
``assert_near(tf.reduce_sum(probs, -1), 1.0)`` fail when ``probs`` are not probabilities.
When the checked name was assigned from a call of a Keras model (``model(x)``,
``model.predict(x)``), the model's output layer says why: no activation (logits, M02), or a
sigmoid over several units checked to sum to 1 (independent yes/no probabilities where the
classes exclude each other, M03).  A comparison that fails between models' outputs
(``np.allclose(serving.predict(x), model.predict(x))``) reads each model's output chain for
an activation applied on top of the same one (an export wrapper's extra sigmoid, M08).
Only names, the lines above and the models' layers are read; nothing runs.
"""

from __future__ import annotations

import ast
from typing import Any

from tfnb_debug.collect.output_chain import DoubleActivation, double_activations
from tfnb_debug.explain._layer_probe import called_models
from tfnb_debug.explain._nonfinite_source import _assigned, failing_statement
from tfnb_debug.explain._operands import call_name

_RANGE_CHECKS = (
    "assert_non_negative",
    "assert_less_equal",
    "assert_less",
    "assert_greater_equal",
    "assert_positive",
)
_SUM_CHECKS = ("assert_near", "assert_equal", "assert_allclose", "allclose")


def read_probability_source(exc: BaseException) -> tuple[str, str, str, str, int, str] | None:
    """(checked name, model name, output layer, its activation, its units, "sum" or "range")
    for a failed check of a model's output as probabilities."""
    failing = failing_statement(exc)
    if failing is None:
        return None
    spaces, before, statement = failing
    checks = [
        n
        for n in ast.walk(statement)
        if isinstance(n, ast.Call) and call_name(n.func) in (*_RANGE_CHECKS, *_SUM_CHECKS)
    ]
    # NumPy's own check of a distribution: np.random.choice(n, p=preds), rng.choice(..., p=)
    sampled = [
        k.value
        for n in ast.walk(statement)
        if isinstance(n, ast.Call) and call_name(n.func) in ("choice", "multinomial")
        for k in n.keywords
        if k.arg in ("p", "pvals")
    ]
    if not checks and len(sampled) == 1:
        checks = [ast.Call(func=ast.Name(id="choice"), args=[sampled[0]], keywords=[])]
    if len(checks) != 1 or not checks[0].args:
        return None
    check = checks[0]
    kind = "sum" if call_name(check.func) in _SUM_CHECKS else "range"
    kind = "sample" if call_name(check.func) == "choice" and not check.keywords else kind
    if kind == "sum" and not any(
        isinstance(n, ast.Call) and call_name(n.func) == "reduce_sum" for n in ast.walk(check)
    ):
        return None  # a comparison of two tensors, not a check that rows sum to 1
    for name in dict.fromkeys(n.id for n in ast.walk(check.args[0]) if isinstance(n, ast.Name)):
        made = _assigned(name, before)
        models = called_models(made, spaces) if made is not None else []
        layers = getattr(models[0][1], "layers", None) if models else None
        if layers:
            model, layer = models[0][1], layers[-1]
            activation = getattr(getattr(layer, "activation", None), "__name__", "")
            units = getattr(layer, "units", None)
            if isinstance(units, int):
                return name, str(model.name), str(layer.name), str(activation), units, kind
    return None


def read_doubled_outputs(exc: BaseException) -> tuple[DoubleActivation, ...]:
    """The double activations of the models the failing statement calls (a comparison of
    their outputs that failed)."""
    failing = failing_statement(exc)
    if failing is None:
        return ()
    spaces, before, statement = failing
    found: list[DoubleActivation] = []
    for _, model in called_models(statement, spaces):
        found.extend(f for f in double_activations(model) if f not in found)
    return tuple(found) or _squashed_in_code(statement, spaces, before)


_SQUASH = ("sigmoid", "softmax")


def _squashed_in_code(
    statement: ast.stmt, spaces: tuple[Any, ...], before: list[str]
) -> tuple[DoubleActivation, ...]:
    """``tf.sigmoid(model.predict(x))`` in the statements that made the failing line's values
    (followed back up to four assignments) on a model whose output layer already squashes."""
    pending = [n.id for n in ast.walk(statement) if isinstance(n, ast.Name)]
    seen: set[str] = set()
    nodes: list[ast.AST] = [statement]
    for _ in range(4):
        made = [(n, _assigned(n, before)) for n in pending if n not in seen]
        seen.update(pending)
        nodes += [m for _, m in made if m is not None]
        pending = [
            x.id for _, m in made if m is not None for x in ast.walk(m) if isinstance(x, ast.Name)
        ]
    for node in nodes:
        for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)):
            outer = call_name(call.func)
            if outer not in _SQUASH or not call.args:
                continue
            for _, model in called_models(call.args[0], spaces):
                layers = getattr(model, "layers", None) or []
                last = layers[-1] if layers else None
                inner = getattr(getattr(last, "activation", None), "__name__", "")
                if last is not None and inner in _SQUASH:
                    return (
                        DoubleActivation(
                            0,
                            ast.unparse(call.func),
                            "call",
                            outer,
                            str(last.name),
                            type(last).__name__,
                            inner,
                            getattr(last, "units", None),
                        ),
                    )
    return ()
