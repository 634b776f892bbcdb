"""The model is regularized so hard that it cannot fit the training data.

User reports: "after porting from TensorFlow 1 my model stopped learning" (``tf.nn.dropout``'s
``keep_prob=0.9`` became ``keras.layers.Dropout(0.9)``, whose argument is the fraction
*dropped*); "loss is huge and accuracy stays at 10% with kernel_regularizer=l2(1)" (the
weight penalty dominates the loss and drives every weight to zero); "BatchNormalization
with batch size 1: the network outputs the same value for every input" (the statistics
of a one-example batch normalize every activation to 0, so the layer emits its beta).
A fourth report, a ``GaussianNoise`` stddev given in pixel units after ``Rescaling(1/255)``,
could not be ported: Keras 3 refuses a stddev outside [0, 1].
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    LossStays,
    Metric,
    OneClass,
)
from tests.fault_bench._data import BLOBS, cell

FAMILY = "regularization"

_SEED = "keras.utils.set_random_seed(0)\n"

_DROPOUT_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dropout({rate}, name="drop_in"),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dropout({rate}, name="drop1"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dropout({rate}, name="drop2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_L2_MODEL = """\
reg = keras.regularizers.L2({l2})
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", kernel_regularizer=reg, name="hidden"),
    keras.layers.Dense(64, activation="relu", kernel_regularizer=reg, name="hidden2"),
    keras.layers.Dense(10, activation="softmax", kernel_regularizer=reg, name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_BN_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, name="hidden"),
    keras.layers.BatchNormalization(name="bn"),
    keras.layers.Activation("relu", name="relu"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(
    optimizer=keras.optimizers.Adam(0.01),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
"""

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"

CASES = [
    Case(
        name="dropout_rate_as_keep_prob",
        family=FAMILY,
        bug_summary="Dropout(0.9) on the input and after every hidden layer, meant as TF1's "
        "keep_prob=0.9: Keras drops 90% of the units, each step sees ~2 of 20 features and ~6 "
        "of 64 units, and the network fits almost nothing",
        source="Stack Overflow: 'model stops learning after moving from tf.nn.dropout(keep_prob="
        "0.9) to keras.layers.Dropout(0.9)' (the Keras argument is the drop rate)",
        setup=cell(BLOBS, _SEED, _DROPOUT_MODEL.format(rate=0.9)),
        fixed_setup=cell(BLOBS, _SEED, _DROPOUT_MODEL.format(rate=0.1)),
        train=_FIT.format(epochs=10),
        codes=frozenset({"C03"}),
        symptom_codes=frozenset({"C03"}),
        places=("drop_in", "drop1", "drop2", "dropout"),
        fixes=("rate", "dropout"),
        bug=AllOf((Metric("accuracy", high=0.3, every=True), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="l2_penalty_dominates",
        family=FAMILY,
        bug_summary="kernel_regularizer=L2(1.0) on every Dense layer: the penalty (1.0 x the sum "
        "of squared weights) outweighs the cross-entropy, Adam shrinks the kernels toward zero, "
        "the output is the same for every example and accuracy stays at chance",
        source="Stack Overflow: 'accuracy stuck at 10% with kernel_regularizer=l2(1)' "
        "(answer: l2 factors are 1e-4..1e-2)",
        setup=cell(BLOBS, _SEED, _L2_MODEL.format(l2=1.0)),
        fixed_setup=cell(BLOBS, _SEED, _L2_MODEL.format(l2=1e-4)),
        train=_FIT.format(epochs=10),
        codes=frozenset({"P16"}),
        symptom_codes=frozenset({"P16"}),
        places=("hidden", "hidden2", "out", "kernel_regularizer", "l2", "regularizer"),
        fixes=("l2", "regulariz"),
        bug=AllOf((Accuracy(high=0.3), OneClass(0.9))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="batchnorm_batch_of_one",
        family=FAMILY,
        bug_summary="a BatchNormalization layer trained with batch_size=1: each batch's mean is "
        "the example itself and its variance 0, so the layer outputs beta for every example, "
        "no gradient reaches the layers below it and training accuracy stays at chance (and the "
        "moving variance collapses toward 0 for inference)",
        source="GitHub issue / Stack Overflow: 'BatchNormalization with batch size 1: the "
        "network outputs the same value for every input' (batch statistics of one example)",
        setup=cell(BLOBS, _SEED, _BN_MODEL),
        train="history = model.fit(x, y, epochs=2, batch_size=1, verbose=0)\n",
        fixed_train="history = model.fit(x, y, epochs=2, batch_size=32, verbose=0)\n",
        codes=frozenset({"G01"}),
        symptom_codes=frozenset({"G01", "G07", "C03"}),
        places=("hidden", "bn", "batch size", "batch_size"),
        fixes=("batch size", "batch_size"),
        bug=AllOf((LossStays(0.95), Metric("accuracy", high=0.2, every=True), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
]
