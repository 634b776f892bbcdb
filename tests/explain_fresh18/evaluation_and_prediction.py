"""Family ``evaluation_and_prediction``: what ``evaluate``/``predict`` return, and predictions compared with labels.

APIs: ``model.evaluate(x, y, ..., return_dict=False)`` returns the loss alone (no
metrics) or a LIST ``[loss, metric1, ...]`` in the order of ``model.metrics_names``, a
dict keyed by those names only with ``return_dict=True``; it needs labels (``y``, or a
dataset of ``(x, y)`` pairs); ``model.predict(x, batch_size=None, verbose=..., steps=...)``
takes only inputs (its second positional parameter is ``batch_size``) and returns NumPy
arrays with a leading batch axis: class probabilities ``(N, C)`` for a softmax head (a
class id needs ``argmax(axis=-1)``), ``(N, 1)`` for a sigmoid head, and the structure of
the model's outputs (a dict for a model built with a dict of outputs); a single example
must keep its batch axis (``x[None]``, ``np.expand_dims(x, 0)``); standalone
``keras.metrics`` objects (``update_state(y_true, y_pred)``) and TensorFlow ops
(``tf.equal``, ``tf.math.confusion_matrix``) want both sides in the same encoding:
``AUC`` takes the positive-class score ``probs[:, 1]`` for binary labels,
``confusion_matrix`` takes class ids on both sides.

Evidence a diagnosis needs: what the call returned (a list, a dict, a NumPy array, and its
shape) and how the cell used it (indexed by a string, unpacked), the shape of the array
passed to ``predict`` against the model's input shape (one example without a batch axis),
the positional argument that landed in ``batch_size``, whether the data given to
``evaluate`` has labels, and the shapes and encodings (class ids, one-hot, probabilities)
of the two sides compared.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: list indices must be integers or slices, not str
    Case(
        name="f18_evaluate_result_indexed_by_metric_name",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(12, 4).astype("float32")
y = np.arange(12) % 3
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
results = model.evaluate(x, y, verbose=0)
print("test accuracy:", results["accuracy"])
""",
        expect="S12",
        must=("return_dict",),
        must_not=("metrics=",),
        fix="model.evaluate(x, y, return_dict=True), or results[1]",
    ),
    # ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
    Case(
        name="f18_predict_called_with_test_labels_as_second_argument",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(10, 4).astype("float32")
y_test = np.arange(10) % 2
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
probs = model.predict(x_test, y_test, verbose=0)
""",
        expect="S12",
        must=("batch_size",),
        must_not=("a.any()", "a.all()"),
        fix="model.predict(x_test) (labels go to evaluate)",
    ),
    # ValueError: None values not supported.
    Case(
        name="f18_evaluate_on_test_dataset_built_without_labels",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(12, 4).astype("float32")
y_test = np.arange(12) % 3
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
test_ds = tf.data.Dataset.from_tensor_slices(x_test).batch(4)
loss, acc = model.evaluate(test_ds, verbose=0)
""",
        expect="S12",
        must=("labels",),
        must_not=("dtype", "float32"),
        fix="tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(4)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Equal_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [12] vs. [12,3] [Op:Equal] name:
    Case(
        name="f18_argmax_predictions_compared_with_one_hot_labels",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(12, 4).astype("float32")
y_onehot = keras.utils.to_categorical(np.arange(12) % 3, 3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
probs = model.predict(x, verbose=0)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(probs, axis=1), y_onehot), tf.float32))
""",
        expect="S07",
        must=("one-hot",),
        must_not=("keepdims", "expand_dims"),
        fix="compare with tf.argmax(y_onehot, axis=1)",
    ),
    # ValueError: Argument `segment_ids` and `data` should have same leading dimension. Got (24,) v.s. (12,).
    Case(
        name="f18_auc_metric_updated_with_two_column_softmax_probabilities",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(12, 4).astype("float32")
y = np.arange(12) % 2
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
probs = model.predict(x, verbose=0)
auc = keras.metrics.AUC()
auc.update_state(y, probs)
print("AUC:", float(auc.result()))
""",
        expect="S07",
        must=("[:, 1]",),
        must_not=("argmax",),
        fix="auc.update_state(y, probs[:, 1])",
    ),
    # AttributeError: 'str' object has no attribute 'argmax'
    Case(
        name="f18_dict_output_predictions_unpacked_like_a_tuple",
        family="evaluation_and_prediction",
        code="""
inp = keras.Input((4,))
h = keras.layers.Dense(8, activation="relu")(inp)
cls = keras.layers.Dense(3, activation="softmax", name="cls")(h)
box = keras.layers.Dense(4, name="box")(h)
detector = keras.Model(inp, {"cls": cls, "box": box})
x = np.random.rand(5, 4).astype("float32")
pred_cls, pred_box = detector.predict(x, verbose=0)
labels = pred_cls.argmax(axis=1)
""",
        expect="S12",
        must=("dict",),
        must_not=("np.array(",),
        fix='preds = detector.predict(x); preds["cls"].argmax(axis=1)',
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all inputs must match: ...
    #   values[0].shape = [12] != values[1].shape = [12,3] [Op:Pack] name: stack
    Case(
        name="f18_confusion_matrix_of_labels_against_probabilities",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(12, 4).astype("float32")
y = np.arange(12) % 3
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
probs = model.predict(x, verbose=0)
cm = tf.math.confusion_matrix(y, probs, num_classes=3)
""",
        expect="S07",
        must=("argmax",),
        must_not=("one-hot", "to_categorical"),
        fix="tf.math.confusion_matrix(y, probs.argmax(axis=1), num_classes=3)",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    #   Negative dimension size caused by subtracting 3 from 1 for '{{node .../convolution}} = Conv2D[...](...)'
    #   with input shapes: [8,8,1,1], [3,3,1,2].
    Case(
        name="f18_predict_on_one_image_from_a_list_of_images",
        family="evaluation_and_prediction",
        code="""
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Conv2D(2, 3),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3, activation="softmax"),
])
images = [np.random.rand(8, 8, 1).astype("float32") for _ in range(3)]
for img in images:
    probs = model.predict(img, verbose=0)
    print(probs.argmax())
""",
        expect="S12",
        must=("batch",),
        must_not=("padding", "kernel_size"),
        fix="model.predict(img[None]) (or np.stack(images) once)",
    ),
]
