"""Family: which DataFrame columns reach a Keras model, at fit time and afterwards.

API: ``Model.fit``/``predict``/``evaluate`` given a pandas DataFrame, ``df.values`` /
``df.to_numpy(dtype)``, ``df.drop(columns=...)``, ``df.pop(col)``, ``df.dropna``,
``pd.get_dummies`` (bool dummy columns by default since pandas 2),
``df.select_dtypes(include="number")``, ``sklearn.model_selection.train_test_split``,
``dict(df)`` into a functional model whose ``keras.Input(name=...)`` names are column
names, and ``tf.data.Dataset.from_tensor_slices((dict(df), labels))``.  Contract
(documented): a model's ``keras.Input(shape=(k,))`` fixes its width when it is built,
so every frame given to ``fit``, ``predict`` and ``evaluate`` later must hold the same
k numeric feature columns in the same order, without the label column and without
string/object/datetime columns; a frame with bool and float columns turns into an
object array through ``.values`` / ``to_numpy()`` (no common numeric dtype), which no
tensor accepts; ``select_dtypes("number")`` leaves bool columns out; a frame encoded
with ``get_dummies`` apart from the training frame gets one column per category it
holds, so an unseen category adds a column and a missing one removes it; ``df.pop``
removes the column from the frame, so a second ``pop`` (or ``drop``) of it raises
``KeyError``; ``dropna(axis=1)`` drops every column holding a NaN; a model with named
Inputs needs a dict holding every Input's name (extra keys are ignored);
``dict(df[col])`` of a Series is a dict keyed by the row index, not by column.
Evidence a diagnosis could read at the failure: the frames in the namespace (the one
passed, the training frame, the test frame) with their columns and dtypes, the label
Series and its name, the model's built Input width or its Input names and dtypes, the
argument values (a DataFrame, a Series, a dict and its keys, an ndarray and its dtype),
and the framework's message (the width it expected and got, the missing key).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "frame_columns"

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 5, but received input with shape (3, 4)
    # (X_train kept "price", the label: the model was built 5 wide and trained on it;
    # new houses come without a price)
    Case(
        "fc_price_kept_in_train_then_predict_new_rows",
        FAMILY,
        """
