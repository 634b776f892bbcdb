"""Family ``evaluation_and_prediction``: what evaluate/predict/__call__ and metrics take and give.

The APIs and their documented contract (Keras 3):

- ``model.evaluate(x, y, batch_size, return_dict=False)`` needs a compiled model
  (``compile()`` first) and labels: ``(x, y)`` arrays, or a dataset/generator that yields
  ``(x, y)`` (or ``(x, y, sample_weight)``) batches; it returns the scalar loss, or a list
  ``[loss, *metrics]`` in the order of ``model.metrics_names``, or a dict with
  ``return_dict=True``.  Its labels must fit the COMPILED loss exactly as in ``fit``:
  class ids for the sparse loss, one-hot rows for the categorical loss.
- ``model.predict(x, batch_size)`` slices its input along axis 0: ``x`` must carry the batch
  axis, so ONE example is ``x[:1]`` / ``x[None]`` / ``np.expand_dims(x, 0)``, never ``x[0]``
  (Keras then reads the example's first axis as the batch and, for images, may expand a
  missing axis itself so that a later layer fails with "Negative dimension size").  A
  ``tf.data.Dataset`` given to ``predict`` is used as is: it must be batched (``.batch()``),
  each element one batch.  It returns NumPy arrays: ``(N, C)`` class probabilities for a
  softmax head, a list/dict for several outputs.  ``predict_on_batch(x)`` runs one batch;
  ``model(x)`` returns a tensor and also needs the batch axis.
- The number of features a ``Dense`` was built with is fixed: a test array with an extra
  column (an id, the target) does not fit.
- Comparing predictions with labels: class ids are ``probs.argmax(axis=-1)``;
  ``tf.math.confusion_matrix(labels, predictions)`` and ``keras.metrics.MeanIoU`` take class
  ids of the same shape on both sides; ``keras.metrics.Precision``/``Recall``/``AUC`` are
  binary (or multi-label) metrics: ``y_true`` must have ``y_pred``'s shape (one-hot rows
  for several classes, with ``class_id`` to pick one); ``SparseCategoricalAccuracy`` takes
  ids against probabilities.  Standalone metrics: ``update_state(y_true, y_pred)``,
  ``result()``, ``reset_state()``.

What the framework raises, and the evidence a diagnosis needs to name the cause:

- a layer's input check during ``predict``: the shape that came, whether the batch axis
  is missing (a single example -> S12; an unbatched dataset -> S01 "batch the dataset";
  a wrong feature count -> S01 with the two counts);
- ``Argument output must have rank target.ndim - 1`` in ``evaluate``: one-hot labels
  against the sparse loss -> M05;
- ``None values not supported`` from ``evaluate`` on a dataset that yields only inputs: no
  labels reach the loss -> S12;
- ``Incompatible shapes`` / ``Shapes of all inputs must match`` in a metric's op: the
  metric, the label shape ``(N,)`` and the prediction shape ``(N, C)`` -> S07 (argmax for
  id-based metrics; one-hot labels, not argmax, for Precision/Recall);
- ``You must call compile() before using the model`` already says what to do.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Conv2D.call().
    Case(
        name="f22_predict_one_test_image_without_batch_axis",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(20, 28, 28, 1).astype("float32")
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
image = x_test[0]
probs = model.predict(image, verbose=0)
print("predicted digit:", probs.argmax())
""",
        expect="S12",
        must=("batch",),
        must_not=("padding",),
        fix="model.predict(image[None]) (or x_test[:1])",
    ),
    # InvalidArgumentError: {{function_node __wrapped__LogicalAnd_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [40] vs. [120] [Op:LogicalAnd] name:
    Case(
        name="f22_meaniou_updated_with_softmax_probabilities",
        family="evaluation_and_prediction",
        code="""
x_val = np.random.rand(40, 6).astype("float32")
y_val = np.random.randint(0, 3, 40)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])

iou = keras.metrics.MeanIoU(num_classes=3)
iou.update_state(y_val, model.predict(x_val, verbose=0))
print("mean IoU:", float(iou.result()))
""",
        expect="S07",
        must=("argmax",),
        must_not=("one-hot", "to_categorical"),
        fix="iou.update_state(y_val, probs.argmax(axis=-1))",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="f22_evaluate_one_hot_test_labels_sparse_loss",
        family="evaluation_and_prediction",
        code="""
x_train = np.random.rand(90, 6).astype("float32")
y_train = np.random.randint(0, 3, 90)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)

x_test = np.random.rand(30, 6).astype("float32")
y_test = keras.utils.to_categorical(np.random.randint(0, 3, 30), 3)  # prepared for another notebook
loss, acc = model.evaluate(x_test, y_test, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("return_sequences", "flatten"),
        fix="evaluate with y_test.argmax(axis=1) (the class ids the sparse loss takes)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__LogicalAnd_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [1,30] vs. [1,90] [Op:LogicalAnd] name:
    Case(
        name="f22_precision_metric_on_multiclass_ids_and_probs",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(30, 6).astype("float32")
y_test = np.random.randint(0, 3, 30)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])
probs = model.predict(x_test, verbose=0)

precision = keras.metrics.Precision()
precision.update_state(y_test, probs)
print("precision:", float(precision.result()))
""",
        expect="S07",
        must=("precision",),
        must_not=("argmax",),
        fix="one-hot labels (keras.utils.to_categorical(y_test, 3)), class_id=k for one class",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    Case(
        name="f22_predict_on_unbatched_tensor_slices_dataset",
        family="evaluation_and_prediction",
        code="""
x_new = np.random.rand(50, 8).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
new_ds = tf.data.Dataset.from_tensor_slices(x_new)
scores = model.predict(new_ds, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("flatten", "input_shape="),
        fix="new_ds.batch(32)",
    ),
    # ValueError: None values not supported.
    Case(
        name="f22_evaluate_on_dataset_of_features_only",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(40, 8).astype("float32")
y_test = np.random.randint(0, 2, 40)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])

test_ds = tf.data.Dataset.from_tensor_slices(x_test).batch(8)
loss, acc = model.evaluate(test_ds, verbose=0)
""",
        expect="S12",
        must=("label",),
        must_not=("batch the dataset", "expand_dims"),
        fix="tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(8)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    Case(
        name="f22_predict_test_matrix_keeps_id_column",
        family="evaluation_and_prediction",
        code="""
x_train = np.random.rand(100, 8).astype("float32")
y_train = np.random.rand(100).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x_train, y_train, epochs=1, verbose=0)

# the test file still has its "id" column in front of the 8 features
test_table = np.hstack([np.arange(25)[:, None], np.random.rand(25, 8)]).astype("float32")
preds = model.predict(test_table, verbose=0)
""",
        expect="S01",
        must=("9",),
        must_not=("flatten", "batch axis"),
        fix="drop the id column: model.predict(test_table[:, 1:])",
    ),
    # ValueError: You must call `compile()` before using the model.
    Case(
        name="f22_evaluate_loaded_architecture_before_compile",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(30, 6).astype("float32")
y_test = np.random.randint(0, 3, 30)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])
clone = keras.models.clone_model(model)
clone.set_weights(model.get_weights())
print(clone.evaluate(x_test, y_test, verbose=0))
""",
        expect=None,
        unexplained="the message says to call compile() before evaluate",
        must_not=("batch",),
        fix="clone.compile(loss=..., metrics=[...]) before evaluate",
    ),
]
