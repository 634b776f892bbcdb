"""Family ``tabular_inputs``: pandas DataFrames and NumPy tables fed to Keras models.

APIs: ``model.fit``/``predict`` with a ``pandas.DataFrame`` (Keras converts it with
``np.asarray``: every column must be numeric, an ``object``/string column makes an array of
Python objects that cannot become a float tensor; missing values are ``NaN`` in numeric
columns and ``None``/``NaN`` in text ones), ``pd.get_dummies`` (makes one column per value
*seen in the frame it is given*, so a test frame with fewer categories gets fewer columns
than the model's ``Input``), multi-input functional models fed a dict keyed by the
``Input`` names or a list in the order of ``model.inputs``, and the preprocessing layers
``Normalization`` (``adapt`` on numeric data only), ``StringLookup``/``IntegerLookup``
(vocabulary from ``adapt``; output integer ids, ``num_oov_indices`` ids reserved first),
``CategoryEncoding`` (``num_tokens`` must exceed every id it receives), ``Discretization``,
``Hashing`` and ``keras.utils.FeatureSpace`` (``adapt`` on a dataset of feature dicts only,
without labels; called on a dict that has every declared feature).

Evidence a diagnosis needs: the frame's columns and their dtypes (which one is ``object``
or holds ``NaN``), the column count the model's ``Input`` expects against the count of the
frame passed (and where the difference came from: ``get_dummies`` on each split), the
names of the model's inputs against the keys or the number of arrays given, the largest id
a lookup or encoding layer receives against its ``num_tokens``, and the element structure of
the dataset given to ``FeatureSpace.adapt``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: could not convert string to float: 'Lyon'
    Case(
        name="f18_dataframe_with_text_city_column_into_fit",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "rooms": [3, 2, 4, 3, 5, 2],
    "area": [70.0, 55.5, 98.0, 80.2, 120.0, 48.0],
    "city": ["Lyon", "Paris", "Lyon", "Nice", "Paris", "Nice"],
    "price": [210.0, 340.0, 260.0, 230.0, 520.0, 180.0],
})
x = df.drop(columns=["price"])
y = df["price"]
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=('astype("float32")', "reshape"),
        fix="one-hot or StringLookup-encode the city column before fit",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_...' is incompatible with the layer: expected axis -1 of
    #   input shape to have value 4, but received input with shape (3, 3)
    Case(
        name="f18_get_dummies_on_test_split_drops_an_unseen_colour",
        family="tabular_inputs",
        code="""
import pandas as pd
train = pd.DataFrame({"size": [1.0, 2.0, 3.0, 1.5, 2.5, 0.5],
                      "colour": ["red", "green", "blue", "red", "blue", "green"]})
