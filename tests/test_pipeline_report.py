"""inspect_pipeline on real pipelines: samples, odd elements, bad input, safety, throughput, rendering."""

from __future__ import annotations

import time
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits

from tfnb_debug import PipelineReport, TfnbDebugError, inspect_pipeline
from tfnb_debug.collect.pipeline_speed import measure_throughput
from tfnb_debug.render.pipeline_figures import image_grid_figure, label_chart_figure

AUTOTUNE = tf.data.AUTOTUNE
_DIGITS = load_digits()
X = _DIGITS.images[:128, ..., None].astype("float32") / 16.0
Y = _DIGITS.target[:128].astype("int64")
NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def quick(ds: Any, **kwargs: Any) -> PipelineReport:
    kwargs.setdefault("throughput", False)
    return inspect_pipeline(ds, **kwargs)


def flip(x: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    return tf.image.random_flip_left_right(x), y


def test_digits_sample_images_labels_and_class_names() -> None:
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(16).prefetch(AUTOTUNE)
    report = quick(ds, class_names=NAMES, batches=2)
    spec = report.to_dataframe("element spec")
    assert list(spec["role"]) == ["image", "label"]
    values = report.table("values")
    image_row = values.rows[0]
    assert image_row[3] == pytest.approx(0.0) and image_row[4] == pytest.approx(1.0)
    assert "32 example(s)" in report.summary[1]
    text = report.to_text()
    # the first 16 labels of the (unshuffled) digits, shown by class name, and the distribution
    assert ", ".join(NAMES[int(v)] for v in Y[:16]) in text
    counts = dict(zip(*np.unique(Y[:32], return_counts=True), strict=True))
    assert f"{NAMES[0]}: {counts[0]}" in text
    html = report.to_html()
    # the image grid: the 16 sampled images, each under its class name; the label chart as SVG
    grid = html.split('class="tfnb-image-grid"', 1)[1].split("</div></div></div>", 1)[0]
    assert html.count('class="tfnb-image-grid"') == 1 and grid.count("data:image/png;base64,") == 16
    assert f'alt="example 0, label {NAMES[Y[0]]}"' in html
    assert f">{NAMES[Y[15]]}</div>" in grid
    assert html.count("<svg") == 1 and 'aria-label="examples per label in the sample"' in html
    assert f"<title>{NAMES[0]}: {counts[0]}</title>" in html  # each bar says its count
    assert "matplotlib" not in html
    assert report.findings == ()  # a clean pipeline: nothing to report


def noise(x: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    return x + tf.random.uniform(tf.shape(x), 0.5, 1.0), y


def test_augmentation_before_after_pairs_the_same_examples() -> None:
    from tfnb_debug.collect.pipeline import read_structure
    from tfnb_debug.collect.pipeline_data import augmentation_pairs

    # an upstream shuffle must not break the pairing: the stage's function runs on its own input
    ds = (
        tf.data.Dataset.from_tensor_slices((X, Y))
        .shuffle(128)
        .map(noise, num_parallel_calls=AUTOTUNE)
    )
    stage = read_structure(ds).stages[2]
    (pair,) = augmentation_pairs(stage.dataset, 2, stage.label(), examples=6, batched_input=False)
    assert pair.before.shape == pair.after.shape == (6, 8, 8, 1)
    delta = pair.after - pair.before
    assert delta.min() >= 0.5 and delta.max() <= 1.0
    assert any(np.array_equal(pair.before[0], x) for x in X)

    report = quick(ds.batch(16).prefetch(1))
    (picture,) = [p for p in report.pictures if p.title.startswith("augmentation at stage 2")]
    assert (
        "6 of 6 examples changed" in picture.text and "6 of 6 examples changed" in report.to_text()
    )
    html = report.to_html()  # grid, label chart, before/after (6 examples in two rows)
    assert html.count('class="tfnb-image-grid"') == 1 and html.count("<svg") == 1
    views = html.split('class="tfnb-before-after"', 1)[1]
    assert views.count('alt="example 5 before"') == 1 and views.count('alt="example 5 after"') == 1
    # a deterministic map gets no before/after view
    plain = quick(tf.data.Dataset.from_tensor_slices((X, Y)).map(lambda x, y: (x * 2, y)).batch(16))
    assert not [p for p in plain.pictures if p.kind == "augment"]


def test_dict_nested_ragged_and_string_elements() -> None:
    ds = tf.data.Dataset.from_tensor_slices(
        {
            "image": X[:8],
            "meta": {
                "text": tf.constant([f"digit {i}" for i in range(8)]),
                "score": np.arange(8.0),
            },
            "label": Y[:8],
        }
    ).batch(4)
    report = quick(ds)
    roles = dict(
        zip(
            report.to_dataframe("element spec")["path"],
            report.to_dataframe("element spec")["role"],
            strict=True,
        )
    )
    assert roles == {
        "['image']": "image",
        "['label']": "label",
        "['meta']['score']": "feature",
        "['meta']['text']": "text",
    }
    assert "digit 0" in report.to_text()
    ragged = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6], [7]]))
    rreport = quick(ragged.ragged_batch(2))
    assert rreport.to_dataframe("element spec")["kind"].tolist() == ["ragged"]
    assert "[4, 5, 6]" in rreport.to_text() and "ragged" in rreport.chain
    nested = tf.data.Dataset.from_tensor_slices(((X[:4], (Y[:4], Y[:4] * 2.0)), Y[:4]))
    paths = quick(nested).to_dataframe("element spec")["path"].tolist()
    assert paths == ["[0][0]", "[0][1][0]", "[0][1][1]", "[1]"]


