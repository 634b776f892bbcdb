"""M07 metric-on-logits and M08 double-activation: real Keras models, each with a clean twin.

M07: a binary classifier with a linear output and ``BinaryCrossentropy(from_logits=True)``
compiled with ``metrics=["accuracy"]``: Keras resolves the string to
``BinaryAccuracy(threshold=0.5)``, which thresholds logits at 0.5.  M08: an export
wrapper that adds ``Activation("sigmoid")`` to a model that already ends in one.
Both through ``lint_model`` and through the magics in a real IPython shell.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.collect.metric_facts import collect_metrics
from tfnb_debug.collect.output_chain import double_activations
from tfnb_debug.features.lint import lint_model
from tfnb_debug.features.model_outputs import check_outputs
from tfnb_debug.features.shapes import trace_shapes
from tfnb_debug.ground.reports import Finding

RNG = np.random.default_rng(0)
# a tabular task trained briefly: many logits are small, where the 0.5 threshold differs
X = RNG.normal(size=(512, 8)).astype("float32")
Y = (X @ RNG.normal(size=8) + 0.5 * RNG.normal(size=512) > 0).astype("float32")
Y3 = RNG.integers(0, 3, 512)


def binary(
    activation: str | None,
    *,
    from_logits: bool,
    metrics: list[object],
    fit: bool = True,
) -> keras.Model:
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [
            keras.Input((8,)),
            keras.layers.Dense(16, activation="relu", name="hidden"),
            keras.layers.Dense(1, activation=activation, name="out"),
        ],
        name="tabular",
    )
    model.compile(
        optimizer=keras.optimizers.Adam(0.003),
        loss=keras.losses.BinaryCrossentropy(from_logits=from_logits),
        metrics=metrics,
    )
    if fit:
        model.fit(X, Y, epochs=4, batch_size=64, verbose=0)
    return model


def only(findings: list[Finding], code: str) -> Finding:
    mine = [f for f in findings if f.code == code]
    assert len(mine) == 1, [f.to_text() for f in findings]
    return mine[0]


def numbers_after(text: str, label: str) -> float:
    """The number right after ``label`` in ``text``."""
    rest = text.split(label, 1)[1].strip()
    return float(rest.split()[0].rstrip(";,]"))


# ------------------------------------------------------------------ M07


def test_m07_accuracy_on_logits_reports_both_numbers_and_the_right_fix() -> None:
    model = binary(None, from_logits=True, metrics=["accuracy"])
    reported = model.evaluate(X, Y, verbose=0, return_dict=True)["accuracy"]
    logits = model.predict(X, verbose=0)[:, 0]
    real = float(np.mean((logits > 0) == (Y > 0.5)))
    assert real - reported > 0.05  # the lie this rule is about: the reported number is lower

    report = lint_model(model, (X, Y))
    found = only(list(report.findings), "M07")
    assert found.severity == "warning"
    assert found.target is not None and found.target.path == "out"
    assert "'accuracy' (Keras made it BinaryAccuracy(threshold=0.5))" in found.message
    assert "from_logits=True" in found.message
    # the metric as Keras reports it, and as it is with the threshold at logit 0,
    # on the same 512 examples evaluate() and predict() saw
    assert "on the first 512 examples" in found.evidence
    assert numbers_after(found.evidence, "'accuracy' reported") == pytest.approx(reported, abs=1e-3)
    assert numbers_after(found.evidence, "(probability 0.5)") == pytest.approx(real, abs=1e-3)
    assert 'keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)' in found.hint
    assert "activation='sigmoid'" in found.hint
    # it is not an activation/loss mismatch and not a label problem
    for wrong in ("SparseCategorical", "remove", "one-hot", "softmax"):
        assert wrong not in found.hint
    assert [c for c in report.checks if c[0] == "M07, M08"][0][2].startswith("ran (with the")


def test_m07_before_the_first_batch_resolves_accuracy_as_keras_will() -> None:
    model = binary(None, from_logits=True, metrics=["accuracy"], fit=False)
    assert not model._compile_metrics.built
    facts = collect_metrics(model)
    assert [(f.class_name, f.thresholds, f.resolved) for f in facts] == [
        ("BinaryAccuracy", (0.5,), False)
    ]
    found = only(check_outputs(model), "M07")
    assert "BinaryAccuracy(threshold=0.5)" in found.message
    assert "reported" not in found.evidence  # no data, no numbers
    assert not model._compile_metrics.built  # the model's own object is untouched


def test_m07_precision_recall_auc_one_finding_with_each_fix() -> None:
    metrics = [
        keras.metrics.Precision(name="precision"),
        keras.metrics.Recall(name="recall"),
        keras.metrics.AUC(name="auc"),
    ]
    model = binary(None, from_logits=True, metrics=metrics)
    found = only(lint_model(model, (X, Y)).findings, "M07")
    for name in ("'precision' (Precision(thresholds=0.5))", "'recall'", "'auc'"):
        assert name in found.message
    assert "keras.metrics.Precision(thresholds=0.0)" in found.hint
    assert "keras.metrics.Recall(thresholds=0.0)" in found.hint
    assert "keras.metrics.AUC(from_logits=True)" in found.hint
    assert "'auc' reported" in found.evidence
    auc = keras.metrics.AUC(from_logits=True)
    auc.update_state(Y[:512], model.predict(X[:512], verbose=0))
    assert numbers_after(found.evidence, "with from_logits=True") == pytest.approx(
        float(auc.result()), abs=1e-3
    )


@pytest.mark.parametrize(
    "metric",
    ["binary_accuracy", "acc", keras.metrics.binary_accuracy, keras.metrics.BinaryAccuracy()],
    ids=["string", "acc", "function", "class"],
)
def test_m07_every_spelling_of_binary_accuracy_on_logits(metric: object) -> None:
    model = binary(None, from_logits=True, metrics=[metric], fit=False)
    found = only(check_outputs(model), "M07")
    assert "BinaryAccuracy(threshold=0.5)" in found.message
    assert "threshold=0.0)" in found.hint


@pytest.mark.parametrize(
    ("activation", "from_logits", "metrics"),
    [
        ("sigmoid", False, ["accuracy", keras.metrics.AUC(), keras.metrics.Precision()]),
        (None, True, [keras.metrics.BinaryAccuracy(threshold=0.0)]),
        (None, True, [keras.metrics.AUC(from_logits=True)]),
        (None, True, [keras.metrics.Precision(thresholds=0.0), keras.metrics.Recall(0.0)]),
    ],
    ids=["sigmoid-probabilities", "threshold-0", "auc-from-logits", "precision-recall-0"],
)
def test_m07_silent_when_the_metric_reads_the_right_scale(
    activation: str | None, from_logits: bool, metrics: list[object]
) -> None:
    model = binary(activation, from_logits=from_logits, metrics=metrics, fit=False)
    assert lint_model(model, (X, Y)).codes() == []


@pytest.mark.parametrize("activation", [None, "softmax"])
@pytest.mark.parametrize(
    "metrics",
    [
        ["accuracy"],
        [keras.metrics.SparseCategoricalAccuracy(), keras.metrics.SparseTopKCategoricalAccuracy(2)],
    ],
    ids=["accuracy", "sparse-metrics"],
)
def test_m07_silent_on_argmax_metrics_of_softmax_or_logits(
    activation: str | None, metrics: list[object]
) -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation=activation)])
    model.compile(
        "adam",
        keras.losses.SparseCategoricalCrossentropy(from_logits=activation is None),
        metrics=metrics,
    )
    model.fit(X, Y3, epochs=1, verbose=0)
    assert lint_model(model, (X, Y3)).codes() == []


def test_m07_silent_on_categorical_accuracy_of_one_hot_labels_and_logits() -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
    model.compile(
        "adam",
        keras.losses.CategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.CategoricalAccuracy(), "accuracy"],
    )
    one_hot = keras.utils.to_categorical(Y3, 3)
    model.fit(X, one_hot, epochs=1, verbose=0)
    assert lint_model(model, (X, one_hot)).codes() == []


def test_m07_categorical_accuracy_on_class_ids() -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, name="scores")])
    model.compile(
        "adam",
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.CategoricalAccuracy()],
    )
    model.fit(X, Y3, epochs=2, verbose=0)
    real = float(np.mean(model.predict(X, verbose=0).argmax(-1) == Y3))
    found = only(lint_model(model, (X, Y3)).findings, "M07")
    assert "'categorical_accuracy' (CategoricalAccuracy)" in found.message
    assert "integer class ids" in found.message
    assert numbers_after(found.evidence, "as sparse accuracy") == pytest.approx(real, abs=1e-3)
    assert "keras.metrics.SparseCategoricalAccuracy()" in found.hint
    # argmax does not care about logits: nothing about thresholds or from_logits
    for wrong in ("threshold", "from_logits", "sigmoid"):
        assert wrong not in found.hint and wrong not in found.message


def test_m07_a_categorical_accuracy_named_accuracy_is_still_the_users_choice() -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
    model.compile(
        "adam",
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.CategoricalAccuracy(name="accuracy")],
    )
    [fact] = collect_metrics(model)
    assert (fact.class_name, fact.from_string) == ("CategoricalAccuracy", False)
    assert "M07" in [f.code for f in check_outputs(model)]


def test_m07_custom_output_layer_is_judged_by_its_values_on_the_data() -> None:
    keras.utils.set_random_seed(3)
    inp = keras.Input((8,))
    scores = keras.layers.Dense(1, name="score")(inp)
    out = keras.layers.Lambda(lambda t: t * 1.0, name="custom")(scores)
    model = keras.Model(inp, out)
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), metrics=["accuracy"])
    # without data the rule cannot tell what a Lambda outputs: silent
    assert check_outputs(model) == []
    # on the data the outputs leave [0, 1]: logits
    found = only(lint_model(model, (X, Y)).findings, "M07")
    assert "outputs on the data from" in found.evidence


def test_m07_through_the_magic(shell: InteractiveShell) -> None:
    shell.user_ns.update(model=binary(None, from_logits=True, metrics=["accuracy"]), x=X, y=Y)
    shown = run_magic(shell, "%tflint -o model --data (x,y)")
    assert "M07" in shown.result.codes()
    text = shown.outputs[-1]["text/plain"]
    assert "M07 metric-on-logits (warning)" in text
    assert "Findings: none" not in text
    shell.user_ns["good"] = binary(
        None, from_logits=True, metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)], fit=False
    )
    assert run_magic(shell, "%tflint -o good --data (x,y)").result.codes() == []


def test_m07_in_tfgrad_and_tfcheck_cells_from_the_metrics_keras_built(
    shell: InteractiveShell,
) -> None:
    shell.user_ns.update(
        model=binary(None, from_logits=True, metrics=["accuracy"], fit=False), x=X, y=Y
    )
    cell = "model.fit(x, y, epochs=1, batch_size=128, verbose=0)"
    grad = run_magic(shell, "%%tfgrad -q -o", cell).result
    assert "M07" in grad.codes()
    check = run_magic(shell, "%%tfcheck -q -o", cell).result
    assert "M07" in check.codes()
    assert any("M07, M08" in row[0] for row in check.tables[0].rows)
    shell.user_ns["good"] = binary(
        None, from_logits=True, metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)], fit=False
    )
    good_cell = "good.fit(x, y, epochs=1, batch_size=128, verbose=0)"
    assert "M07" not in run_magic(shell, "%%tfgrad -q -o", good_cell).result.codes()
    assert "M07" not in run_magic(shell, "%%tfcheck -q -o", good_cell).result.codes()


# ------------------------------------------------------------------ M08


def classifier() -> keras.Model:
    keras.utils.set_random_seed(2)
    model = keras.Sequential(
        [
            keras.Input((8,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(1, activation="sigmoid", name="prob"),
        ],
        name="clf",
    )
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    model.fit(X, Y, epochs=4, verbose=0)
    return model


def export_wrapper(model: keras.Model) -> keras.Model:
    """The tutorial's export model: the trained model plus a sigmoid it already has."""
    export = keras.Sequential([model, keras.layers.Activation("sigmoid", name="act")], name="exp")
    export.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    return export


