"""Evaluation, prediction and metrics: what ``evaluate``/``predict`` return and what metrics take.

The family
----------
* ``Model.predict(x)`` returns NumPy arrays with the model's output structure: one array
  ``(N, units)`` for one output (a sigmoid head gives ``(N, 1)``, not ``(N,)``), a list or a
  dict for several.  ``x`` must carry the batch axis: a single example ``x[0]`` of shape
  ``(features,)`` is read as a batch of scalars; pass ``x[:1]`` or ``x[None]``.
  ``Model.evaluate`` returns the loss and the compiled metrics as a list (or a dict with
  ``return_dict=True``).
* Class decisions come from the probabilities: ``argmax(axis=-1)`` for a softmax,
  ``p > threshold`` for a sigmoid.  Comparing a ``(N, 1)`` prediction with ``(N,)`` labels
  broadcasts to ``(N, N)`` in NumPy and TensorFlow without an error.  ``tf.argmax`` returns
  ``int64``; TensorFlow ops (``tf.equal``) do not cast between integer dtypes.
* ``tf.math.confusion_matrix(labels, predictions, num_classes)``: both 1-D class ids of the
  same length; not probabilities.  scikit-learn's ``classification_report``/``confusion_matrix``
  likewise take class ids: probabilities are "continuous-multioutput" targets and raise.
* ``keras.metrics``: ``update_state(y_true, y_pred, sample_weight=None)``.
  ``Precision``/``Recall``/``AUC``/``BinaryAccuracy`` take ``y_true`` and ``y_pred`` of the
  same shape, predictions as probabilities in [0, 1] (``thresholds`` default 0.5);
  ``SparseCategoricalAccuracy`` takes class ids against a probability vector;
  ``F1Score``/``FBetaScore`` take 2-D one-hot (or multi-hot) ``y_true`` of shape
  ``(batch, num_classes)`` and 2-D ``y_pred``; ``MeanIoU(num_classes, sparse_y_true=True,
  sparse_y_pred=True)`` expects class ids for both by default: a softmax map needs
  ``sparse_y_pred=False`` (it then takes the argmax on ``axis``).
* ``compile(metrics=...)`` for a model with several outputs: a list with one entry per
  output (each a metric or a list of metrics) or a dict keyed by output name; a flat list of
  metric names whose length differs from the number of outputs is rejected.

Evidence a diagnosis needs
--------------------------
The shapes and dtypes of the two things compared (labels from the data, predictions from
``predict`` or the model), the encoding each API expects (class ids, one-hot,
probabilities), the metric object and its arguments, and the structure of the model's
outputs; the fix converts at the right place (``argmax``, ``ravel``, a cast, one-hot,
``sparse_y_pred=False``, one metric list per output, ``x[:1]``).
"""

from tests.explain_corpus import Case

FAMILY = "evaluation_prediction_and_metrics"

CASES = [
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all inputs must match: values[0].shape = [30] != values[1].shape = [30,3] [Op:Pack] name: stack
    Case(
        name="f30_confusion_matrix_on_softmax_probabilities",
        family=FAMILY,
        code="""
x = np.random.rand(30, 4).astype("float32")
y = np.random.randint(0, 3, size=30)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
probs = model.predict(x, verbose=0)
cm = tf.math.confusion_matrix(y, probs, num_classes=3)
""",
        expect="S07",
        must=("argmax",),
        must_not=("one-hot", "to_categorical"),
        fix="tf.math.confusion_matrix(y, probs.argmax(axis=1), num_classes=3)",
    ),
    # ValueError: Classification metrics can't handle a mix of multiclass and continuous-multioutput targets
    Case(
        name="f30_sklearn_classification_report_on_probabilities",
        family=FAMILY,
        code="""
from sklearn.metrics import classification_report
x = np.random.rand(30, 4).astype("float32")
y = np.random.randint(0, 3, size=30)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
y_pred = model.predict(x, verbose=0)
print(classification_report(y, y_pred))
""",
        expect="M07",
        must=("argmax",),
        must_not=("from_logits",),
        fix="classification_report(y, y_pred.argmax(axis=1))",
    ),
    # ValueError: tuple arity mismatch; expected: 2, got: 3; tuple: ('accuracy', 'mae', 'mse').
    Case(
        name="f30_flat_metric_list_for_two_output_model",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(6,))
h = keras.layers.Dense(8, activation="relu")(inp)
kind = keras.layers.Dense(3, activation="softmax", name="kind")(h)
price = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inp, [kind, price])
model.compile(optimizer="adam", loss=["sparse_categorical_crossentropy", "mse"], metrics=["accuracy", "mae", "mse"])
x = np.random.rand(16, 6).astype("float32")
model.fit(x, [np.random.randint(0, 3, 16), np.random.rand(16)], epochs=1, verbose=0)
""",
        expect=None,
        must_not=("from_logits", "one-hot"),
        unexplained="Keras' message says `metrics` must be a dict or a list matching the output "
        "names ['kind', 'price'] and shows the metrics received: the fix is in it.",
        fix="metrics={'kind': ['accuracy'], 'price': ['mae', 'mse']}",
    ),
    # InvalidArgumentError: Graph execution error:  (Incompatible shapes: [256] vs. [768] in MeanIoU.update_state)
    Case(
        name="f30_meaniou_softmax_map_with_sparse_default",
        family=FAMILY,
        code="""