def test_bad_input_gives_one_line_errors(tmp_path) -> None:
    ds = tf.data.Dataset.range(10)
    cases = [
        (iter(ds), "iterator"),
        (ds.as_numpy_iterator(), "iterator"),
        (np.zeros(3), "expected a tf.data.Dataset, got ndarray"),
        (tf.data.Dataset.range(0), "empty"),
        (ds.filter(lambda x: x > 100), "empty"),
    ]
    for value, words in cases:
        with pytest.raises(TfnbDebugError) as info:
            quick(value)
        assert words in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(TfnbDebugError, match="class_names"):
        quick(ds, class_names="abc")


def test_a_live_iterator_over_a_file_cache_is_explained_not_a_traceback(tmp_path) -> None:
    ds = tf.data.Dataset.range(100).cache(str(tmp_path / "cache")).batch(10)
    it = iter(ds)
    assert next(it).numpy().tolist() == list(range(10))
    with pytest.raises(TfnbDebugError, match="lockfile"):
        quick(ds)
    # the user's iterator was not disturbed
    assert next(it).numpy().tolist() == list(range(10, 20))


def test_inspection_does_not_advance_the_users_iterator_or_change_the_dataset() -> None:
    ds = tf.data.Dataset.range(50).batch(5).prefetch(1)
    it = iter(ds)
    assert next(it).numpy()[0] == 0
    spec, card = ds.element_spec, int(ds.cardinality())
    inspect_pipeline(ds, max_seconds=0.05, stage_seconds=0.02)
    assert next(it).numpy()[0] == 5
    assert ds.element_spec == spec and int(ds.cardinality()) == card


def test_infinite_dataset_is_sampled_and_timed_with_a_bound() -> None:
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(8).prefetch(1)
    report = inspect_pipeline(ds, batches=3, max_batches=20, max_seconds=5.0, stage_seconds=0.05)
    assert report.cardinality == "infinite"
    assert "sampled 3 element(s), 24 example(s)" in report.summary[1]
    throughput = dict(report.table("throughput").rows)
    assert throughput["elements timed"] <= 20
    assert any("infinite" in n for n in report.notes)


def test_throughput_counts_examples_and_never_beats_the_real_rate() -> None:
    delay = 0.01

    def slow(x: tf.Tensor) -> tf.Tensor:
        return tf.numpy_function(lambda a: (time.sleep(delay), a)[1], [x], tf.int64)

    ds = tf.data.Dataset.range(1000).batch(4).map(slow)
    result = measure_throughput(ds, name="slow", batched=True, max_elements=15, max_seconds=10)
    assert (result.elements, result.examples, result.stopped_by) == (15, 60, "count")
    assert result.elements_per_s is not None and result.elements_per_s <= 1 / delay * 1.05
    assert result.examples_per_s == pytest.approx(result.elements_per_s * 4)
    assert result.first_s > 0


def test_per_stage_rates_and_the_slowest_prefix() -> None:
    def slow(x: tf.Tensor) -> tf.Tensor:
        return tf.numpy_function(lambda a: (time.sleep(0.005), a)[1], [x], tf.int64)

    ds = tf.data.Dataset.range(10_000).map(slow).batch(8).prefetch(1)
    report = inspect_pipeline(ds, max_batches=10, max_seconds=1.0, stage_seconds=0.2)
    table = report.table("transformations")
    rates = [row[3] for row in table.rows]
    assert all(r is not None for r in rates)
    assert rates[0] > rates[1]  # range is far faster than the sleeping map
    assert (
        "slowest" in table.rows[1][5]
        or "slowest" in table.rows[2][5]
        or "slowest" in table.rows[3][5]
    )


def _state(model: keras.Model) -> list[np.ndarray]:
    variables = list(model.variables) + list(model.optimizer.variables)
    return [np.array(v.numpy(), copy=True) for v in variables]


@pytest.mark.parametrize("trained_before", [True, False])
def test_model_timing_leaves_weights_optimizer_and_train_function_unchanged(
    trained_before: bool,
) -> None:
    model = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            keras.layers.Flatten(),
            keras.layers.Dense(16),
            keras.layers.BatchNormalization(),
            keras.layers.Dropout(0.5),
            keras.layers.Dense(10),
        ]
    )
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    if trained_before:
        model.fit(X[:32], Y[:32], epochs=1, batch_size=16, verbose=0)
    else:
        model.optimizer.build(model.trainable_variables)
    before = _state(model)
    train_function = model.train_function
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(16).prefetch(1)
    report = inspect_pipeline(ds, model=model, per_stage=False, max_seconds=0.2)
    assert report.model_steps_per_s is not None and report.model_steps_per_s > 0
    after = _state(model)
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        assert np.array_equal(a, b)  # bit-equal: the inspection did not train the model
    assert model.train_function is train_function


def test_model_restored_even_when_interrupted(monkeypatch) -> None:
    from tfnb_debug.collect.pipeline_speed import preserved_training_state

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    before = _state(model)
    with pytest.raises(KeyboardInterrupt), preserved_training_state(model):
        model.train_on_batch(np.ones((2, 4), "float32"), np.ones((2, 2), "float32"))
        raise KeyboardInterrupt
    for a, b in zip(before, _state(model), strict=True):
        assert np.array_equal(a, b)


def test_figures_never_touch_pyplot() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    fig = image_grid_figure(X[:10], Y[:10], class_names=NAMES, columns=5)
    assert len(fig.axes) == 1 and len(fig.axes[0].texts) == 10
    assert [t.get_text() for t in fig.axes[0].texts][:2] == [NAMES[Y[0]], NAMES[Y[1]]]
    chart = label_chart_figure(Y[:32], class_names=NAMES)
    heights = [p.get_height() for p in chart.axes[0].patches]
    assert sum(heights) == 32
    quick(tf.data.Dataset.from_tensor_slices((X, Y)).batch(8))
    assert plt.get_fignums() == open_before
