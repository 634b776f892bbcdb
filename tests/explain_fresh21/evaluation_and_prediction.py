"""Family: evaluating and predicting, and comparing predictions with labels.

The APIs and their documented contract:

- ``Model.evaluate(x, y, batch_size=None, verbose, sample_weight, steps, return_dict=False)``
  returns the SCALAR test loss when the model has a single output and no metrics, otherwise
  a list of scalars in the order of ``model.metrics_names`` (``["loss", "compile_metrics"]``
  style names in Keras 3); ``return_dict=True`` returns a dict keyed by those names.  So
  ``loss, acc = model.evaluate(...)`` needs ``metrics=[...]`` in ``compile``.  ``y`` must
  have the structure of the outputs (a list or dict for a multi-output model).
- ``Model.predict(x, batch_size=None, verbose, steps)`` and ``predict_on_batch(x)`` return
  NumPy arrays in the structure of the model's outputs: one array for one output, a list for
  a list of outputs, a DICT keyed by output names for a dict of outputs.  ``x`` is ALWAYS a
  batch: its first axis is the batch axis, so a single example of shape ``(4,)`` must be
  passed as ``(1, 4)`` (``sample[None]``, ``np.expand_dims(sample, 0)``); a
  ``tf.data.Dataset`` is used as it is, so an unbatched dataset yields single examples
  without their batch axis (``ds.batch(n)`` first).  A model with named (dict) inputs needs a
  dict with exactly those keys ("Missing data for input ...").  The features must be numeric:
  a pandas DataFrame is converted to one float array, and a string column cannot become
  float32 ("could not convert string to float").  ``model(x)`` (``__call__``) returns a
  tensor and also takes a batch.
- A classifier's predictions are scores: ``(N, C)`` softmax probabilities for C classes, or
  ``(N, 1)`` sigmoid probabilities; class ids come from ``np.argmax(pred, axis=-1)`` or
  ``pred > 0.5``.  ``tf.math.confusion_matrix(labels, predictions, num_classes)`` and
  sklearn's metrics take 1-D class ids of equal length for both arguments, not a probability
  matrix.
- Standalone metrics (``keras.metrics.*``): ``update_state(y_true, y_pred, sample_weight)``
  (labels FIRST), ``result()``, ``reset_state()``.  Each metric has its own label encoding:
  ``SparseCategoricalAccuracy`` takes integer ids, ``CategoricalAccuracy`` and
  ``F1Score``/``FBetaScore`` take one-hot (2-D ``(batch, num_classes)``) labels ("FBetaScore
  expects 2D inputs with shape (batch_size, output_dim)"), ``AUC``/``Precision``/``Recall``
  take probabilities in [0, 1] unless ``from_logits``/``thresholds`` say otherwise.

Evidence a diagnosis needs: what the call returned (a float, a list, a dict and its keys) and
what the user's code did with it (unpacking two names, indexing ``[0]``), the model's
compiled metrics and output names, the shape of what was passed against the model's input
shape (a missing batch axis, an unbatched dataset's element spec), the dtypes and column
names of a DataFrame, the shapes and value ranges of predictions against labels (a
probability matrix where class ids were expected), and the label encoding a metric needs.
"""

from tests.explain_corpus import Case

