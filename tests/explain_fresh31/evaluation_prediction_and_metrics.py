"""Family: evaluation, prediction and metrics.

The APIs and their documented contract:

- ``model.evaluate(x, y)`` returns the loss (a scalar) when nothing else is compiled, a
  list ``[loss, metric1, ...]`` otherwise, or a dict name -> value with
  ``return_dict=True`` (keys prefixed by the output name for multi-output models, e.g.
  ``"kind_accuracy"``).  ``x`` and ``y`` must have the same number of samples ("Data
  cardinality is ambiguous" otherwise); the labels must be encoded as during training.
- ``model.predict(x)`` returns the model's outputs as NumPy arrays: for a softmax
  classifier the probabilities ``(N, C)``, for a sigmoid one ``(N, 1)``; class ids come
  from ``np.argmax(p, axis=1)`` or a threshold ``p > 0.5``.  A list/dict of arrays for a
  multi-output model.
- ``keras.metrics`` objects: ``update_state(y_true, y_pred, sample_weight=None)``,
  ``result()``, ``reset_state()``.  Each takes one label encoding:
  ``Precision``/``Recall``/``AUC``/``BinaryAccuracy`` take ``y_true`` and ``y_pred`` of the
  same shape (binary or multi-label, values in [0, 1]; ``thresholds``, ``class_id``,
  ``top_k`` select what is counted), they do not take class ids against a softmax;
  ``SparseCategoricalAccuracy``/``SparseTopKCategoricalAccuracy`` take integer class ids
  ``(N,)`` or ``(N, 1)``, ``CategoricalAccuracy`` one-hot ``(N, C)``;
  ``F1Score``/``FBetaScore`` take 2-D one-hot (or multi-hot) ``y_true`` of the shape of
  ``y_pred`` ``(batch_size, output_dim)``; ``MeanIoU(num_classes, sparse_y_true=True,
  sparse_y_pred=True)`` takes class ids for both by default: with per-class
  probabilities as predictions it needs ``sparse_y_pred=False`` (it then takes the argmax).
- ``tf.math.confusion_matrix(labels, predictions, num_classes=None)``: both 1-D vectors of
  class ids of the same length (not probabilities, not one-hot).
- scikit-learn metrics (``classification_report``, ``accuracy_score``) take class ids;
  ``roc_auc_score(y, y_score, multi_class="ovr")`` takes the probability matrix
  ``(n_samples, n_classes)``.
- Sparse cross-entropy in ``evaluate`` needs integer labels in ``[0, C)`` for ``C`` output
  units.
- ``compile(metrics=...)`` for a multi-output model: a list (one entry per output) or a
  dict keyed by output names.

The evidence a diagnosis needs: the shapes and encodings of ``y_true`` (class ids, one-hot)
and of ``y_pred`` (probabilities, class ids), which metric (or function) received them and
which encoding it takes, the range of the label values against the number of output
units, and which arrays were passed together (a test set with training labels).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "evaluation_prediction_and_metrics"

CASES = [
    # InvalidArgumentError: {{function_node __wrapped__LogicalAnd_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [1,6] vs. [1,18] [Op:LogicalAnd] name:
    Case(
        name="f31_precision_update_state_class_ids_vs_softmax",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x_test = np.random.rand(6, 4).astype("float32")
y_test = np.array([0, 2, 1, 2, 0, 1])
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
probs = model.predict(x_test, verbose=0)
precision = keras.metrics.Precision()
precision.update_state(y_test, probs)
print("precision:", float(precision.result()))
""",
        expect="S07",
        must=("precision",),
        must_not=("from_logits",),
        fix="one-hot y_test (or Precision(class_id=k) on one-hot labels)",
    ),
    # InvalidArgumentError: Graph execution error:
    Case(
        name="f31_meaniou_on_softmax_maps_default_sparse_pred",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x = np.random.rand(4, 8, 8, 3).astype("float32")
masks = np.random.randint(0, 3, (4, 8, 8))
inputs = keras.Input(shape=(8, 8, 3))
outputs = keras.layers.Conv2D(3, 1, activation="softmax")(inputs)
model = keras.Model(inputs, outputs)
model.compile(
    optimizer="adam",
    loss="sparse_categorical_crossentropy",
    metrics=[keras.metrics.MeanIoU(num_classes=3)],
)
model.fit(x, masks, epochs=1, verbose=0)
""",
        expect="S07",
        must=("sparse_y_pred",),
        must_not=("from_logits",),
        fix="keras.metrics.MeanIoU(num_classes=3, sparse_y_pred=False)",
    ),
    # ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input shapes: y_pred.shape=(None, 3) and y_true.shape=(None,).
    Case(
        name="f31_f1score_metric_with_integer_class_ids",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x = np.random.rand(12, 4).astype("float32")
y = np.random.randint(0, 3, 12)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(
    optimizer="adam",
    loss="sparse_categorical_crossentropy",
    metrics=[keras.metrics.F1Score(average="macro")],
)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("f1",),
        must_not=("expand_dims",),
        fix="one-hot labels (keras.utils.to_categorical) with categorical_crossentropy for F1Score",
    ),
    # InvalidArgumentError: Graph execution error:
    Case(
        name="f31_sparse_accuracy_metric_with_onehot_labels",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x = np.random.rand(12, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 12), 3)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(
    optimizer="adam",
    loss="categorical_crossentropy",
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse", "accuracy"),
        must_not=("reshape",),
        fix="metrics=[keras.metrics.CategoricalAccuracy()] for one-hot labels",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all inputs must match: values[0].shape = [12,3] != values[1].shape = [12] [Op:Pack] name: stack
    Case(
        name="f31_confusion_matrix_with_onehot_test_labels",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x_test = np.random.rand(12, 4).astype("float32")
y_test = keras.utils.to_categorical(np.random.randint(0, 3, 12), 3)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
y_pred = np.argmax(model.predict(x_test, verbose=0), axis=1)
cm = tf.math.confusion_matrix(y_test, y_pred, num_classes=3)
print(cm)
""",
        expect="S07",
        must=("argmax",),
        must_not=("reshape",),
        fix="tf.math.confusion_matrix(np.argmax(y_test, axis=1), y_pred)",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of samples.'x' sizes: 10
    Case(
        name="f31_evaluate_test_inputs_with_train_labels",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x_train = np.random.rand(40, 4).astype("float32")
y_train = np.random.randint(0, 2, 40)
x_test = np.random.rand(10, 4).astype("float32")
y_test = np.random.randint(0, 2, 10)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
test_loss, test_acc = model.evaluate(x_test, y_train, verbose=0)
""",
        expect="S12",
        must=("y_train",),
        must_not=("batch_size",),
        fix="model.evaluate(x_test, y_test)",
    ),
    # InvalidArgumentError: Graph execution error:
    Case(
        name="f31_evaluate_one_based_test_labels",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x_train = np.random.rand(12, 4).astype("float32")
y_train = np.random.randint(0, 3, 12)
x_test = np.random.rand(6, 4).astype("float32")
y_test = np.array([1, 2, 3, 3, 1, 2])
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
model.evaluate(x_test, y_test, verbose=0)
""",
        expect="P12",
        must=("y_test",),
        must_not=("dense(4",),
        fix="encode the test labels like the training labels: y_test - 1",
    ),
    # ValueError: `y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains multiple classes. Got `y_score.shape=(12,)`.
    Case(
        name="f31_roc_auc_score_on_argmax_class_ids",
        family=FAMILY,
        code="""
from sklearn.metrics import roc_auc_score
keras.utils.set_random_seed(0)
x_test = np.random.rand(12, 4).astype("float32")
y_test = np.array([0, 1, 2] * 4)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
y_pred = np.argmax(model.predict(x_test, verbose=0), axis=1)
print(roc_auc_score(y_test, y_pred, multi_class="ovr"))
""",
        expect=None,
        unexplained=(
            "scikit-learn says y_score must have shape (n_samples, n_classes) and shows the "
            "(12,) it got: pass the predicted probabilities, not their argmax."
        ),
        fix="roc_auc_score(y_test, model.predict(x_test), multi_class='ovr')",
    ),
]
