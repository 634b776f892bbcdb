"""%tfconsistency / check_consistency: C01-C04 on real Keras models, state untouched."""

from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._keras_examples import vae_encoder
from tests._support import run_magic
from tfnb_debug.features.consistency import ConsistencyThresholds, check_consistency

X = np.random.RandomState(0).rand(16, 4).astype("float32")
Y = np.random.RandomState(1).rand(16, 1).astype("float32")


class MCDropout(keras.layers.Dropout):
    """Monte-Carlo dropout: random also at inference (the classic C01 cause)."""

    def call(self, inputs, training=None):
        return super().call(inputs, training=True)


@keras.saving.register_keras_serializable(package="tfnb_test_consistency")
class Scale(keras.layers.Layer):
    """``factor`` is set after construction and is missing from get_config (C02 cause)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.factor = 1.0

    def call(self, inputs):
        return inputs * self.factor


@keras.saving.register_keras_serializable(package="tfnb_test_consistency")
class TokenModel(keras.Model):
    """A subclassed model over int64 token ids (no declared inputs: Keras' export signature
    would guess float32); ``scale`` changes outputs and is missing from get_config."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.embedding = keras.layers.Embedding(20, 4)
        self.dense = keras.layers.Dense(20)
        self.scale = 1.0

    def call(self, inputs, training=False):
        return self.dense(self.embedding(inputs)) * self.scale


TOKENS = np.random.RandomState(3).randint(0, 20, (16, 12)).astype("int64")


def token_dataset() -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices(TOKENS).batch(8)


def unregistered_mse(y_true, y_pred):
    return keras.ops.mean((y_true - y_pred) ** 2)


def state_bytes(model: keras.Model) -> list[bytes]:
    values = [v.numpy().tobytes() for v in model.variables]
    if getattr(model, "optimizer", None) is not None:
        values += [v.numpy().tobytes() for v in model.optimizer.variables]
    return values


def dense_model(*extra: keras.layers.Layer, loss: object = "mse", fit: bool = True) -> keras.Model:
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8), *extra, keras.layers.Dense(1)]
    )
    model.compile(optimizer="adam", loss=loss)
    if fit:
        model.fit(X, Y, epochs=1, batch_size=8, verbose=0)
    return model


def test_c01_fires_for_mc_dropout_and_names_the_layer() -> None:
    model = dense_model(MCDropout(0.5, name="mc_drop"))
    before = state_bytes(model)
    report = check_consistency(model, X)
    assert "C01" in report.codes()
    c01 = next(f for f in report.findings if f.code == "C01")
    assert c01.place == "mc_drop"
    assert report.inference.random_layers == ("mc_drop",)
    assert state_bytes(model) == before


def test_c01_for_mc_dropout_keeps_the_dropout_advice() -> None:
    report = check_consistency(dense_model(MCDropout(0.5, name="mc_drop")), X)
    c01 = next(f for f in report.findings if f.code == "C01")
    assert c01.severity == "error" and "keras.random.dropout" in c01.message
    assert "Dropout" in c01.hint
    assert report.inference.random_ops == (("mc_drop", "MCDropout", "dropout", "dropout"),)


def test_c01_for_an_intended_sampler_is_a_warning_naming_layer_and_op() -> None:
    # before: C01 (error) "drew random numbers" with advice about Dropout/augmentation
    from keras.src import backend

    normal = backend.random.normal
    encoder = vae_encoder()
    x = np.random.RandomState(2).rand(8, 8).astype("float32")
    before = state_bytes(encoder)
    report = check_consistency(encoder, x)
    assert backend.random.normal is normal  # the recording wrapper is gone
    (c01,) = [f for f in report.findings if f.code == "C01"]
    assert c01.severity == "warning" and c01.place == "sampling"
    assert "layer 'sampling' (Sampling) calls keras.random.normal" in c01.message
    assert "Dropout" not in c01.hint and "training" in c01.hint and "seed" in c01.hint
    assert state_bytes(encoder) == before


@pytest.mark.slow
def test_keras_file_that_does_not_load_gives_one_finding() -> None:
    # before: C02 at ".keras round trip" and C04 at ".keras file" for the same load failure
    encoder = vae_encoder()  # Sampling is not registered: load_model cannot rebuild it
    x = np.random.RandomState(2).rand(8, 8).astype("float32")
    report = check_consistency(encoder, x, export=True)
    keras_file = [f for f in report.findings if f.code in ("C02", "C04") and ".keras" in f.place]
    assert [(f.code, f.place) for f in keras_file] == [("C02", ".keras round trip")]
    assert (
        "decorate Sampling with @keras.saving.register_keras_serializable()" in keras_file[0].hint
    )
    assert report.checkpoints[0].skipped and "not checked" in report.to_text()


def test_c01_silent_for_plain_dropout() -> None:
    model = dense_model(keras.layers.Dropout(0.5, name="drop"))
    before = state_bytes(model)
    report = check_consistency(model, X)
    assert "C01" not in report.codes()
    assert report.inference.rel_diff == 0.0
    # Dropout makes training mode differ, and the ablation blames it
    assert "C03" in report.codes()
    assert "drop" in next(f for f in report.findings if f.code == "C03").place
    assert state_bytes(model) == before


