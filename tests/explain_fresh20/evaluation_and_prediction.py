"""Family: evaluation and prediction, and what the metric APIs take and return.

The APIs and their documented contract (Keras 3):

- ``model.predict(x, batch_size=None, verbose="auto", steps=None)``: ``x`` is a NumPy
  array / tensor (or a list or dict of them for a multi-input model) whose FIRST axis is
  the batch, a ``tf.data.Dataset`` that already yields batches (Keras does not batch a
  dataset), or a Python generator that yields tuples ``(inputs,)``, ``(inputs, targets)``
  or ``(inputs, targets, sample_weights)`` of batches.  It returns a NumPy array of
  shape ``(N, *output_shape)`` (a list/dict for several outputs).  A single example must
  keep a batch axis of 1 (``x[None]``, ``x[i:i+1]``, ``np.expand_dims(x, 0)``); an array
  missing the batch axis is read as a batch of smaller examples (Keras may even expand
  the last axis itself, so a conv layer later fails with "Negative dimension size").
  Numeric inputs must have a numeric dtype: an array of digit strings (a CSV read as
  text) is refused ("Invalid dtype: str96").
- ``model.predict_on_batch(x)`` / ``model(x, training=False)`` take ONE batch as arrays
  or tensors.  A model built from several ``keras.Input(name=...)`` takes one array per
  input (a list in input order, or a dict keyed by input name); one concatenated array
  is refused ("expects 2 named input(s) ... received 1 input tensors").
- ``model.evaluate(x, y, batch_size, return_dict=False)``: needs targets: ``y`` with
  arrays, or a dataset/generator yielding ``(x, y[, sample_weight])``; a dataset of
  inputs only gives the compiled loss ``y_true=None`` ("None values not supported").
  Returns a scalar loss, or a list ordered like ``model.metrics_names``, or a dict with
  ``return_dict=True``.
- Standalone metrics: ``m.update_state(y_true, y_pred, sample_weight=None)``,
  ``m.result()``, ``m.reset_state()``.  Each class has its own label contract:
  ``Accuracy`` compares values for equality; ``SparseCategoricalAccuracy`` takes class
  ids ``(N,)`` against scores ``(N, C)``; ``CategoricalAccuracy``, ``F1Score`` /
  ``FBetaScore`` (2-D ``(batch, num_classes)`` on both sides), ``AUC``, ``Precision``,
  ``Recall`` take ``y_true`` with the SAME shape as ``y_pred`` (one-hot or multi-hot).
- Comparing predictions with labels: ``tf.math.confusion_matrix(labels, predictions,
  num_classes=None)`` takes two 1-D vectors of class ids of the same length, so softmax
  scores ``(N, C)`` need ``argmax(axis=1)`` first and one-hot labels need it too.

Evidence a diagnosis needs: the shape and dtype of what was passed against the model's
``Input`` spec (rank, batch axis, number and names of inputs); whether a dataset is
batched (its ``element_spec``) and whether its elements carry targets; the metric class
and the encoding its ``y_true``/``y_pred`` contract wants versus the shapes received
(class ids vs scores vs one-hot); the structure a generator yields.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "evaluation_and_prediction"

CASES = [
    # ValueError: Exception encountered when calling Conv2D.call().
    # (Negative dimension size caused by subtracting 3 from 1 ... input shapes: [28,28,1,1])
    Case(
        name="f20_predict_one_digit_image_without_batch_axis",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
x_test = np.random.rand(5, 28, 28, 1).astype("float32")
probs = model.predict(x_test[0], verbose=0)
print("digit:", probs.argmax())
""",
        expect="S12",
        must=("batch",),
        must_not=("padding",),
        fix="model.predict(x_test[:1]) (keep a batch axis of 1)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_...}} Shapes of all
    # inputs must match: values[0].shape = [30] != values[1].shape = [30,3] [Op:Pack] name: stack
    Case(
        name="f20_confusion_matrix_of_softmax_scores",
        family=FAMILY,
        code="""
x_test = np.random.rand(30, 4).astype("float32")
y_test = np.random.randint(0, 3, 30)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
y_pred = model.predict(x_test, verbose=0)
cm = tf.math.confusion_matrix(y_test, y_pred, num_classes=3)
""",
        expect="S07",
        must=("argmax",),
        must_not=("to_categorical",),
        fix="tf.math.confusion_matrix(y_test, y_pred.argmax(axis=1))",
    ),
    # ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received
    # input shapes: y_pred.shape=(30, 3) and y_true.shape=(30,).
    Case(
        name="f20_f1_score_metric_fed_class_ids",
        family=FAMILY,
        code="""
x_test = np.random.rand(30, 4).astype("float32")
y_test = np.random.randint(0, 3, 30)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
f1 = keras.metrics.F1Score(average="macro")
f1.update_state(y_test, model.predict(x_test, verbose=0))
print("macro F1:", float(f1.result()))
""",
        expect="M05",
        must=("F1",),
        must_not=("sparse_categorical",),
        fix="f1.update_state(keras.utils.to_categorical(y_test, 3), probs)",
    ),
    # ValueError: Layer "functional_N" expects 2 named input(s) with keys ['numeric', 'region'],
    # but it received 1 input tensors. Pass inputs as a dict, e.g. `layer({'numeric': ..., ...})`.
    Case(
        name="f20_two_input_model_predicted_on_stacked_array",
        family=FAMILY,
        code="""
numeric = keras.Input((4,), name="numeric")
region = keras.Input((2,), name="region")
merged = keras.layers.Concatenate()([numeric, region])
model = keras.Model([numeric, region], keras.layers.Dense(1)(merged))
x_num = np.random.rand(10, 4).astype("float32")
x_region = np.random.rand(10, 2).astype("float32")
prices = model.predict(np.hstack([x_num, x_region]), verbose=0)
""",
        expect="S12",
        must=("numeric", "region"),
        must_not=("expand_dims",),
        fix="model.predict({'numeric': x_num, 'region': x_region})",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape ... Expected shape (None, 4), but input has incompatible shape (4,))
    Case(
        name="f20_predict_on_unbatched_test_dataset",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
x_test = np.random.rand(10, 4).astype("float32")
test_ds = tf.data.Dataset.from_tensor_slices(x_test)
scores = model.predict(test_ds, verbose=0)
""",
        expect="S01",
        must=("batch", "dataset"),
        must_not=("Flatten",),
        fix="test_ds.batch(32)",
    ),
    # ValueError: Invalid dtype: str96
    Case(
        name="f20_predict_on_rows_read_as_text",
        family=FAMILY,
        code="""
import csv, io
text = "5.1,3.5,1.4,0.2\\n6.2,2.9,4.3,1.3\\n7.7,3.0,6.1,2.3\\n"
rows = list(csv.reader(io.StringIO(text)))
x_new = np.array(rows)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
species = model.predict(x_new, verbose=0).argmax(axis=1)
""",
        expect="S11",
        must=("str", "float"),
        must_not=("StringLookup",),
        fix="x_new.astype('float32')",
    ),
    # ValueError: None values not supported.
    Case(
        name="f20_evaluate_dataset_without_labels",
        family=FAMILY,
        code="""
x_test = np.random.rand(32, 4).astype("float32")
y_test = np.random.randint(0, 2, (32, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
test_ds = tf.data.Dataset.from_tensor_slices(x_test).batch(8)
loss, acc = model.evaluate(test_ds, verbose=0)
""",
        expect="S12",
        must=("label",),
        must_not=("Flatten",),
        fix="Dataset.from_tensor_slices((x_test, y_test)).batch(8)",
    ),
    # ValueError: When passing a Python generator to a Keras model, the generator must return
    # a tuple, either (input,) or (inputs, targets) or (inputs, targets, sample_weights). ...
    Case(
        name="f20_predict_generator_yields_bare_arrays",
        family=FAMILY,
        code="""
def batches():
    for _ in range(3):
        yield np.random.rand(8, 4).astype("float32")

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
preds = model.predict(batches(), verbose=0)
""",
        expect=None,
        must_not=("output_signature",),
        unexplained="the message says a generator passed to a Keras model must yield a tuple "
        "(input,) or (inputs, targets) and shows the bare array it got",
        fix="yield (batch,)",
    ),
]
