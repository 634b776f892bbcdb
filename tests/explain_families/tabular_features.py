"""Family: tabular features, third pass (FeatureSpace, per-column layers, splits, targets).

API: ``keras.utils.FeatureSpace(features={name: spec}, crosses=[FeatureSpace.cross(...)],
output_mode="concat"|"dict")`` with the specs ``float_normalized``,
``integer_categorical``, ``string_categorical`` (and ``float_discretized``), then
``fs.adapt(ds)`` on a dataset of feature dicts and ``fs(dict_of_columns)``;
``tf.data.Dataset.from_tensor_slices(dict(df))`` and ``((dict(df), y))``;
``keras.utils.split_dataset``; Functional models with one ``keras.Input(name=col)`` per
column; the preprocessing layers ``Normalization``, ``StringLookup``, ``IntegerLookup``,
``Embedding`` on a single column; targets taken from the DataFrame (a column, a
one-hot DataFrame).  Contract (documented): every key named in ``features`` must be a
key of the dicts that ``adapt`` and the call receive; a FeatureSpace is called with a
dict, not a DataFrame; ``output_mode="concat"`` gives ONE float vector whose width is
the sum of the encoded widths (a one-hot per categorical feature, vocabulary plus the
OOV index), not one column per feature (``fs.get_encoded_features()`` gives the
symbolic output); ``output_mode="dict"`` gives a dict, for a multi-input model;
``FeatureSpace.cross`` hashes categorical (integer or string) features only, a float
feature must be discretized first; a ``keras.Input`` is float32 unless ``dtype=`` says
otherwise, so a string column needs ``dtype="string"`` before a ``StringLookup``;
``StringLookup``/``IntegerLookup`` reserve index 0 for OOV, so their ids run up to
``vocabulary_size() - 1 == len(vocab)``; ``IntegerLookup`` takes integer values
(strings go to ``StringLookup``); ``Normalization.adapt`` takes arrays or a dataset of
tensors, not of dicts; ``keras.utils.split_dataset`` returns UNBATCHED datasets
(``.batch()`` before ``fit``), and a model whose Inputs have ``shape=(1,)`` needs the
batch axis; ``sparse_categorical_crossentropy`` takes integer class ids in
``[0, units)``, ``categorical_crossentropy`` one-hot rows.  Evidence a diagnosis could
read at the failure: the DataFrame's columns and dtypes, the FeatureSpace's
``features`` (names and specs), its crosses and ``output_mode``, the keys and
element_spec of the dataset (dict, tuple, batched or not), the model's Input names,
shapes and dtypes, the layers' configs and adapted state (vocabulary, input_dim), the
width that reached the first Dense, the target's name, dtype, shape and value range.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tabular_features"

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 3, but received input with shape (None, 9)
    # (concat = age 1 + sex one-hot 3 + cp one-hot 5 = 9 columns, not 3 features)
    Case(
        "tb3_feature_space_concat_width_as_feature_count",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32"),
                   "sex": np.random.choice(["m", "f"], 30),
                   "cp": np.random.randint(0, 4, 30),
                   "target": np.random.randint(0, 2, 30)})
labels = df.pop("target")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(8)
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical",
                            "cp": "integer_categorical"}, output_mode="concat")
fs.adapt(ds.map(lambda x, y: x))
train = ds.map(lambda x, y: (fs(x), y))
model = keras.Sequential([keras.Input((len(fs.features),)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(train, epochs=1, verbose=0)
""",
        "S01",
        must=("9",),
        must_not=("flatten", "batch size"),
        fix="keras.Input((9,)): the encoded width",
    ),
    # KeyError: 'target'
    # (features= still lists the column that df.pop removed; the dataset has age, sex)
    Case(
        "tb3_feature_space_lists_popped_target",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32"),
                   "sex": np.random.choice(["m", "f"], 30),
                   "target": np.random.randint(0, 2, 30)})
labels = df.pop("target")
ds = tf.data.Dataset.from_tensor_slices(dict(df)).batch(8)
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical",
                            "target": "integer_categorical"}, output_mode="concat")
fs.adapt(ds)
""",
        "S12",
        must=("target",),
        must_not=("dtype",),
        fix="drop 'target' from features=",
    ),
    # ValueError: Exception encountered when calling HashedCrossing.call().
    # All `HashedCrossing` inputs should have an integer or string dtype. Received:
    # inputs=[<tf.Tensor: shape=(30, 1), dtype=int64 ...>, <tf.Tensor: ... dtype=float32 ...
    # (the cross takes "age", a float_normalized feature)
    Case(
        "tb3_feature_space_cross_with_float_feature",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32") * 80,
                   "sex": np.random.choice(["m", "f"], 30)})
ds = tf.data.Dataset.from_tensor_slices(dict(df)).batch(8)
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical"},
                  crosses=[FeatureSpace.cross(feature_names=("sex", "age"), crossing_dim=16)],
                  output_mode="concat")
fs.adapt(ds)
encoded = fs(dict(df))
""",
        "S11",
        must=("age", "cross"),
        must_not=("float64",),
        fix="cross a float_discretized age",
    ),
    # UnimplementedError: Graph execution error: ... Cast string to float is not supported
    # [[{{node functional_1/Cast}}]]
    # (keras.Input(name="thal") is float32 by default; the thal column holds strings)
    Case(
        "tb3_string_column_input_without_dtype",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(30).astype("float32"),
                   "thal": np.random.choice(["fixed", "normal", "reversible"], 30),
                   "target": np.random.randint(0, 2, 30)})