def test_m08_export_wrapper_sigmoid_after_sigmoid() -> None:
    export = export_wrapper(classifier())
    outputs = export.predict(X, verbose=0)
    assert outputs.min() >= 0.5 and outputs.max() <= 0.7311  # every example is "positive"

    [fact] = double_activations(export)
    assert (fact.inner_path, fact.outer_path) == ("clf/prob", "act")
    found = only(list(lint_model(export, (X, Y)).findings), "M08")
    assert found.severity == "error"
    assert "'clf/prob'" in found.message and "'act'" in found.message
    assert "[0.5, 0.731]" in found.message
    assert f"from {outputs.min():.3g} to {outputs.max():.3g}" in found.evidence
    assert "remove the Activation 'act'" in found.hint
    assert "'clf' already ends in sigmoid" in found.hint
    for wrong in ("from_logits", "threshold", "Dense(1"):
        assert wrong not in found.hint
    # the metric is fine: the output is a probability (twice), not a logit
    assert "M07" not in lint_model(export, (X, Y)).codes()


def test_m08_softmax_after_softmax_in_a_functional_model() -> None:
    inp = keras.Input((8,))
    probs = keras.layers.Dense(4, activation="softmax", name="probs")(inp)
    flat = keras.layers.Reshape((4,), name="same")(probs)
    out = keras.layers.Softmax(name="again")(flat)
    model = keras.Model(inp, out)
    model.compile("adam", "sparse_categorical_crossentropy")
    found = only(check_outputs(model), "M08")
    assert "Softmax 'again' applies softmax to the output of Dense 'probs'" in found.message
    band = (1 / (1 + 3 * np.e), np.e / (np.e + 3))
    assert f"[{band[0]:.3g}, {band[1]:.3g}]" in found.message
    assert "uniform 1/4" in found.message
    assert "remove one of them" in found.hint and "'probs'" in found.hint


