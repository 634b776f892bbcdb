"""Family ``evaluation_and_prediction``: what ``evaluate`` and ``predict`` return, and how it is compared with labels.

APIs and contract: ``Model.evaluate`` returns the scalar loss when the model was compiled
without metrics, a list ``[loss, *metrics]`` otherwise, and a dict keyed by name with
``return_dict=True``; its ``x`` and ``y`` need the same number of samples and ``y`` must
be encoded for the compiled loss (integer ids for a sparse loss, one-hot rows for a
categorical one).  ``Model.predict`` takes a *batch* (a single example needs its batch
axis: ``x[None]`` or ``x[i:i+1]``; a ``tf.data`` dataset must be batched) and returns a
NumPy array of scores per class ``(N, C)`` (probabilities or logits, a column ``(N, 1)``
for one sigmoid unit), or a list/dict of arrays for a model with several outputs; class
ids come from ``argmax(axis=-1)``, binary decisions from a threshold, and both must have
the labels' shape before they are compared or given to a metric (``sklearn.metrics``,
``tf.math.confusion_matrix``, a standalone ``keras.metrics`` object whose
``update_state(y_true, y_pred)`` expects the encoding of that metric).

Evidence a diagnosis needs: what the call returned (a float, a list, a dict, an array and
its shape), how the model was compiled (metrics, loss and the label encoding it takes),
the shapes and dtypes of predictions and labels at the comparison, the dataset's element
spec (batched or not), and the sample counts of ``x`` and ``y``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: cannot unpack non-iterable float object
    Case(
        name="f19_unpack_loss_and_accuracy_from_evaluate_without_metrics",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(20, 6).astype("float32")
y = np.random.randint(0, 2, size=(20,))
model = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
loss, acc = model.evaluate(x, y, verbose=0)
""",
        expect="S12",
        must=("metrics",),
        must_not=("return_dict=false", "reshape"),
        fix='compile(..., metrics=["accuracy"]) (evaluate then returns [loss, accuracy])',
    ),
    # KeyError: 1
    Case(
        name="f19_evaluate_return_dict_indexed_by_position",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(24, 4).astype("float32")
y = np.random.randint(0, 3, size=(24,))
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
scores = model.evaluate(x, y, return_dict=True, verbose=0)
print("test accuracy:", scores[1])
""",
        expect="S12",
        must=("return_dict",),
        must_not=("sparse", "metrics="),
        fix='scores["accuracy"] (or drop return_dict and use scores[1])',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Invalid input shape for input Tensor("data:0", shape=(8,), dtype=float32) with name 'keras_tensor_94' and path ''. Expected shape (None, 8), but input
    Case(
        name="f19_predict_one_feature_row_without_batch_axis",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(10, 8).astype("float32")
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
probs = model.predict(x_test[0], verbose=0)
print("class:", probs.argmax())
""",
        expect="S12",
        must=("batch",),
        must_not=("flatten", "input_shape=(1"),
        fix="model.predict(x_test[0:1]) (or x_test[0][None])",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    #   Negative dimension size caused by subtracting 3 from 1 for '{{node sequential_11_1/conv2d_19_1/convolution}} = Conv2D[T=DT_FLOAT, data_format="NHWC",
    Case(
        name="f19_predict_on_unbatched_test_dataset_with_labels",
        family="evaluation_and_prediction",
        code="""
images = np.random.rand(12, 28, 28, 1).astype("float32")
labels = np.random.randint(0, 10, size=(12,))
test_ds = tf.data.Dataset.from_tensor_slices((images, labels))
model = keras.Sequential([
    keras.Input(shape=(28, 28, 1)),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
probs = model.predict(test_ds, verbose=0)
""",
        expect="S12",
        must=("batch(",),
        must_not=("without labels", "expand_dims"),
        fix="model.predict(test_ds.batch(32))",
    ),
    # ValueError: Classification metrics can't handle a mix of multiclass and continuous-multioutput targets
    Case(
        name="f19_sklearn_accuracy_score_on_softmax_probabilities",
        family="evaluation_and_prediction",
        code="""
from sklearn.metrics import accuracy_score
x_test = np.random.rand(15, 5).astype("float32")
y_test = np.random.randint(0, 4, size=(15,))
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(4, activation="softmax")])
y_pred = model.predict(x_test, verbose=0)
print("accuracy:", accuracy_score(y_test, y_pred))
""",
        expect="S07",
        must=("argmax",),
        must_not=("> 0.5", "round"),
        fix="accuracy_score(y_test, y_pred.argmax(axis=1))",
    ),
    # ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input shapes: y_pred.shape=(16, 1) and y_true.shape=(16,).
    Case(
        name="f19_standalone_f1score_with_flat_labels_and_sigmoid_column",
        family="evaluation_and_prediction",
        code="""
x_val = np.random.rand(16, 3).astype("float32")
y_val = np.random.randint(0, 2, size=(16,)).astype("float32")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="sigmoid")])
probs = model.predict(x_val, verbose=0)
f1 = keras.metrics.F1Score(threshold=0.5)
f1.update_state(y_val, probs)
print("F1:", float(f1.result()[0]))
""",
        expect="S07",
        must=("(16,)",),
        must_not=("argmax", "squeeze"),
        fix="f1.update_state(y_val[:, None], probs) (labels as a (16, 1) column)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 5), output.shape=(None, 5)
    Case(
        name="f19_evaluate_one_hot_test_labels_on_sparse_compiled_model",
        family="evaluation_and_prediction",
        code="""
x_train = np.random.rand(30, 6).astype("float32")
y_train = np.random.randint(0, 5, size=(30,))
x_test = np.random.rand(10, 6).astype("float32")
y_test = keras.utils.to_categorical(np.random.randint(0, 5, size=(10,)), 5)
model = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)
""",
        expect="M05",
        must=("to_categorical",),
        must_not=("dense(1", "flatten"),
        fix="evaluate on the integer labels (y_test.argmax(axis=1))",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of samples.'x' sizes: 20
    Case(
        name="f19_evaluate_test_features_against_training_labels",
        family="evaluation_and_prediction",
        code="""
x_train = np.random.rand(80, 4).astype("float32")
y_train = np.random.randint(0, 2, size=(80,))
x_test = np.random.rand(20, 4).astype("float32")
y_test = np.random.randint(0, 2, size=(20,))
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
results = model.evaluate(x_test, y_train, verbose=0)
""",
        expect="S12",
        must=("y_train",),
        must_not=("batch_size", "drop_remainder"),
        fix="model.evaluate(x_test, y_test)",
    ),
]