labels = df.pop("target")
age = keras.Input(shape=(1,), name="age")
thal = keras.Input(shape=(1,), name="thal")
lookup = keras.layers.StringLookup(vocabulary=["fixed", "normal", "reversible"], output_mode="one_hot")
x = keras.layers.Concatenate()([age, lookup(thal)])
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model({"age": age, "thal": thal}, out)
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S11",
        must=("thal", "string"),
        must_not=("astype", "get_dummies"),
        fix='keras.Input((1,), name="thal", dtype="string")',
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # Invalid input shape for input Tensor("data:0", shape=(), dtype=float32) with name
    # 'age' and path 'age'. Expected shape (None, 1), but input has incompatible shape ()
    # (split_dataset returns unbatched datasets: each element is one row of scalars)
    Case(
        "tb3_split_dataset_left_unbatched",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(40).astype("float32"), "fare": np.random.rand(40).astype("float32"),
                   "survived": np.random.randint(0, 2, 40)})
labels = df.pop("survived")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels))
train_ds, val_ds = keras.utils.split_dataset(ds, left_size=0.8, shuffle=True, seed=1)
age = keras.Input(shape=(1,), name="age")
fare = keras.Input(shape=(1,), name="fare")
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([age, fare]))
model = keras.Model({"age": age, "fare": fare}, out)
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, validation_data=val_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("batch",),
        must_not=("batch_size=", "expand_dims"),
        fix="train_ds.batch(8), val_ds.batch(8)",
    ),
    # AttributeError: 'dict' object has no attribute 'shape'
    # (the dataset yields dicts {age, fare}; Normalization.adapt wants one tensor per element)
    Case(
        "tb3_normalization_adapt_on_dict_dataset",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(30).astype("float32") * 80, "fare": np.random.rand(30).astype("float32"),
                   "survived": np.random.randint(0, 2, 30)})
labels = df.pop("survived")
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(8)
norm = keras.layers.Normalization()
norm.adapt(ds.map(lambda x, y: x))
""",
        "S12",
        must=("adapt", "dict"),
        must_not=("label",),
        fix="norm.adapt(ds.map(lambda x, y: x['age']))",
    ),
    # InvalidArgumentError: Graph execution error: ... indices[3,0] = 4 is not in [0, 4)
    # [[{{node functional_1/embedding_1/GatherV2}}]]
    # (StringLookup maps the 4 cities to 1..4, index 0 is OOV; Embedding(input_dim=len(vocab)))
    Case(
        "tb3_string_lookup_ids_into_embedding_of_vocab_size",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"city": np.random.choice(["paris", "lyon", "nice", "lille"], 40), "price": np.random.rand(40)})
vocab = sorted(df["city"].unique())
city_in = keras.Input((1,), dtype="string", name="city")
ids = keras.layers.StringLookup(vocabulary=vocab)(city_in)
emb = keras.layers.Embedding(input_dim=len(vocab), output_dim=3)(ids)
out = keras.layers.Dense(1)(keras.layers.Flatten()(emb))
model = keras.Model(city_in, out)
model.compile("adam", "mse")
ds = tf.data.Dataset.from_tensor_slices((dict(df[["city"]]), df["price"])).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim", "oov"),
        must_not=("astype",),
        fix="input_dim=lookup.vocabulary_size()",
    ),
    # InvalidArgumentError: Graph execution error: ... Received a label value of 40 which
    # is outside the valid range of [0, 2).  Label values: 21 16 20 12 ...
    # (y = df.iloc[:, 0] is the PassengerId column, not Survived; the value named varies
    # with the shuffle)
    Case(
        "tb3_target_is_first_column_passenger_id",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"PassengerId": np.arange(1, 41), "Age": np.random.rand(40) * 80,
                   "Fare": np.random.rand(40) * 100, "Survived": np.random.randint(0, 2, 40)})
x = df[["Age", "Fare"]].to_numpy("float32")
y = df.iloc[:, 0]
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        "P12",
        must=("passengerid",),
        must_not=("units=41", "dense(41"),
        fix='y = df["Survived"]',
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 3), output.shape=(None, 3)
    # (y is the 3-column one-hot DataFrame from get_dummies; the loss wants class ids)
    Case(
        "tb3_get_dummies_target_with_sparse_loss",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"bill": np.random.rand(30), "flipper": np.random.rand(30),
                   "species": np.random.choice(["adelie", "gentoo", "chinstrap"], 30)})
y = pd.get_dummies(df["species"])
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(df[["bill", "flipper"]].to_numpy("float32"), y, epochs=1, verbose=0)
""",
        "M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("reshape", "squeeze"),
        fix="categorical_crossentropy (or argmax the dummies)",
    ),
    # ValueError: A FeatureSpace can only be called with a dict. Received: data=
    # age sex ... (of type <class 'pandas.DataFrame'>)
    Case(
        "tb3_feature_space_called_on_dataframe",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32"), "sex": np.random.choice(["m", "f"], 30)})
ds = tf.data.Dataset.from_tensor_slices(dict(df)).batch(8)
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical"}, output_mode="concat")
fs.adapt(ds)
encoded = fs(df)
""",
        None,
        unexplained="FeatureSpace says it can only be called with a dict: fs(dict(df))",
        fix="fs(dict(df))",
    ),
]