test = pd.DataFrame({"size": [1.2, 2.2, 0.7], "colour": ["red", "blue", "red"]})
y_train = np.array([0, 1, 1, 0, 1, 0])
x_train = pd.get_dummies(train, columns=["colour"]).astype("float32")
x_test = pd.get_dummies(test, columns=["colour"]).astype("float32")
model = keras.Sequential([keras.Input((x_train.shape[1],)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
probs = model.predict(x_test, verbose=0)
""",
        expect="S01",
        must=("get_dummies",),
        must_not=("flatten", "expand_dims"),
        fix="x_test.reindex(columns=x_train.columns, fill_value=0)",
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float).
    Case(
        name="f18_stringlookup_on_colour_column_with_missing_values",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"colour": ["red", None, "blue", "green", np.nan, "red"]})
lookup = keras.layers.StringLookup()
lookup.adapt(df["colour"].to_numpy())
""",
        expect="N05",
        must=("nan",),
        must_not=("float32",),
        fix='df["colour"].fillna("missing") before adapt',
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys ['Age', 'Income']. ...
    #   Expected the following keys: ['age', 'income']
    Case(
        name="f18_dict_inputs_keyed_by_capitalised_column_names",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"Age": [23.0, 35.0, 41.0, 52.0], "Income": [31.0, 48.5, 52.0, 61.2],
                   "Bought": [0, 1, 1, 0]})
age = keras.Input((1,), name="age")
income = keras.Input((1,), name="income")
h = keras.layers.Concatenate()([age, income])
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model({"age": age, "income": income}, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
features = {name: df[name].to_numpy() for name in ["Age", "Income"]}
model.fit(features, df["Bought"].to_numpy(), epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names the missing input 'age', the keys passed and the keys expected",
        fix='key the dict by the Input names: {"age": df["Age"], "income": df["Income"]}',
    ),
    # UnimplementedError: Graph execution error:
    #   ... Cast string to float is not supported
    Case(
        name="f18_yes_no_churn_labels_into_binary_crossentropy",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"tenure": [1.0, 24.0, 5.0, 60.0, 12.0, 3.0],
                   "charges": [70.1, 20.5, 99.0, 45.3, 60.0, 80.8],
                   "churn": ["yes", "no", "yes", "no", "no", "yes"]})
x = df[["tenure", "charges"]].to_numpy("float32")
y = df["churn"].to_numpy()
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("churn",),
        must_not=("sparse",),
        fix='y = (df["churn"] == "yes").astype("float32")',
    ),
    # InvalidArgumentError: Graph execution error:
    #   Detected at node functional_.../embedding_.../GatherV2 ...
    #   indices[...] = 4 is not in [0, 4)
    Case(
        name="f18_store_id_embedding_sized_by_count_of_unique_ids",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"store_id": [1, 4, 2, 4, 3, 1], "promo": [0.0, 1.0, 1.0, 0.0, 1.0, 0.0],
                   "sales": [12.0, 30.5, 22.0, 28.0, 25.0, 10.0]})
n_stores = df["store_id"].nunique()
store = keras.Input((1,), name="store_id", dtype="int32")
promo = keras.Input((1,), name="promo")
emb = keras.layers.Flatten()(keras.layers.Embedding(input_dim=n_stores, output_dim=3)(store))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([emb, promo]))
model = keras.Model({"store_id": store, "promo": promo}, out)
model.compile(optimizer="adam", loss="mse")
model.fit({"store_id": df["store_id"].to_numpy(), "promo": df["promo"].to_numpy("float32")},
          df["sales"].to_numpy("float32"), epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("batch size", "float32"),
        fix='input_dim=df["store_id"].max() + 1 (ids run 1..4)',
    ),
    # ValueError: Layer "functional_..." expects 3 named input(s) with keys ['age', 'income', 'visits'], but it received 2 input tensors. ...
    #   Pass inputs as a dict, e.g. `layer({'age': ..., 'income': ..., 'visits': ...})`.
    Case(
        name="f18_three_input_model_fed_two_columns",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"age": [23.0, 35.0, 41.0, 52.0, 30.0], "income": [31.0, 48.5, 52.0, 61.2, 40.0],
                   "visits": [3.0, 1.0, 7.0, 2.0, 4.0], "label": [0, 1, 1, 0, 1]})
inputs = [keras.Input((1,), name=n) for n in ["age", "income", "visits"]]
h = keras.layers.Concatenate()(inputs)
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model(inputs, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit([df["age"], df["income"]], df["label"], epochs=1, verbose=0)
""",
        expect="S12",
        must=("visits",),
        must_not=("concatenate", "axis"),
        fix='pass all three columns: [df["age"], df["income"], df["visits"]]',
    ),
    # TypeError: FeatureSpace.adapt.<locals>.<lambda>() takes 1 positional argument but 2 were given
    Case(
        name="f18_featurespace_adapted_on_dataset_with_labels",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"age": [23.0, 35.0, 41.0, 52.0], "job": ["a", "b", "a", "c"], "target": [0, 1, 1, 0]})
labels = df.pop("target")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels))
fs = keras.utils.FeatureSpace(
    features={"age": keras.utils.FeatureSpace.float_normalized(),
              "job": keras.utils.FeatureSpace.string_categorical()},
    output_mode="concat",
)
fs.adapt(ds)
""",
        expect="S12",
        must=("adapt",),
        must_not=("batch",),
        fix="fs.adapt(ds.map(lambda x, y: x))",
    ),
]