import pandas as pd
houses = pd.DataFrame(np.random.rand(40, 5).astype("float32"), columns=["rooms", "area", "age", "dist", "price"])
houses.insert(0, "house_id", np.arange(40))
X_train = houses.drop(columns=["house_id"])
y_train = houses["price"]
model = keras.Sequential([keras.Input((X_train.shape[1],)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X_train, y_train, epochs=1, verbose=0)
new_houses = pd.DataFrame(np.random.rand(3, 4).astype("float32"), columns=["rooms", "area", "age", "dist"])
model.predict(new_houses, verbose=0)
""",
        "S01",
        must=("price",),
        must_not=("house_id", "get_dummies"),
        fix='X_train = houses.drop(columns=["house_id", "price"])',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 3, but received input with shape (None, 4)
    # (the test frame holds a plan the training frame never saw: plan_enterprise)
    Case(
        "fc_get_dummies_test_has_unseen_plan_evaluate",
        FAMILY,
        """
import pandas as pd
train = pd.DataFrame({"tenure": np.random.rand(30), "plan": ["basic", "pro"] * 15,
                      "churned": np.random.randint(0, 2, 30)})
test = pd.DataFrame({"tenure": np.random.rand(9), "plan": ["basic", "pro", "enterprise"] * 3,
                     "churned": np.random.randint(0, 2, 9)})
y_train = train.pop("churned")
y_test = test.pop("churned")
x_train = pd.get_dummies(train, columns=["plan"], dtype="float32")
x_test = pd.get_dummies(test, columns=["plan"], dtype="float32")
model = keras.Sequential([keras.Input((x_train.shape[1],)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
model.evaluate(x_test, y_test, verbose=0)
""",
        "S01",
        must=("plan_enterprise",),
        must_not=("churned",),
        fix="x_test.reindex(columns=x_train.columns, fill_value=0)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 2, but received input with shape (10, 3)
    # (listing_id was dropped from the training frame only; the test frame still has it)
    Case(
        "fc_id_dropped_from_train_only",
        FAMILY,
        """
import pandas as pd
train = pd.DataFrame({"listing_id": np.arange(30), "beds": np.random.randint(1, 5, 30),
                      "sqft": np.random.rand(30), "price": np.random.rand(30)})
test = pd.DataFrame({"listing_id": np.arange(30, 40), "beds": np.random.randint(1, 5, 10),
                     "sqft": np.random.rand(10)})
X_train = train.drop(columns=["listing_id", "price"]).to_numpy("float32")
model = keras.Sequential([keras.Input((X_train.shape[1],)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X_train, train["price"], epochs=1, verbose=0)
preds = model.predict(test.to_numpy("float32"), verbose=0)
""",
        "S01",
        must=("listing_id",),
        must_not=("get_dummies", "batch size"),
        fix='test.drop(columns=["listing_id"])',
    ),
    # ValueError: Invalid dtype: object
    # (get_dummies adds bool columns day_type_A/_U/_W next to float64 ones: .values is an
    # object array)
    Case(
        "fc_get_dummies_bool_and_float_values_object",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"bus": np.random.rand(40), "rail": np.random.rand(40),
                   "day_type": np.random.choice(["W", "A", "U"], 40)})
df_mulvar = pd.get_dummies(df, columns=["day_type"])
X = df_mulvar.values
model = keras.Sequential([keras.Input((X.shape[1],)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, np.random.rand(40), epochs=1, verbose=0)
""",
        "S11",
        must=("bool", "day_type"),
        must_not=("stringlookup", "text column"),
        fix='df_mulvar.to_numpy("float32")',
    ),
    # ValueError: could not convert string to float: 'C0000'
    # (the customer_id column of strings is still among the features)
    Case(
        "fc_string_id_column_to_numpy_float32",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"customer_id": [f"C{i:04d}" for i in range(40)], "tenure": np.random.rand(40),
                   "monthly": np.random.rand(40), "churned": np.random.randint(0, 2, 40)})
X = df.drop(columns=["churned"]).to_numpy("float32")
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(X, df["churned"], epochs=1, verbose=0)
""",
        "S11",
        must=("customer_id",),
        must_not=("fillna", "missing value"),
        fix='drop(columns=["churned", "customer_id"])',
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported numpy type:
    # NPY_DATETIME).
    # (dict(df) still holds the datetime64 column signup_date; the model takes tenure, spend)
    Case(
        "fc_datetime_column_in_dict_from_tensor_slices",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"signup_date": pd.date_range("2024-01-01", periods=40, freq="D"),
                   "tenure": np.random.rand(40), "spend": np.random.rand(40),
                   "churned": np.random.randint(0, 2, 40)})
labels = df.pop("churned")
tenure = keras.Input((1,), name="tenure")
spend = keras.Input((1,), name="spend")
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([tenure, spend]))
model = keras.Model({"tenure": tenure, "spend": spend}, out)
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S11",
        must=("signup_date",),
        must_not=("stringlookup", "fillna"),
        fix='df.drop(columns=["signup_date"]) first',
    ),
    # KeyError: 'target'
    # (df.pop("target") already took the label out; the helper pops it a second time)
    Case(
        "fc_df_to_dataset_pops_target_twice",
        FAMILY,
        """
import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.DataFrame({"age": np.random.rand(40).astype("float32"), "chol": np.random.rand(40).astype("float32"),
                   "target": np.random.randint(0, 2, 40)})
y = df.pop("target")
positive_share = y.mean()
train, val = train_test_split(df, test_size=0.2, random_state=0)

def df_to_dataset(dataframe, batch_size=8):
    dataframe = dataframe.copy()
    labels = dataframe.pop("target")
    return tf.data.Dataset.from_tensor_slices((dict(dataframe), labels)).batch(batch_size)

train_ds = df_to_dataset(train)
""",
        "S12",
        must=("target", "pop"),
        must_not=("dtype",),
        fix="pop the label once (split df with y)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 8, but received input with shape (None, 2)
    # (select_dtypes("number") leaves out the 6 bool dummy columns smoker_*/region_*)
    Case(
        "fc_select_dtypes_number_drops_bool_dummies",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(40), "bmi": np.random.rand(40),
                   "smoker": np.random.choice(["yes", "no"], 40),
                   "region": np.random.choice(["ne", "nw", "se", "sw"], 40),
                   "charges": np.random.rand(40)})
y = df.pop("charges")
df = pd.get_dummies(df, columns=["smoker", "region"])
X = df.select_dtypes(include="number").astype("float32")
model = keras.Sequential([keras.Input((df.shape[1],)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, verbose=0)
""",
        "S01",
        must=("smoker_", "bool"),
        must_not=("charges",),
        fix='select_dtypes(include=["number", "bool"])',
    ),
    # ValueError: Unbatching a tensor is only supported for rank >= 1
    # (features is the string "income", so df[features] is a Series and dict() of it maps
    # row index -> scalar)
    Case(
        "fc_dict_of_series_not_frame",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"income": np.random.rand(40).astype("float32"), "debt": np.random.rand(40).astype("float32"),
                   "default": np.random.randint(0, 2, 40)})
income = keras.Input((1,), name="income")
out = keras.layers.Dense(1, activation="sigmoid")(income)
model = keras.Model({"income": income}, out)
model.compile("adam", "binary_crossentropy")
features = "income"
ds = tf.data.Dataset.from_tensor_slices((dict(df[features]), df["default"])).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("income", "series"),
        must_not=("expand_dims", "reshape(-1"),
        fix='dict(df[["income"]])',
    ),
    # ValueError: Missing data for input "fare". You passed a data dictionary with keys
    # ['age', 'pclass']. Expected the following keys: ['age', 'fare', 'pclass']
    # (test.dropna(axis=1) dropped the whole fare column for its one missing value)
    Case(
        "fc_test_dropna_axis1_loses_fare_input",
        FAMILY,
        """
import pandas as pd
train = pd.DataFrame({"age": np.random.rand(40), "fare": np.random.rand(40),
                      "pclass": np.random.randint(1, 4, 40).astype("float32"),
                      "survived": np.random.randint(0, 2, 40)})
test = pd.DataFrame({"age": np.random.rand(10), "fare": [0.3, 0.7, np.nan] + list(np.random.rand(7)),
                     "pclass": np.random.randint(1, 4, 10).astype("float32")})
y = train.pop("survived")
inputs = {c: keras.Input((1,), name=c) for c in ["age", "fare", "pclass"]}
x = keras.layers.Concatenate()(list(inputs.values()))
model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(x))
model.compile("adam", "binary_crossentropy")
model.fit(dict(train), y, epochs=1, verbose=0)
test = test.dropna(axis=1)
model.predict(dict(test), verbose=0)
""",
        "S12",
        must=("fare",),
        must_not=("rename",),
        fix='test["fare"].fillna(train["fare"].median())',
    ),
]
