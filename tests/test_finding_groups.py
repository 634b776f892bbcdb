"""One finding per cause: repeated findings of one code and cause become one line in every report."""

from __future__ import annotations

import warnings
from dataclasses import replace

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfnb_debug
from tests._support import check_golden
from tfnb_debug.ground.reports import Report, finding, group_findings


def saturating_model() -> keras.Model:
    """Four Dense-sigmoid layers and one Dense-tanh layer whose weights are far too large.

    Pre-activations have a standard deviation in the hundreds, so nearly every
    output sits at 0 or 1 (or -1/1): N03 is true at all five layers.
    """
    big = keras.initializers.RandomNormal(stddev=50.0, seed=0)
    inputs = keras.Input((16,))
    h = inputs
    for i in range(4):
        h = keras.layers.Dense(32, activation="sigmoid", kernel_initializer=big, name=f"sig{i}")(h)
    h = keras.layers.Dense(32, activation="tanh", kernel_initializer=big, name="squash")(h)
    return keras.Model(inputs, keras.layers.Dense(2, name="head")(h), name="sat")


def test_trace_gives_one_n03_per_cause_with_count_and_places() -> None:
    x = np.random.default_rng(0).normal(size=(8, 16)).astype("float32")
    report = tfnb_debug.trace_shapes(saturating_model(), x)

    # two causes: sigmoid in Dense layers (four places), tanh in a Dense layer (one)
    assert report.codes() == ["N03", "N03"]
    sigmoid, tanh = report.findings
    assert sigmoid.count == 4 and tanh.count == 1
    assert sigmoid.places == ("sat/sig0", "sat/sig1", "sat/sig2", "sat/sig3")
    assert tanh.place == "sat/squash"
    # every individual finding is still there, one per place
    assert [f.place for f in report.all_findings()] == [*sigmoid.places, "sat/squash"]
    assert [f.place for f in report.findings_for("sig2")] == ["sat/sig2"]

    line = sigmoid.to_text()
    assert line.startswith(
        "N03 saturated-activation (warning) at 4 layers (sig0, sig1, sig2, ... and 1 more): "
    )
    text_lines = [ln for ln in report.to_text().splitlines() if ln.startswith("N03 ")]
    assert text_lines == [sigmoid.to_text(), tanh.to_text()]

    html = report.to_html()
    assert html.count('class="tfnb-finding"') == 2
    assert (
        'data-count="4"' in html and "at <b>4 layers (sig0, sig1, sig2, ... and 1 more)</b>" in html
    )
    # the layer table still marks every saturated layer, and its DataFrame has every row
    marks = report.tables[0].row_marks
    assert marks.count("warning") == 5
    assert len(report.to_dataframe()) == len(report.calls)


def test_gradient_report_groups_disconnected_layers() -> None:
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(8, 4)).astype("float32"))
    y = tf.constant(rng.integers(0, 3, size=(8,)))
    used = keras.layers.Dense(3, name="used")
    unused = [keras.layers.Dense(3, name=f"spare{i}") for i in range(3)]
    for layer in (used, *unused):
        layer.build((None, 4))
    variables = [v for layer in (used, *unused) for v in layer.trainable_variables]
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = keras.optimizers.SGD(0.01)
    with tfnb_debug.record_gradients() as rec:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, used(x))
        grads = tape.gradient(loss, variables)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Keras warns about the missing gradients
            opt.apply_gradients(zip(grads, variables, strict=True))
    report = rec.result()

    assert report.codes().count("G04") == 1
    (g04,) = [f for f in report.findings if f.code == "G04"]
    assert g04.count == 3
    assert g04.to_text().startswith(
        "G04 no-gradient (warning) at 3 places (layer 'spare0', layer 'spare1', layer 'spare2'): "
    )


def test_different_causes_of_one_code_stay_apart() -> None:
    relu = [
        finding("N02", f"95.0% of the outputs of ReLU layer '{n}' are exactly zero", place=n)
        for n in ("a", "b")
    ]
    other = finding("N02", "a different sentence about 'c'", place="c")
    explicit = [
        finding("N03", "x", place="p", cause="sigmoid output of Dense layers"),
        finding("N03", "x", place="q", cause="tanh output of Dense layers"),
    ]
    grouped = group_findings([*relu, other, *explicit])
    assert [(f.code, f.count) for f in grouped] == [("N02", 2), ("N02", 1), ("N03", 1), ("N03", 1)]


def test_grouping_is_stable_under_replace_and_merge() -> None:
    items = [finding("N02", f"dead '{n}'", place=f"m/{n}") for n in "abcd"]
    report = Report(title="t", findings=tuple(items))
    assert report.codes() == ["N02"] and report.findings[0].count == 4
    again = replace(report, findings=report.findings)
    assert again.findings == report.findings
    merged = Report(
        title="t", findings=(*report.findings, items[0], finding("N02", "dead 'e'", place="m/e"))
    )
    assert merged.findings[0].count == 5
    assert (
        merged.findings[0]
        .to_text()
        .startswith("N02 dead-relu (warning) at 5 layers (a, b, c, ... and 2 more): dead 'a'")
    )


@pytest.mark.parametrize("count", [2, 3])
def test_few_places_are_all_named(count: int) -> None:
    items = [finding("S03", f"float64 into '{n}'", place=f"m/{n}") for n in "abc"[:count]]
    (f,) = Report(title="t", findings=tuple(items)).findings
    assert "more" not in f.to_text()
    assert f.place_text() == f"{count} layers ({', '.join('abc'[:count])})"


def grouped_report() -> Report:
    se = [
        finding(
            "N03",
            f"{share}% of the outputs of sigmoid layer '{name}' sit within 0.001 of its bounds",
            place=f"efficientnetv2-l/{name}",
            evidence=f"min 0.0, max 1.0, mean 0.{share}",
            hint="normalize the inputs",
            cause="sigmoid output of Conv2D layers",
        )
        for share, name in zip(
            (97, 95, 93, 92, 91),
            (
                "block1b_se_expand",
                "block2a_se_expand",
                "block2b_se_expand",
                "block3a_se_expand",
                "block3b_se_expand",
            ),
            strict=True,
        )
    ]
    tanh = finding(
        "N03",
        "99% of 'gate' at bounds",
        place="efficientnetv2-l/gate",
        cause="tanh output of Dense layers",
    )
    return Report(title="Grouped", findings=(*se, tanh))


def test_grouped_text_and_html_golden() -> None:
    report = grouped_report()
    check_golden("grouped_findings.txt", report.to_text(width=100) + "\n")
    check_golden("grouped_findings.html", report.to_html() + "\n")
