"""Family: tabular data (pandas DataFrames, their columns) given to Keras.

API: ``Model.fit``/``predict`` with a DataFrame, ``df.values``/``to_numpy()``, a dict of
columns, ``pd.get_dummies``, ``keras.Input(shape=(k,))``, ``Normalization.adapt``,
``Embedding`` on a category id column.  Contract: the features reach the model as one
numeric array whose width is the Input's (the target column taken out, categories
encoded the same way for every split), or as a dict keyed by the Inputs' names; labels
are numbers; category ids lie in ``[0, input_dim)``.  Evidence: the frame's columns and
their dtypes, the Input's width and names, the values of the id column.

Written from the pandas and Keras documentation and typical user reports, before the
rules for this family were read.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tabular"

CASES = [
    Case(
        "object_text_column",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(40), "income": np.random.rand(40),
                   "city": np.random.choice(["paris", "lyon", "nice"], 40)})
y = np.random.randint(0, 2, 40)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(df, y, epochs=1, verbose=0)
""",
        "S11",
        must=("city",),
        must_not=("float64",),
    ),
    Case(
        "target_left_in_features",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(50, 5).astype("float32"), columns=["rooms", "area", "age", "dist", "price"])
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(df, df["price"], epochs=1, verbose=0)
""",
        "S01",
        must=("price",),
        must_not=("batch",),
    ),
    Case(
        "get_dummies_split_apart",
        FAMILY,
        """
import pandas as pd
train = pd.DataFrame({"x": np.random.rand(30), "color": ["red", "green", "blue"] * 10})
test = pd.DataFrame({"x": np.random.rand(6), "color": ["red", "green"] * 3})
xtr = pd.get_dummies(train).astype("float32")
xte = pd.get_dummies(test).astype("float32")
model = keras.Sequential([keras.Input((xtr.shape[1],)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(xtr, np.random.rand(30), epochs=1, verbose=0)
model.predict(xte, verbose=0)
""",
        "S01",
        must=("color_blue",),
        must_not=("batch",),
    ),
    Case(
        "dict_of_columns_one_input",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(40, 3).astype("float32"), columns=["a", "b", "c"])
y = np.random.randint(0, 2, 40)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((dict(df), y)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("dict",),
        must_not=(),
    ),
    Case(
        "text_labels",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"f1": np.random.rand(40), "f2": np.random.rand(40),
                   "label": np.random.choice(["yes", "no"], 40)})
x = df[["f1", "f2"]].to_numpy("float32")
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x, df["label"], epochs=1, verbose=0)
""",
        "S11",
        must=("label",),
        must_not=("float64",),
    ),
    Case(
        "datetime_column_in_values",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"when": pd.date_range("2024-01-01", periods=40, freq="D"),
                   "temp": np.random.rand(40), "wind": np.random.rand(40)})
x = df.values
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, np.random.rand(40), epochs=1, verbose=0)
""",
        "S11",
        must=("when",),
        must_not=(),
    ),
    Case(
        "category_ids_from_one",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"store_id": np.tile(np.arange(1, 11), 6), "sales": np.random.rand(60)})
model = keras.Sequential([keras.Input((1,), dtype="int32"), keras.layers.Embedding(10, 4),
                          keras.layers.Flatten(), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(df["store_id"].to_numpy().reshape(-1, 1), df["sales"], epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim", "11"),
        must_not=(),
    ),
    Case(
        "input_names_differ_from_columns",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(40, 2).astype("float32"), columns=["Age", "Income"])
age = keras.Input((1,), name="age"); income = keras.Input((1,), name="income")
out = keras.layers.Dense(1)(keras.layers.Concatenate()([age, income]))
model = keras.Model({"age": age, "income": income}, out)
model.compile("adam", "mse")
model.fit({k: df[[k]].to_numpy() for k in df.columns}, np.random.rand(40), epochs=1, verbose=0)
""",
        "S12",
        must=("age", "Age"),
        must_not=(),
    ),
    Case(
        "bool_dummies_object_array",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"size": np.random.rand(40), "kind": np.random.choice(["a", "b"], 40)})
dummies = pd.get_dummies(df["kind"])
x = np.concatenate([df[["size"]].to_numpy(), dummies.to_numpy()], axis=1).astype(object)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, np.random.rand(40), epochs=1, verbose=0)
""",
        "S11",
        must=("object", "float32"),
        must_not=(),
    ),
    Case(
        "normalization_adapt_on_text_frame",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"height": np.random.rand(40), "team": np.random.choice(["x", "y"], 40)})
norm = keras.layers.Normalization()
norm.adapt(df.to_numpy())
""",
        "S11",
        must=("team",),
        must_not=(),
    ),
]