@pytest.mark.parametrize(
    "layers",
    [
        # a sigmoid hidden layer, then a weighted sigmoid output: normal
        [keras.layers.Dense(8, activation="sigmoid"), keras.layers.Dense(1, activation="sigmoid")],
        # a linear output, then one sigmoid: the right way to export logits
        [
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(1),
            keras.layers.Activation("sigmoid"),
        ],
        # softmax over a weighted layer after a sigmoid layer
        [keras.layers.Dense(8, activation="sigmoid"), keras.layers.Dense(3, activation="softmax")],
    ],
    ids=["dense-sigmoid-after-sigmoid-hidden", "linear-then-activation", "softmax-after-weights"],
)
def test_m08_silent_with_weights_between_or_one_activation(layers: list[object]) -> None:
    model = keras.Sequential([keras.Input((8,)), *layers])
    model.compile("adam", "mse")
    assert double_activations(model) == ()
    assert [f.code for f in check_outputs(model)] == []


def test_m08_silent_on_a_linear_model_wrapped_with_one_sigmoid() -> None:
    logits = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, name="logit")], name="lin")
    export = keras.Sequential([logits, keras.layers.Activation("sigmoid")])
    export.compile("adam", "binary_crossentropy")
    assert lint_model(export, (X, Y)).codes() == []


