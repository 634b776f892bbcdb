"""Family: pandas DataFrames into Keras, second pass (encoders, lookups, splits, dtypes).

API: ``Model.fit``/``predict``/``evaluate`` with a DataFrame, a Series, ``df.values`` /
``to_numpy()`` or a dict of columns; ``tf.data.Dataset.from_tensor_slices(dict(df))``
and ``((dict(df), labels))``; multi-input functional models whose ``keras.Input(name=...)``
names are the column names; ``keras.utils.FeatureSpace`` (``adapt`` on a dataset of
feature dicts, then called on a dict of columns); the preprocessing layers
``Normalization``, ``StringLookup``, ``IntegerLookup``, ``CategoryEncoding``,
``Discretization`` adapted on / applied to columns; ``pd.get_dummies``,
``pd.Categorical``; columns of bool, object, category, datetime and nullable dtypes,
missing values (NaN/None), columns that hold lists; string labels encoded for a loss.
Contract (documented): ``fit`` takes x and y with the same number of samples, x as an
array whose last axis is the Input's width (a 1-D array is read as N samples of one
feature) or as a dict/list that matches the model's inputs; ``predict`` on one row needs
the batch axis (``df.iloc[[i]]``, not ``df.iloc[i]``); a Series/array passed to
``Normalization.adapt`` is read with its last axis as the feature axis, so a 1-D column
gives one mean per row (``adapt(df[["col"]])`` or ``axis=None``); ``StringLookup`` /
``IntegerLookup`` reserve index 0 for OOV (``num_oov_indices=1``), so looked-up class
labels run from 1 to n; ``Discretization(bin_boundaries=b)`` yields ``len(b) + 1`` bin
ids; ``FeatureSpace.adapt`` takes a dataset of feature dicts only (``ds.map(lambda x,
y: x)``); string columns must hold strings (a missing value is a float NaN); cell
values must be scalars, not lists; ``sparse_categorical_crossentropy`` takes integer
class ids, ``categorical_crossentropy`` one-hot rows as wide as the output, and
``pd.get_dummies(..., drop_first=True)`` drops one class's column.  Evidence a
diagnosis can read at the failure: the frame's columns, dtypes and values (NaN count,
list cells, value ranges), the argument values and their shapes/dtypes, the Inputs'
names, widths and dtypes, the model's layers and the output width, the loss, and the
preprocessing layers' state (vocabulary, ``num_oov_indices``, bin boundaries, the
adapted mean's shape), and what the dataset's elements are (a dict, or a
``(features, labels)`` tuple).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "dataframes"

CASES = [
    # InvalidArgumentError: Graph execution error: ... Received a label value of 3 which
    # is outside the valid range of [0, 3).  Label values: 1 1 3 1 3 ...
    # (StringLookup maps the 3 species to 1..3: index 0 is the OOV token)
    Case(
        "df_string_lookup_labels_start_at_one",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"f1": np.random.rand(30), "f2": np.random.rand(30),
                   "species": np.random.choice(["cat", "dog", "bird"], 30)})
label_lookup = keras.layers.StringLookup(vocabulary=["cat", "dog", "bird"])
y = label_lookup(df["species"].to_numpy())
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(df[["f1", "f2"]].to_numpy("float32"), y, epochs=1, verbose=0)
""",
        "P12",
        must=("lookup",),
        must_not=("units=4", "dense(4"),
        fix="num_oov_indices=0, or subtract 1",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 3, but received input with shape (3, 1)
    # (df.iloc[0] is a Series of the 3 feature values: read as 3 samples of 1 feature)
    Case(
        "df_predict_one_row_as_series",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"rooms": np.random.rand(20), "area": np.random.rand(20), "age": np.random.rand(20)})
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(df, np.random.rand(20), epochs=1, verbose=0)
model.predict(df.iloc[0], verbose=0)
""",
        "S12",
        must=("iloc",),
        must_not=("target", "get_dummies"),
        fix="df.iloc[[0]] keeps the batch axis",
    ),
    # TypeError: FeatureSpace.adapt.<locals>.<lambda>() takes 1 positional argument but
    # 2 were given
    # (the dataset yields (features, labels) tuples; adapt wants the feature dicts only)
    Case(
        "df_feature_space_adapt_on_labelled_dataset",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32"),
                   "sex": np.random.choice(["m", "f"], 30),
                   "target": np.random.randint(0, 2, 30)})
labels = df.pop("target")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(8)
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical"},
                  output_mode="concat")
fs.adapt(ds)
""",
        "S12",
        must=("adapt", "label"),
        must_not=("unbatch",),
        fix="fs.adapt(ds.map(lambda x, y: x))",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['age', 'fare'],
    # but it received 1 input tensors. Pass inputs as a dict, e.g.
    # `layer({'age': ..., 'fare': ...})`.
    Case(
        "df_two_named_inputs_given_one_frame",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(30), "fare": np.random.rand(30)})
