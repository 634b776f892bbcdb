"""Family: evaluating a model and using its predictions.

The APIs and their documented contract:

- ``model.evaluate(x, y, batch_size, return_dict=False)`` needs a compiled model (a model
  loaded with ``load_model(..., compile=False)`` must be ``compile``d first) and targets that
  fit the compiled loss and metrics, in the same encoding as in training; it returns the
  scalar loss, or a list ``[loss, *metrics]`` in the order of ``model.metrics_names``, or a
  dict with ``return_dict=True``.  ``x`` may be a dataset yielding ``(x, y)`` (or
  ``(x, y, sample_weight)``); a dataset yielding only ``x`` has no targets to evaluate.
- ``model.predict(x, batch_size)`` returns NumPy outputs with a leading batch axis (a list /
  dict for several outputs).  ``x``: array(s) whose FIRST axis is the batch axis and whose
  other axes match the model's ``Input`` (the same number of features as in training);
  a ``tf.data.Dataset`` that is already BATCHED (``from_tensor_slices(x)`` alone yields single
  examples); a Python generator / ``PyDataset`` whose items are batches, given as a tuple
  ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.  ``predict_on_batch(x)`` runs one batch.
  ``model(x)`` (``__call__``) takes tensors / arrays with the batch axis; a single example
  needs ``x[None]`` / ``x[:1]`` / ``np.array([[...]])``, a bare Python list of numbers is read
  as a list of separate inputs.
- Comparing predictions with labels: a softmax head gives probabilities of shape
  ``(N, num_classes)``; class ids are ``np.argmax(probs, axis=1)``; a sigmoid head needs a
  threshold.  ``tf.math.confusion_matrix(labels, predictions, num_classes)`` takes two 1-D
  vectors of class ids of the same length.  Standalone metrics (``keras.metrics.*``):
  ``update_state(y_true, y_pred)``, ``result()``, ``reset_state()``; ``Accuracy`` compares
  values for equality, ``SparseCategoricalAccuracy`` takes ids vs probabilities.

Evidence a diagnosis needs to name the cause: what was passed (a list of scalars, one
example without batch axis, an unbatched dataset, a generator item that is not a tuple, a
dataset without targets) against what the model's input expects; the shapes of labels and
predictions handed to an op (ids ``(N,)`` vs probabilities ``(N, C)``); the label encoding
vs the compiled loss; the feature count of the new data vs the training input; whether
the model is compiled.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Only input tensors may be passed as positional arguments. The following argument value should be passed as a keyword argument: 5.1 (of type <class 'float'>)
    Case(
        name="f23_call_iris_model_on_python_list",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(60, 4).astype("float32") * 7
y = np.random.randint(0, 3, 60)
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
probs = model([5.1, 3.5, 1.4, 0.2])
print(np.argmax(probs))
""",
        expect="S12",
        must=("batch",),
        must_not=("keyword",),
        fix="model(np.array([[5.1, 3.5, 1.4, 0.2]])) with a batch axis",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... Expected shape (None, 28, 28), but input has incompatible shape (28, 28))
    Case(
        name="f23_predict_on_unbatched_slices_dataset",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(40, 28, 28).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
test_ds = tf.data.Dataset.from_tensor_slices(x_test)
probs = model.predict(test_ds, verbose=0)
""",
        expect="S01",
        must=("batch", "dataset"),
        must_not=("expand_dims", "channel"),
        fix="test_ds.batch(32) before predict",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all inputs must match: values[0].shape = [40] != values[1].shape = [40,10] [Op:Pack] name: stack
    Case(
        name="f23_confusion_matrix_from_softmax_probabilities",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(40, 28, 28).astype("float32")
y_test = np.random.randint(0, 10, 40)
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
y_pred = model.predict(x_test, verbose=0)
cm = tf.math.confusion_matrix(y_test, y_pred, num_classes=10)
print(cm)
""",
        expect="S07",
        must=("argmax",),
        must_not=("expand_dims", "to_categorical"),
        fix="tf.math.confusion_matrix(y_test, np.argmax(y_pred, axis=1))",
    ),
    # ValueError: You must call `compile()` before using the model.
    Case(
        name="f23_evaluate_model_loaded_without_compile",
        family="evaluation_and_prediction",
        code="""
x = np.random.rand(40, 12).astype("float32")
y = np.random.randint(0, 3, 40)
model = keras.Sequential([keras.Input(shape=(12,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
model.save("classifier.keras")
served = keras.saving.load_model("classifier.keras", compile=False)
loss, acc = served.evaluate(x, y, verbose=0)
""",
        expect=None,
        must_not=("custom_objects", "register_keras_serializable"),
        unexplained="Keras' message says to call compile() before evaluating",
        fix="served.compile(loss=..., metrics=[...]) or load_model without compile=False",
    ),
    # ValueError: When passing a Python generator to a Keras model, the generator must return a tuple, either (input,) or (inputs, targets) or (inputs, targets, sample_weights). Received: [[0.35 ...
    Case(
        name="f23_predict_generator_yielding_bare_arrays",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(40, 12).astype("float32")
model = keras.Sequential([keras.Input(shape=(12,)), keras.layers.Dense(1, activation="sigmoid")])
def batches(arr, size=8):
    for start in range(0, len(arr), size):
        yield arr[start:start + size]
scores = model.predict(batches(x_test), verbose=0)
""",
        expect=None,
        must_not=("expand_dims", "custom_objects"),
        unexplained="Keras' message says the generator must yield a tuple such as (input,)",
        fix="yield (arr[start:start + size],)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(32,), output.shape=(32, 10)
    Case(
        name="f23_evaluate_integer_test_labels_after_onehot_training",
        family="evaluation_and_prediction",
        code="""
x_train = np.random.rand(64, 784).astype("float32")
y_train = keras.utils.to_categorical(np.random.randint(0, 10, 64), 10)
x_test = np.random.rand(32, 784).astype("float32")
y_test = np.random.randint(0, 10, 32)
model = keras.Sequential([keras.Input(shape=(784,)), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("flatten", "return_sequences"),
        fix="evaluate with keras.utils.to_categorical(y_test, 10)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... layer 'dense' ... expected axis -1 of input shape to have value 12, but received input with shape (10, 11))
    Case(
        name="f23_predict_new_rows_missing_one_feature",
        family="evaluation_and_prediction",
        code="""
x_train = np.random.rand(40, 12).astype("float32")
y_train = np.random.randint(0, 3, 40)
model = keras.Sequential([
    keras.Input(shape=(12,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
x_new = np.random.rand(10, 11).astype("float32")
pred_class = model.predict(x_new, verbose=0).argmax(axis=1)
""",
        expect="S01",
        must=("12", "11"),
        must_not=("expand_dims", "batch the dataset"),
        fix="give the new data the same 12 feature columns as training",
    ),
    # ValueError: None values not supported.
    Case(
        name="f23_evaluate_feature_only_dataset",
        family="evaluation_and_prediction",
        code="""
x_test = np.random.rand(40, 12).astype("float32")
y_test = np.random.randint(0, 3, 40)
model = keras.Sequential([keras.Input(shape=(12,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
test_ds = tf.data.Dataset.from_tensor_slices(x_test).batch(8)
results = model.evaluate(test_ds, return_dict=True, verbose=0)
print(results["accuracy"])
""",
        expect="S12",
        must=("label",),
        must_not=("expand_dims", "compile()"),
        fix="from_tensor_slices((x_test, y_test)).batch(8)",
    ),
]
