"""%tflint / lint_model: glue over the M, S05, P12 and N04 rules of the other features."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._keras_examples import gan, vae
from tests._support import run_magic
from tfnb_debug.features.lint import lint_model

RS = np.random.RandomState(0)
X = RS.rand(32, 8).astype("float32")
Y = RS.randint(0, 3, 32)


def classifier(activation: str | None, *, from_logits: bool) -> keras.Model:
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(16, "relu"), keras.layers.Dense(3, activation)]
    )
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits),
    )
    return model


def state(model: keras.Model) -> list[bytes]:
    return [v.numpy().tobytes() for v in [*model.variables, *model.optimizer.variables]]


def test_m01_fires_for_softmax_with_from_logits_and_not_for_logits() -> None:
    bad = lint_model(classifier("softmax", from_logits=True))
    assert "M01" in bad.codes()
    good = lint_model(classifier(None, from_logits=True), (X, Y))
    assert good.codes() == []
    assert [c[0] for c in good.checks] == [
        "M01-M05",
        "M07, M08",
        "M03, M07",
        "S08, M02, M03",
        "M06",
        "S05",
        "P12, N04",
        "P16",
    ]


def test_m06_uses_the_device_memory_given() -> None:
    model = classifier(None, from_logits=True)
    assert "M06" in lint_model(model, device_memory=1024).codes()
    assert "M06" not in lint_model(model, device_memory=1 << 34).codes()


def test_p12_and_m04_with_one_based_labels_only_with_data() -> None:
    model = classifier(None, from_logits=True)
    model.fit(X, Y, epochs=1, verbose=0)
    before = state(model)
    ds = tf.data.Dataset.from_tensor_slices((X, Y + 1)).batch(16)
    codes = lint_model(model, data=ds).codes()
    assert "P12" in codes and "M04" in codes
    assert "P12" not in lint_model(model).codes()
    assert "P12" not in lint_model(model, (X, Y)).codes()
    assert state(model) == before


def image_model(rescale: bool) -> keras.Model:
    layers: list[keras.layers.Layer] = [keras.Input((6, 6, 1))]
    if rescale:
        layers.append(keras.layers.Rescaling(1 / 255))
    layers += [keras.layers.Flatten(), keras.layers.Dense(3)]
    model = keras.Sequential(layers)
    model.compile(
        optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    return model


def test_n04_for_raw_pixels_without_rescaling() -> None:
    images = (RS.rand(16, 6, 6, 1) * 255).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((images, Y[:16])).batch(8)
    assert "N04" in lint_model(image_model(False), ds).codes()
    assert "N04" not in lint_model(image_model(True), ds).codes()


def test_s05_under_mixed_precision() -> None:
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        inp = keras.Input((8,))
        out = keras.layers.Dense(3)(keras.layers.Dense(4)(inp))
        bad = keras.Model(inp, out)
        fixed = keras.Model(inp, keras.layers.Activation("linear", dtype="float32")(out))
    finally:
        keras.mixed_precision.set_global_policy("float32")
    for model in (bad, fixed):
        model.compile(optimizer="adam", loss="mse")
    assert "S05" in lint_model(bad).codes()
    assert "S05" not in lint_model(fixed).codes()
    assert "S05" not in lint_model(classifier(None, from_logits=True)).codes()


@pytest.mark.slow
def test_models_with_their_own_train_step_are_linted_and_say_what_is_not() -> None:
    # before: "MODEL 'vae' is not built yet" (and "the model is not compiled" for the pairing)
    features = RS.rand(16, 8).astype("float32")
    for model in (vae(), gan()):
        model.fit(features, epochs=1, batch_size=8, verbose=0)
        before = [v.numpy().tobytes() for v in model.variables]
        report = lint_model(model, tf.data.Dataset.from_tensor_slices(features).batch(8))
        status = dict((check, status) for _, check, status in report.checks)
        assert status["loss / output pairing"] == (
            "not checked: the model computes its loss in its own train_step"
        )
        assert status["training memory vs device memory"].startswith("ran")
        assert (
            "loss / output pairing not checked: the model computes its loss in its own train_step"
            in report.summary
        )
        assert "not compiled" not in report.to_text()
        assert [v.numpy().tobytes() for v in model.variables] == before


def test_magic(shell: InteractiveShell) -> None:
    shell.user_ns.update(lm=classifier("softmax", from_logits=True), lx=X, ly=Y)
    shown = run_magic(shell, "%tflint -q -o lm --data (lx,ly)")
    assert shown.result is not None and "M01" in shown.result.codes()
    # the tuple written as Python writes it, with a space: one argument, the same report
    spaced = run_magic(shell, "%tflint -q -o lm --data (lx, ly)")
    assert spaced.result is not None and spaced.result.codes() == shown.result.codes()
    shown = run_magic(shell, "%tflint lm")
    assert "M01 probabilities-as-logits" in shown.text
    with pytest.raises(UsageError, match="missing"):
        run_magic(shell, "%tflint missing")
    with pytest.raises(UsageError, match="Keras model"):
        run_magic(shell, "%tflint lx")


@pytest.mark.parametrize(
    "activation, loss",
    [
        ("sigmoid", keras.losses.CategoricalCrossentropy()),
        (None, keras.losses.SparseCategoricalCrossentropy(from_logits=True)),
    ],
)
def test_m03_categorical_loss_over_one_unit_and_its_binary_twin(
    activation: str | None, loss: keras.losses.Loss
) -> None:
    """The loss of a softmax over one value is always 0: nothing is learned."""

    def one_unit(activation: str | None, loss: keras.losses.Loss) -> keras.Model:
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation)])
        model.compile(optimizer="adam", loss=loss)
        return model

    bad = lint_model(one_unit(activation, loss))
    assert bad.codes() == ["M03"], bad.to_text()
    assert "single output unit" in bad.findings[0].message
    twin = lint_model(one_unit("sigmoid", keras.losses.BinaryCrossentropy()))
    assert twin.codes() == []


class _PlainMSE(keras.losses.Loss):
    """A Keras loss with its own call: unlike the built-in ones, it does not align the ranks."""

    def call(self, y_true: tf.Tensor, y_pred: tf.Tensor) -> tf.Tensor:
        return keras.ops.square(y_true - y_pred)


@pytest.mark.slow
@pytest.mark.parametrize("labels", ["(B,)", "(B, 1)"])
def test_s08_from_one_guarded_training_step_with_data(labels: str) -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss=_PlainMSE(name="plain_mse"))
    y = X.sum(axis=1).astype("float32")
    if labels == "(B, 1)":
        y = y[:, None]  # the clean twin
    before = state(model)
    report = lint_model(model, (X, y))
    assert state(model) == before  # the step ran under the guard: nothing changed
    assert model.optimizer.iterations.numpy() == 0
    row = [c for c in report.checks if c[0] == "S08, M02, M03"]
    assert row and row[0][2].startswith("ran (the compiled loss"), report.checks
    if labels == "(B,)":
        assert report.codes() == ["S08"], report.to_text()
        assert "inside _PlainMSE 'plain_mse'" in report.findings[0].message
    else:
        assert report.codes() == []


class _OwnStep(keras.Model):
    """A model that computes its loss in its own train_step, labels used as given."""

    def train_step(self, data: tuple[tf.Tensor, tf.Tensor]) -> dict[str, tf.Tensor]:
        x, y = data
        with tf.GradientTape() as tape:
            loss = keras.ops.mean(keras.ops.square(y - self(x, training=True)))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


@pytest.mark.slow
def test_s08_in_an_own_train_step_from_lint_data_and_its_twin() -> None:
    inputs = keras.Input((8,))
    model = _OwnStep(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer="adam")
    y = X.sum(axis=1).astype("float32")
    bad = lint_model(model, (X, y))
    assert bad.codes() == ["S08"], bad.to_text()
    assert "in train_step" in bad.findings[0].place
    assert model.optimizer.iterations.numpy() == 0 and not model.optimizer.built
    assert lint_model(model, (X, y[:, None])).codes() == []


def test_lint_explains_a_loss_that_raises_with_the_diagnosis_rules() -> None:
    """Two sigmoid units with binary cross-entropy on 0/1 labels: the static pairing has no
    rule for it, the loss raises on the first batch, and the diagnosis under a failing cell
    explains it (M04, Dense(1)); the same rules, not a second set."""
    import keras
    import numpy as np

    from tfnb_debug import lint_model

    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy")
    x, y = np.zeros((16, 8), "float32"), np.arange(16) % 2
    report = lint_model(model, (x, y))
    (m04,) = [f for f in report.findings if f.code == "M04"]
    assert "Dense(1, activation='sigmoid')" in m04.hint and "Flatten" not in m04.to_text()
    assert any("explained: M04" in row for row in report.to_text().splitlines())
    fixed = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
    fixed.compile("adam", "binary_crossentropy")
    assert "M04" not in lint_model(fixed, (x, y)).codes()


def test_p12_hint_follows_the_label_values() -> None:
    # the remap the values call for: -1/+1 -> (y + 1) // 2, 1-based -> y - 1, else in order
    binary = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
    binary.compile("adam", "binary_crossentropy")
    signs = np.where(X[:, 0] > 0.5, 1, -1)
    p12 = [f for f in lint_model(binary, (X, signs)).findings if f.code == "P12"]
    assert p12 and p12[0].hint == "the labels are -1/+1: pass (y + 1) // 2 (0/1)"
    model = classifier(None, from_logits=True)
    one_based = [f for f in lint_model(model, (X, Y + 1)).findings if f.code == "P12"]
    assert "the ids are 1-based: pass y - 1" in [f.hint for f in one_based]


def test_a_sequential_without_input_is_built_on_the_data_as_fit_would_build_it() -> None:
    """It used to refuse ("not built yet") a model its own fit would build from the data."""
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.layers.Dense(16, "relu"), keras.layers.Dense(3, "softmax")])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    report = lint_model(model, (X, Y))
    assert "M01" in report.codes()
    keras.utils.set_random_seed(3)
    twin = keras.Sequential(  # built from its Input: the same initial weights
        [keras.Input((8,)), keras.layers.Dense(16, "relu"), keras.layers.Dense(3, "softmax")]
    )
    assert [v.numpy().tobytes() for v in model.weights] == [
        v.numpy().tobytes() for v in twin.weights
    ]


def _tagger(activation: str | None, loss: keras.losses.Loss) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((8,)),
            keras.layers.Dense(16, "relu"),
            keras.layers.Dense(4, activation, name="tags"),
        ]
    )
    model.compile("adam", loss)
    return model


@pytest.mark.parametrize(
    "activation, loss",
    [
        ("softmax", keras.losses.CategoricalCrossentropy()),
        (None, keras.losses.CategoricalCrossentropy(from_logits=True)),
    ],
    ids=["softmax", "logits"],
)
def test_m03_categorical_on_multi_label_rows_and_silent_on_one_hot(
    activation: str | None, loss: keras.losses.Loss
) -> None:
    """Softmax (in the layer or in the loss) under a categorical cross-entropy on rows with
    several tags, or none: M03 with sigmoid + binary_crossentropy.  One-hot rows and soft
    (smoothed) rows of the same model are silent."""
    tags = (RS.rand(32, 4) > 0.6).astype("float32")
    found = [
        f for f in lint_model(_tagger(activation, loss), (X, tags)).findings if f.code == "M03"
    ]
    assert len(found) == 1, found
    assert "1s per row" in found[0].evidence and "'tags'" in found[0].message
    assert "activation='sigmoid'" in found[0].hint and "binary_crossentropy" in found[0].hint
    one_hot = np.eye(4, dtype="float32")[Y % 4]
    assert "M03" not in lint_model(_tagger(activation, loss), (X, one_hot)).codes()
    smoothed = one_hot * 0.9 + 0.025
    assert "M03" not in lint_model(_tagger(activation, loss), (X, smoothed)).codes()
