"""Family ``fit_arguments``: ``Model.fit`` / ``evaluate`` / ``predict`` given arguments against their contract.

APIs: ``Model.fit(x, y, sample_weight=, class_weight=, validation_data=, callbacks=)`` as
documented in Keras 3: ``x`` is an array (or a list of arrays, one per model input), a dict
keyed by the *names of the model's inputs* (``keras.Input(name=...)``), a ``tf.data``
dataset, a ``PyDataset`` or a generator; a generator must yield *batches* ``(x, y)`` or
``(x, y, sample_weight)`` (Keras does not batch it); ``sample_weight`` is an array with one
weight per sample, while per-class weights go to ``class_weight`` (a dict class id ->
weight); ``validation_data`` is ``(x_val, y_val)`` or ``(x_val, y_val, val_sample_weight)``
(its batch size is ``validation_batch_size``); every array holds numbers (a text column
must be encoded first); with ``categorical_crossentropy`` the one-hot targets need as many
columns as the model has output units (``to_categorical`` infers the count from the
largest id present unless ``num_classes`` is given); ``ModelCheckpoint`` writes a
``.keras`` file unless ``save_weights_only=True``.

Evidence a diagnosis needs: what each argument received (its type, shape, dtype, length,
keys) against what the model and the contract take (the model's input names, number of
inputs, output width), and where a wrong value came from (a Python list of rows, a class
dict passed as ``sample_weight``, a batch size in the third slot of ``validation_data``, a
generator that yields single rows, a DataFrame column of strings, ``to_categorical``
without ``num_classes`` on a split that lacks the last class).
"""

from __future__ import annotations

from tests.explain_corpus import Case

_SETUP = """
model = keras.Sequential(
    [
        keras.Input((4,)),
        keras.layers.Dense(8, activation="relu"),
        keras.layers.Dense(3, activation="softmax"),
    ]
)
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 4).astype("float32")
y = np.array([0, 1, 2, 1, 0, 2, 1, 0])
"""

CASES = [
    # ValueError: Missing data for input "age_years". You passed a data dictionary with keys
    # ['age', 'income']. Expected the following keys: ['age_years', 'income_k']
    Case(
        name="fit_dict_keyed_by_column_names_not_input_names",
        family="fit_arguments",
        code="""
age_in = keras.Input((1,), name="age_years")
inc_in = keras.Input((1,), name="income_k")
h = keras.layers.Concatenate()([age_in, inc_in])
model = keras.Model([age_in, inc_in], keras.layers.Dense(1)(h))
model.compile("adam", "mse")
features = {"age": np.random.rand(6, 1), "income": np.random.rand(6, 1)}
model.fit(features, np.random.rand(6, 1), epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message lists the keys passed and the input names expected",
        fix='key the dict by "age_years" and "income_k"',
    ),
    # ValueError: Unrecognized data type: x=[[...]] (of type <class 'numpy.ndarray'>)
    Case(
        name="validation_data_with_the_batch_size_as_third_element",
        family="fit_arguments",
        code=_SETUP
        + """
model.fit(x, y, validation_data=(x[:3], y[:3], 32), epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("validation_split",),
        fix="validation_data=(x_val, y_val), validation_batch_size=32",
    ),
    # ValueError: Unrecognized data type: x=[[...]] (of type <class 'numpy.ndarray'>)
    Case(
        name="sample_weight_given_a_class_weight_dict",
        family="fit_arguments",
        code=_SETUP
        + """
model.fit(x, y, sample_weight={0: 1.0, 1: 2.0, 2: 4.0}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("class_weight",),
        must_not=("astype",),
        fix="class_weight={0: 1.0, 1: 2.0, 2: 4.0}",
    ),
    # ValueError: When passing a dataset to a Keras model, the arrays must be at least rank 1.
    # Received: 0 of rank 0.
    Case(
        name="generator_yields_one_row_at_a_time",
        family="fit_arguments",
        code=_SETUP
        + """
def rows():
    while True:
        for xi, yi in zip(x, y):
            yield xi, yi
model.fit(rows(), steps_per_epoch=4, epochs=1, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("padded_batch",),
        fix="yield batches x[i:i+2], y[i:i+2] (or from_generator(...).batch(2))",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of
    # samples.'x' sizes: 4, 4, 4, 4, 4, 4, 4, 4
    Case(
        name="fit_on_a_python_list_of_row_arrays",
        family="fit_arguments",
        code=_SETUP
        + """
rows = [np.random.rand(4).astype("float32") for _ in range(8)]
model.fit(rows, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("list",),
        must_not=("truncate",),
        fix="np.stack(rows)",
    ),
    # ValueError: could not convert string to float: 'oslo'
    Case(
        name="pandas_frame_with_a_city_text_column",
        family="fit_arguments",
        code="""
import pandas as pd
df = pd.DataFrame(
    {
        "rooms": [2, 3, 4, 3, 5, 2],
        "area": [50.0, 70.0, 90.0, 65.0, 120.0, 45.0],
        "city": ["oslo", "bergen", "oslo", "trondheim", "bergen", "oslo"],
        "price": [1.0, 1.4, 2.0, 1.2, 2.5, 0.9],
    }
)
x = df.drop(columns="price")
model = keras.Sequential(
    [keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
)
model.compile("adam", "mse")
model.fit(x, df["price"], epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("float64",),
        fix="encode city (pd.get_dummies or StringLookup) before fit",
    ),
    # ValueError: The filepath provided must end in `.keras` (Keras model format).
    # Received: filepath=best_model
    Case(
        name="model_checkpoint_path_without_keras_extension",
        family="fit_arguments",
        code=_SETUP
        + """
checkpoint = keras.callbacks.ModelCheckpoint("best_model", save_best_only=True)
model.fit(x, y, epochs=1, verbose=0, callbacks=[checkpoint])
""",
        expect=None,
        unexplained="the message says the filepath must end in .keras",
        fix='ModelCheckpoint("best_model.keras", ...)',
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    # Received: target.shape=(None, 2), output.shape=(None, 3)
    Case(
        name="validation_one_hot_made_without_num_classes_lacks_a_class",
        family="fit_arguments",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
x_train, y_train_ids = np.random.rand(6, 4), np.array([0, 1, 2, 1, 0, 2])
x_val, y_val_ids = np.random.rand(3, 4), np.array([0, 1, 1])
y_train = keras.utils.to_categorical(y_train_ids)
y_val = keras.utils.to_categorical(y_val_ids)
model.fit(x_train, y_train, validation_data=(x_val, y_val), epochs=1, verbose=0)
""",
        expect="M04",
        must=("num_classes",),
        must_not=("sparse_categorical_crossentropy", "dense(2"),
        fix="to_categorical(y_val_ids, num_classes=3)",
    ),
]