CASES = [
    # TypeError: cannot unpack non-iterable float object
    Case(
        name="f21_evaluate_unpacked_without_metrics",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(100, 8).astype("float32")
y = np.random.randint(0, 2, (100, 1))
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=2, verbose=0)
test_loss, test_acc = model.evaluate(x, y, verbose=0)
print(f"accuracy: {test_acc:.3f}")
""",
        expect="S12",
        must=("metrics",),
        must_not=("sparse",),
        fix='compile(..., metrics=["accuracy"]) so evaluate returns [loss, accuracy]',
    ),
    # ValueError: Exception encountered when calling Sequential.call(). (Invalid input shape for input Tensor("data:0", shape=(4,), dtype=float32) ... Expected shape (None, 4), but input has incompatible shape (4,))
    Case(
        name="f21_predict_one_iris_flower",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(150, 4).astype("float32")
y = np.random.randint(0, 3, 150)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
sample = np.array([5.1, 3.5, 1.4, 0.2], dtype="float32")
probs = model.predict(sample, verbose=0)
print("class:", probs.argmax())
""",
        expect="S12",
        must=("batch",),
        must_not=("flatten",),
        fix="model.predict(sample[None]) (shape (1, 4))",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). (Invalid input shape for input Tensor("data:0", shape=(16, 16, 3), dtype=float32) ... Expected shape (None, 16, 16, 3), but input has incompatible shape (16, 16, 3))
    Case(
        name="f21_predict_on_unbatched_image_dataset",
        family="evaluation_and_prediction",
        code="""
images = np.random.rand(20, 16, 16, 3).astype("float32")
model = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(4, 3),
                          keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(2, activation="softmax")])
test_ds = tf.data.Dataset.from_tensor_slices(images)
preds = model.predict(test_ds, verbose=0)
""",
        expect="S12",
        must=("batch", "dataset"),
        must_not=("flatten",),
        fix="test_ds.batch(32) before predict",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all inputs must match: values[0].shape = [60] != values[1].shape = [60,3] [Op:Pack] name: stack
    Case(
        name="f21_confusion_matrix_of_probabilities",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(60, 5).astype("float32")
y = np.random.randint(0, 3, 60)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
pred = model.predict(x, verbose=0)
cm = tf.math.confusion_matrix(y, pred, num_classes=3)
""",
        expect="S07",
        must=("argmax",),
        must_not=("reshape",),
        fix="tf.math.confusion_matrix(y, np.argmax(pred, axis=-1), num_classes=3)",
    ),
    # KeyError: 0
    Case(
        name="f21_index_dict_outputs_of_predict",
        family="evaluation_and_prediction",
        code="""
inp = keras.Input((6,), name="features")
h = keras.layers.Dense(16, activation="relu")(inp)
model = keras.Model(inp, {
    "price": keras.layers.Dense(1, name="price")(h),
    "category": keras.layers.Dense(4, activation="softmax", name="category")(h),
})
preds = model.predict(np.random.rand(10, 6).astype("float32"), verbose=0)
price_pred = preds[0]
""",
        expect="S12",
        must=("price",),
        must_not=("batch axis",),
        fix='predict returns a dict: preds["price"]',
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys ['Age', 'Income']. Expected the following keys: ['age', 'income']
    Case(
        name="f21_predict_dict_keys_capitalized",
        family="evaluation_and_prediction",
        code="""
age = keras.Input((1,), name="age")
income = keras.Input((1,), name="income")
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([age, income]))
model = keras.Model({"age": age, "income": income}, out)
data = {"Age": np.random.rand(8, 1).astype("float32"),
        "Income": np.random.rand(8, 1).astype("float32")}
model.predict(data, verbose=0)
""",
        expect=None,
        must_not=("batch axis",),
        unexplained="Keras names the missing input, the keys that were passed and the keys "
        "it expects.",
        fix="use the input names as keys: {'age': ..., 'income': ...}",
    ),
    # ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input shapes: y_pred.shape=(5, 3) and y_true.shape=(5,).
    Case(
        name="f21_f1score_update_with_class_ids",
        family="evaluation_and_prediction",
        code="""
y_true = np.array([0, 2, 1, 2, 0])
y_prob = np.random.dirichlet(np.ones(3), size=5).astype("float32")
f1 = keras.metrics.F1Score(average="macro")
f1.update_state(y_true, y_prob)
print(f1.result())
""",
        expect="M05",
        must=("one-hot",),
        must_not=("from_logits",),
        fix="one-hot labels: f1.update_state(keras.utils.to_categorical(y_true, 3), y_prob)",
    ),
    # ValueError: could not convert string to float: 'Bergen'
    Case(
        name="f21_predict_dataframe_with_city_column",
        family="evaluation_and_prediction",
        code="""
import pandas as pd

test_df = pd.DataFrame({"rooms": np.random.randint(1, 6, 40),
                        "area": np.random.rand(40) * 100,
                        "city": np.random.choice(["Oslo", "Bergen"], 40)})
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
preds = model.predict(test_df, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("label",),
        fix="encode the city column (one-hot / StringLookup) before predict",
    ),
]