def test_c03_names_untrained_batchnorm_and_is_silent_without_it() -> None:
    bn = dense_model(keras.layers.BatchNormalization(name="bn"), fit=False)
    report = check_consistency(bn, X * 10)
    c03 = [f for f in report.findings if f.code == "C03"]
    assert c03 and c03[0].place == "bn"
    plain = check_consistency(dense_model(fit=False), X)
    assert plain.codes() == []
    assert plain.train_gap.rel_gap == 0.0


def test_export_round_trips_clean_model_has_no_findings() -> None:
    model = dense_model(keras.layers.BatchNormalization(), keras.layers.Dropout(0.2))
    before = state_bytes(model)
    with warnings.catch_warnings():  # Keras' saving code warns; that is no failed round trip
        warnings.simplefilter("error", DeprecationWarning)
        report = check_consistency(model, X, export=True)
    assert not {"C01", "C02", "C04"} & set(report.codes())
    assert [e.rel_diff for e in report.exports] == [0.0, 0.0] or all(
        e.rel_diff is not None and e.rel_diff < 1e-6 for e in report.exports
    )
    assert all(c.compared > 0 and not c.lost and not c.error for c in report.checkpoints)
    assert state_bytes(model) == before


def test_c02_and_c04_fire_for_unsaved_attribute_and_unregistered_loss() -> None:
    scale = Scale(name="scale")
    model = dense_model(scale, loss=unregistered_mse)
    scale.factor = 3.0  # changes outputs, not saved by get_config
    before = state_bytes(model)
    report = check_consistency(model, X, export=True)
    c02 = [f for f in report.findings if f.code == "C02"]
    assert [f.place for f in c02] == [".keras round trip"]  # SavedModel traced factor=3.0
    c04 = [f for f in report.findings if f.code == "C04"]
    assert [f.place for f in c04] == [".keras file"]
    assert "unregistered_mse" in c04[0].evidence
    assert state_bytes(model) == before


def test_thresholds_are_overridable() -> None:
    model = dense_model(keras.layers.Dropout(0.5))
    report = check_consistency(model, X, thresholds=ConsistencyThresholds(train_gap=1e9))
    assert "C03" not in report.codes()
    with pytest.raises(ValueError):
        ConsistencyThresholds(train_gap=-1)


class FailsInTraining(keras.layers.Layer):
    def call(self, inputs, training=None):
        if training:
            raise RuntimeError("boom in training mode")
        return inputs


def test_user_error_propagates_and_everything_is_restored() -> None:
    layer = FailsInTraining(name="fails")
    model = dense_model(keras.layers.BatchNormalization(), layer, fit=False)
    before = state_bytes(model)
    with pytest.raises(RuntimeError, match="boom in training mode"):
        check_consistency(model, X)
    assert "call" not in vars(layer)
    assert state_bytes(model) == before


def test_bad_inputs_are_one_line_errors() -> None:
    from tfnb_debug.ground.errors import TfnbDebugError

    with pytest.raises(TfnbDebugError, match="must be a Keras model"):
        check_consistency(object(), X)
    with pytest.raises(TfnbDebugError, match="raised"):
        check_consistency(dense_model(fit=False), np.zeros((2, 7), "float32"))


def test_magic_returns_report_and_reports_bad_names(shell: InteractiveShell) -> None:
    shell.user_ns["cmodel"] = dense_model(MCDropout(0.5, name="mc"), fit=False)
    shell.user_ns["cx"] = X
    shown = run_magic(shell, "%tfconsistency -q -o cmodel cx")
    assert shown.result is not None and "C01" in shown.result.codes()
    assert shown.outputs == []
    shown = run_magic(shell, "%tfconsistency -v rep cmodel cx[:4]")
    assert "C01 nondeterministic-inference" in shown.text
    assert shell.user_ns["rep"].codes()[0] == "C01"
    with pytest.raises(UsageError, match="nope"):
        run_magic(shell, "%tfconsistency nope cx")
    with pytest.raises(UsageError, match="must be a Keras model"):
        run_magic(shell, "%tfconsistency cx cx")


def test_c02_silent_when_the_savedmodel_of_an_int64_token_model_reproduces_it() -> None:
    model = TokenModel()
    model(TOKENS[:8])
    # X is the dataset's first batch, an int64 tensor: an export signature guessed as
    # float32 cannot bind it, which is the check failing, not the model
    report = check_consistency(model, token_dataset(), export=True)
    assert "C02" not in report.codes(), report.to_text()
    assert [(e.kind, e.rel_diff, e.error) for e in report.exports] == [
        (".keras round trip", 0.0, ""),
        ("SavedModel (model.export)", 0.0, ""),
    ]


def test_c02_still_fires_for_an_int64_token_model_that_reloads_differently() -> None:
    model = TokenModel()
    model(TOKENS[:8])
    model.scale = 3.0  # changes outputs; get_config does not save it
    report = check_consistency(model, token_dataset(), export=True)
    c02 = [f for f in report.findings if f.code == "C02"]
    assert [f.place for f in c02] == [".keras round trip"], report.to_text()
    assert "relative difference" in c02[0].evidence
    saved_model = report.exports[1]
    assert saved_model.error == "" and saved_model.rel_diff == 0.0  # it traced scale=3.0
