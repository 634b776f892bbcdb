"""``Finding.target``: where a finding points, for code, so that nothing parses ``place``."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

import tfnb_debug
from tfnb_debug.ground.reports import Report, Target, finding


def test_target_names_a_path_or_its_end() -> None:
    conv = Target("layer", "model/block/conv")
    assert conv.names("model/block/conv") and conv.names("conv") and conv.names("block/conv")
    assert not conv.names("onv") and not conv.names("") and not conv.names("model")


def test_findings_for_reads_targets_not_the_place_text() -> None:
    at_conv = finding(
        "S02", "a", place="layer 'conv2' (odd words)", target=Target("layer", "m/conv2")
    )
    # the place text mentions 'conv', the target does not name it
    report = Report(title="t", findings=(at_conv,))
    assert report.findings_for("conv2") == [at_conv]
    assert report.findings_for("conv") == []
    untargeted = finding("E01", "b", place="GPU:0")
    assert Report(title="t", findings=(untargeted,)).findings_for("GPU:0") == [untargeted]
    assert Report(title="t", findings=(untargeted,)).findings_for("GPU") == []


def test_shape_rules_target_the_row_they_name() -> None:
    big = keras.initializers.RandomNormal(stddev=50.0, seed=0)
    inputs = keras.Input((16,))
    h = keras.layers.Dense(8, activation="sigmoid", kernel_initializer=big, name="sig")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2, name="head")(h), name="sat")
    x = np.random.default_rng(0).normal(size=(8, 16)).astype("float32")
    report = tfnb_debug.trace_shapes(model, x)
    (n03,) = report.all_findings()
    assert n03.target == Target("layer", "sat/sig")
    rows = [row[1].strip() for row in report.tables[0].rows]
    marks = dict(zip(rows, report.tables[0].row_marks, strict=True))
    assert marks["sat/sig"] == "warning" and marks["sat/head"] == ""


def test_pipeline_stage_findings_target_the_stage_and_mark_its_row() -> None:
    ds = tf.data.Dataset.range(64).map(lambda v: v * 2).batch(8)  # no prefetch: P02 at batch
    report = tfnb_debug.inspect_pipeline(ds, max_seconds=0.2, stage_seconds=0.05)
    (p02,) = [f for f in report.all_findings() if f.code == "P02"]
    assert p02.target is not None and p02.target.kind == "stage"
    table = report.table("transformations")
    marked = [row[0] for row, mark in zip(table.rows, table.row_marks, strict=True) if mark]
    assert p02.target.index in marked
    assert p02.place.startswith(f"stage {p02.target.index} ")