age = keras.Input((1,), name="age")
fare = keras.Input((1,), name="fare")
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([age, fare]))
model = keras.Model([age, fare], out)
model.compile("adam", "binary_crossentropy")
model.fit(df[["age", "fare"]], np.random.randint(0, 2, 30), epochs=1, verbose=0)
""",
        None,
        unexplained="Keras names both inputs and says to pass a dict keyed by them",
        fix="pass {'age': df['age'], 'fare': df['fare']}",
    ),
    # ValueError: Invalid dtype: object
    # (each cell of the "emb" column is a list of 4 floats: to_numpy() is an object array)
    Case(
        "df_list_column_of_vectors",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"emb": [list(np.random.rand(4)) for _ in range(20)], "y": np.random.rand(20)})
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(df["emb"].to_numpy(), df["y"], epochs=1, verbose=0)
""",
        "S11",
        must=("emb",),
        must_not=("text column", "stringlookup"),
        fix="np.stack(df['emb']).astype('float32')",
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type
    # float).
    # (the missing city is a float NaN among the strings)
    Case(
        "df_string_lookup_adapt_missing_city",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"city": ["paris", "lyon", None, "nice"] * 5, "price": np.random.rand(20)})
lookup = keras.layers.StringLookup(output_mode="one_hot")
lookup.adapt(df["city"].to_numpy())
""",
        "N05",
        must=("city", "nan"),
        must_not=("float32",),
        fix="df['city'].fillna('unknown')",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    # Received: target.shape=(None,), output.shape=(None, 3)
    # (category codes are integer class ids; the loss wants one-hot rows)
    Case(
        "df_category_codes_with_categorical_loss",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"f1": np.random.rand(30), "f2": np.random.rand(30),
                   "species": np.random.choice(["adelie", "gentoo", "chinstrap"], 30)})
y = pd.Categorical(df["species"]).codes
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(df[["f1", "f2"]].to_numpy("float32"), y, epochs=1, verbose=0)
""",
        "M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("expand_dims", "reshape(-1, 1)"),
        fix="sparse_categorical_crossentropy",
    ),
    # InvalidArgumentError: Graph execution error: ... indices[..] = 3 is not in [0, 3)
    # [[{{node functional_1/embedding_1/GatherV2}}]]
    # (3 bin boundaries make 4 bins, ids 0..3; the Embedding has input_dim=len(bins)=3)
    Case(
        "df_discretization_bins_into_short_embedding",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.linspace(18, 80, 40), "spend": np.random.rand(40)})
bins = [30, 45, 60]
age_in = keras.Input((1,), name="age")
b = keras.layers.Discretization(bin_boundaries=bins)(age_in)
e = keras.layers.Embedding(input_dim=len(bins), output_dim=4)(b)
out = keras.layers.Dense(1)(keras.layers.Flatten()(e))
model = keras.Model(age_in, out)
model.compile("adam", "mse")
model.fit(df[["age"]], df["spend"], epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim", "discretization"),
        must_not=("start at 1", "starts at 1"),
        fix="input_dim=len(bins) + 1",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 2), output.shape=(None, 3)
    # (get_dummies(drop_first=True) leaves 2 columns for the 3 species)
    Case(
        "df_get_dummies_drop_first_labels",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"f1": np.random.rand(30), "f2": np.random.rand(30),
                   "species": ["adelie", "gentoo", "chinstrap"] * 10})
y = pd.get_dummies(df["species"], drop_first=True).to_numpy("float32")
model = keras.Sequential([keras.Input((2,)),
                          keras.layers.Dense(df["species"].nunique(), activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(df[["f1", "f2"]].to_numpy("float32"), y, epochs=1, verbose=0)
""",
        "M04",
        must=("drop_first",),
        must_not=("units=2", "dense(2"),
        fix="get_dummies without drop_first for labels",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 1, but received input with shape (None, 30)
    # (adapt on the 1-D Series learned 30 means, one per row, and broadcasts to width 30)
    Case(
        "df_normalization_adapted_on_1d_series",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"hp": np.random.rand(30) * 200, "mpg": np.random.rand(30)})
norm = keras.layers.Normalization()
norm.adapt(df["hp"].to_numpy())
model = keras.Sequential([keras.Input((1,)), norm, keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(df["hp"], df["mpg"], epochs=1, verbose=0)
""",
        "S01",
        must=("normalization", "30"),
        must_not=("batch size",),
        fix="norm.adapt(df[['hp']]) or axis=None",
    ),
]