x = np.random.rand(4, 8, 8, 3).astype("float32")
masks = np.random.randint(0, 3, size=(4, 8, 8))
model = keras.Sequential([keras.Input(shape=(8, 8, 3)), keras.layers.Conv2D(3, 3, padding="same", activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=[keras.metrics.MeanIoU(num_classes=3)])
model.fit(x, masks, epochs=1, verbose=0)
""",
        expect="S07",
        must=("sparse_y_pred",),
        must_not=("batch size", "one-hot"),
        fix="keras.metrics.MeanIoU(num_classes=3, sparse_y_pred=False)",
    ),
    # ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input shapes: y_pred.shape=(32, 4) and y_true.shape=(32,).
    Case(
        name="f30_f1score_metric_with_integer_labels",
        family=FAMILY,
        code="""
x = np.random.rand(32, 5).astype("float32")
y = np.random.randint(0, 4, size=32)
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(4, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=[keras.metrics.F1Score(average="macro")])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("f1",),
        must_not=("expand_dims", "reshape(-1, 1)"),
        fix="one-hot labels with categorical_crossentropy (F1Score needs (batch, num_classes))",
    ),
    # InvalidArgumentError: cannot compute Equal as input #1(zero-based) was expected to be a int64 tensor but is a int32 tensor [Op:Equal] name:
    Case(
        name="f30_argmax_int64_equal_int32_labels",
        family=FAMILY,
        code="""
x_test = np.random.rand(20, 4).astype("float32")
y_test = tf.constant(np.random.randint(0, 3, size=20), dtype=tf.int32)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
pred_classes = tf.argmax(model(x_test), axis=1)
accuracy = tf.reduce_mean(tf.cast(tf.equal(pred_classes, y_test), tf.float32))
""",
        expect="S11",
        must=("int64",),
        must_not=("reshape", "one-hot"),
        fix="tf.argmax(..., output_type=tf.int32) or cast y_test to int64",
    ),
    # IndexError: boolean index did not match indexed array along axis 1; size of axis is 4 but size of corresponding boolean axis is 20
    Case(
        name="f30_sigmoid_predictions_column_vs_flat_labels_mask",
        family=FAMILY,
        code="""
x_test = np.random.rand(20, 4).astype("float32")
y_test = np.random.randint(0, 2, size=20)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1, activation="sigmoid")])
pred = (model.predict(x_test, verbose=0) > 0.5).astype(int)
wrong = pred != y_test
print("misclassified:", wrong.sum())
misclassified = x_test[wrong]
""",
        expect="S08",
        must=("(20, 1)",),
        must_not=("transpose",),
        fix="pred = pred.ravel() (or pred[:, 0]) before comparing with y_test",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (Expected shape (None, 8), but input has incompatible shape (8,))
    Case(
        name="f30_predict_on_one_row_without_batch_axis",
        family=FAMILY,
        code="""
x_test = np.random.rand(20, 8).astype("float32")
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
sample = x_test[0]
print(model.predict(sample, verbose=0))
""",
        expect="S12",
        must=("batch",),
        must_not=("reshape(-1, 1)", "input(shape=(1"),
        fix="model.predict(x_test[:1]) or sample[None, :]",
    ),
]