def test_m08_through_the_magic(shell: InteractiveShell) -> None:
    model = classifier()
    shell.user_ns.update(export=export_wrapper(model), model=model, x=X, y=Y)
    shown = run_magic(shell, "%tflint -o export --data (x,y)")
    assert shown.result.codes() == ["M08"]
    assert "M08 double-activation (error)" in shown.outputs[-1]["text/plain"]
    assert run_magic(shell, "%tflint -o model --data (x,y)").result.codes() == []


def test_m08_softmax_wrapped_around_an_application_and_its_logits_twin() -> None:
    def wrapped(activation: str | None) -> keras.Model:
        base = keras.applications.MobileNetV2(
            weights=None,
            input_shape=(32, 32, 3),
            alpha=0.35,
            classes=5,
            classifier_activation=activation,
        )
        return keras.Sequential([base, keras.layers.Softmax(name="probs")])

    [fact] = double_activations(wrapped("softmax"))
    assert fact.inner_path.endswith("/predictions") and fact.outer_path == "probs"
    assert fact.units == 5
    # the application left as logits (classifier_activation=None) and one softmax: correct
    assert double_activations(wrapped(None)) == ()


def test_m08_in_the_shape_trace_with_the_traced_range(shell: InteractiveShell) -> None:
    model = classifier()
    export = export_wrapper(model)
    report = trace_shapes(export, X[:16])
    found = only(list(report.findings), "M08")
    outputs = export(X[:16]).numpy()
    assert f"from {outputs.min():.3g} to {outputs.max():.3g}" in found.evidence
    assert report.findings_for("exp/act") == [found]  # the trace's row of the Activation
    assert "M08" not in trace_shapes(model, X[:16]).codes()
    shell.user_ns.update(export=export, x=X[:16])
    assert run_magic(shell, "%tfshape -q -o export x").result.codes() == ["M08"]
