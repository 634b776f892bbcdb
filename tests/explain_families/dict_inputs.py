"""Family: models with named inputs fed dicts (a fourth pass on tabular data).

API: one ``keras.Input(shape, name=..., dtype=...)`` per feature, gathered in
``keras.Model(inputs={name: inp}, ...)`` (or a list of Inputs); data given as
``dict(df)``, ``{name: array}`` or ``tf.data.Dataset.from_tensor_slices((dict(df),
labels))``; preprocessing inside the model (``Normalization`` per feature,
``StringLookup``/``IntegerLookup`` for categoricals, ``CategoryEncoding``, ``Embedding``,
``Concatenate`` of the encoded features); ``keras.utils.FeatureSpace`` (a ``features``
dict of column name -> spec, ``adapt`` on a dataset of feature dicts, ``output_mode``
``"concat"`` or ``"dict"``).

Contract (documented): a dict fed to a model is matched to its Inputs by the Inputs'
names (a list of unnamed Inputs gets auto names such as ``input_layer``, which a dict of
column names cannot match); every Input needs a key, and all values hold the same number
of samples; a ``tf.data`` element is ``(x, y)`` or ``(x, y, sample_weight)``, so several
inputs go in one tuple or dict as ``x``; a value's dtype must cast to its Input's dtype
(a ``dtype="string"`` Input takes strings, not integers); ``Normalization.adapt`` learns
one mean per column of what it is given, so the adapted data must hold exactly the
columns the layer will see; ``Concatenate`` joins tensors of the same rank (an
``Embedding`` adds an axis: ``(None, 1, d)``); a ``FeatureSpace`` reads every column its
``features`` dict names from the data (names are case-sensitive), must be adapted before
it is called, and with ``output_mode="dict"`` returns a dict of encoded features rather
than one concatenated tensor.

Evidence a diagnosis could read at the failure: the model's Input names, shapes and
dtypes; the dict's keys and each value's dtype and length; the dataset's element_spec
(its tuple arity); the preprocessing layers' state (a Normalization's mean shape, an
Embedding's output rank, a FeatureSpace's features, output_mode and adapted flag); the
DataFrame's columns.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "dict_inputs"

CASES = [
    # ValueError: Missing data for input "sex". You passed a data dictionary with keys
    # ['gender', 'age']. Expected the following keys: ['age', 'sex']
    # (the frame's column is "gender"; the Input is named "sex")
    Case(
        "di_frame_column_gender_for_input_sex",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"gender": np.random.choice(["male", "female"], 32),
                   "age": np.random.rand(32).astype("float32") * 80})
y = np.random.randint(0, 2, 32)
sex = keras.Input((1,), name="sex", dtype="string")
age = keras.Input((1,), name="age")
sex_oh = keras.layers.StringLookup(vocabulary=["male", "female"], output_mode="one_hot")(sex)
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([sex_oh, age]))
model = keras.Model({"sex": sex, "age": age}, out)
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((dict(df), y)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("sex", "gender"),
        must_not=("float32",),
        fix='rename the column: df.rename(columns={"gender": "sex"})',
    ),
    # UnimplementedError: Graph execution error: ... Cast int64 to string is not supported
    # [[{{node functional_1_1/Cast}}]]
    # (the pclass column holds ints 1..3; its Input is dtype="string" for a StringLookup)
    Case(
        "di_int_pclass_column_into_string_input",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"pclass": np.random.choice([1, 2, 3], 40),
                   "fare": np.random.rand(40).astype("float32")})
y = np.random.randint(0, 2, 40)
pclass = keras.Input((1,), name="pclass", dtype="string")
fare = keras.Input((1,), name="fare")
pclass_oh = keras.layers.StringLookup(vocabulary=["1", "2", "3"], output_mode="one_hot")(pclass)
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([pclass_oh, fare]))
model = keras.Model({"pclass": pclass, "fare": fare}, out)
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((dict(df), y)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S11",
        must=("pclass",),
        must_not=("float64",),
        fix='df["pclass"].astype(str), or IntegerLookup on an int Input',
    ),
    # ValueError: Exception encountered when calling Normalization.call().
    # Dimensions must be equal, but are 2 and 3 for '{{node functional_1/numeric_norm_1/Sub}}
    # = Sub[T=DT_FLOAT](data, ...)' with input shapes: [?,2], [1,3].
    # (adapt saw the whole frame, label "survived" included: 3 means for 2 features)
    Case(
        "di_normalization_adapted_with_label_column",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"age": np.random.rand(40) * 80, "fare": np.random.rand(40) * 500,
                   "survived": np.random.randint(0, 2, 40)}).astype("float32")
numeric = keras.Input((2,), name="numeric")
norm = keras.layers.Normalization(name="numeric_norm")
norm.adapt(df.to_numpy())
out = keras.layers.Dense(1, activation="sigmoid")(norm(numeric))
model = keras.Model(numeric, out)
model.compile("adam", "binary_crossentropy")
model.fit(df[["age", "fare"]].to_numpy(), df["survived"].to_numpy(), epochs=1, verbose=0)
""",
        "S01",
        must=("numeric_norm",),
        must_not=("batch the dataset",),
        fix='norm.adapt(df[["age", "fare"]].to_numpy())',
    ),
    # ValueError: Missing data for input "input_layer". You passed a data dictionary with
    # keys ['age', 'fare']. Expected the following keys: ['input_layer', 'input_layer_1']
    # (a list of unnamed Inputs: their auto names cannot match the dict's column keys)
    Case(
        "di_unnamed_input_list_fed_column_dict",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(40, 2).astype("float32"), columns=["age", "fare"])
age = keras.Input((1,)); fare = keras.Input((1,))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([age, fare]))
model = keras.Model([age, fare], out)
model.compile("adam", "mse")
model.fit({"age": df[["age"]].to_numpy(), "fare": df[["fare"]].to_numpy()},
          np.random.rand(40), epochs=1, verbose=0)
""",
        "S12",
        must=("input_layer",),
        must_not=("dtype",),
        fix='keras.Input((1,), name="age") / name="fare"',
    ),
    # KeyError: 'age'
    # (the frame's columns are "Age" and "Embarked"; the features dict says "age", "embarked")
    Case(
        "di_feature_space_lowercase_names_capitalized_columns",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"Age": np.random.rand(30).astype("float32") * 80,
                   "Embarked": np.random.choice(["S", "C", "Q"], 30)})
fs = FeatureSpace(features={"age": "float_normalized", "embarked": "string_categorical"},
                  output_mode="concat")
ds = tf.data.Dataset.from_tensor_slices(dict(df)).batch(8)
fs.adapt(ds)
""",
        "S12",
        must=("age",),
        must_not=("target",),
        fix='features={"Age": ..., "Embarked": ...} (or lowercase the columns)',
    ),
    # ValueError: You need to call `.adapt(dataset)` on the FeatureSpace before you can
    # start using it.
    Case(
        "di_feature_space_mapped_before_adapt",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32") * 80,
                   "sex": np.random.choice(["male", "female"], 30)})
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical"},
                  output_mode="concat")
ds = tf.data.Dataset.from_tensor_slices((dict(df), np.random.randint(0, 2, 30))).batch(8)
train_ds = ds.map(lambda x, y: (fs(x), y))
""",
        None,
        unexplained="Keras says to call fs.adapt(dataset) before using the FeatureSpace",
        fix="fs.adapt(ds.map(lambda x, y: x)) first",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 1, 4), (None, 1)]
    # (Embedding on a (None, 1) id Input adds an axis: city_emb is rank 3)
    Case(
        "di_concatenate_embedding_rank3_with_numeric",
        FAMILY,
        """
city = keras.Input((1,), name="city", dtype="int32")
income = keras.Input((1,), name="income")
city_emb = keras.layers.Embedding(20, 4, name="city_emb")(city)
income_n = keras.layers.Normalization(mean=50.0, variance=100.0, name="income_norm")(income)
x = keras.layers.Concatenate(name="features")([city_emb, income_n])
""",
        "S01",
        must=("city_emb",),
        must_not=("strides", "padding"),
        fix="keras.layers.Flatten()(city_emb) before Concatenate",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # The structure of `inputs` doesn't match the expected structure.
    # (FeatureSpace(output_mode="dict") yields {age, sex} dicts; the Sequential wants one tensor)
    Case(
        "di_feature_space_dict_output_into_sequential",
        FAMILY,
        """
import pandas as pd
from keras.utils import FeatureSpace
df = pd.DataFrame({"age": np.random.rand(30).astype("float32") * 80,
                   "sex": np.random.choice(["male", "female"], 30)})
labels = np.random.randint(0, 2, 30)
fs = FeatureSpace(features={"age": "float_normalized", "sex": "string_categorical"},
                  output_mode="dict")
fs.adapt(tf.data.Dataset.from_tensor_slices(dict(df)).batch(8))
train_ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(8).map(lambda x, y: (fs(x), y))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("output_mode",),
        must_not=("batch the dataset",),
        fix='FeatureSpace(..., output_mode="concat")',
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number
    # of samples.'x' sizes: 40, 50
    # (the "fare" value is taken from the full frame df, "age" from the 40-row train split)
    Case(
        "di_fare_from_full_frame_age_from_train",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(50, 2).astype("float32"), columns=["age", "fare"])
train, test = df.iloc[:40], df.iloc[40:]
age = keras.Input((1,), name="age"); fare = keras.Input((1,), name="fare")
out = keras.layers.Dense(1)(keras.layers.Concatenate()([age, fare]))
model = keras.Model({"age": age, "fare": fare}, out)
model.compile("adam", "mse")
model.fit({"age": train[["age"]].to_numpy(), "fare": df[["fare"]].to_numpy()},
          np.random.rand(40), epochs=1, verbose=0)
""",
        "S12",
        must=("fare",),
        must_not=("float32",),
        fix='"fare": train[["fare"]].to_numpy()',
    ),
    # ValueError: Layer "functional_N" expects 2 named input(s) with keys ['age', 'fare'],
    # but it received 1 input tensors. Pass inputs as a dict, e.g. `layer({'age': ..., ...})`.
    # (the dataset yields (age, fare, y): Keras reads it as (x, y, sample_weight))
    Case(
        "di_three_tuple_dataset_for_two_inputs",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(40, 2).astype("float32"), columns=["age", "fare"])
y = np.random.randint(0, 2, 40)
age = keras.Input((1,), name="age"); fare = keras.Input((1,), name="fare")
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([age, fare]))
model = keras.Model([age, fare], out)
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((df[["age"]].to_numpy(), df[["fare"]].to_numpy(), y)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("fare",),
        must_not=("float32",),
        fix="from_tensor_slices(((age, fare), y))",
    ),
]
