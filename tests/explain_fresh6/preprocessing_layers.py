"""Family ``preprocessing_layers``: the ``adapt`` and call contracts of Keras preprocessing layers.

APIs: ``Normalization``, ``TextVectorization``, ``StringLookup``,
``IntegerLookup``, ``CategoryEncoding``, ``Discretization``, ``Hashing``,
``Resizing``/``Rescaling`` and the random augmentation layers.

Documented contract:

- ``adapt(data)`` computes the layer's state from exactly the array or dataset
  it is given: ``Normalization`` keeps a mean and variance per index of
  ``axis`` (default ``-1``: one per column/channel, so the state's shape is the
  width of the adapted data, and every later input must have that width);
  the data must be numeric (a string column in the table cannot be averaged).
- ``TextVectorization`` takes strings (``keras.Input(shape=(1,), dtype="string")``
  in a model); ``output_mode="int"`` gives a rank-2 ``(batch, sequence)`` of
  token ids for an ``Embedding``, while ``"multi_hot"``/``"count"``/``"tf_idf"``
  give one rank-2 ``(batch, vocabulary)`` vector per text for ``Dense`` layers,
  with no time axis for a recurrent or convolutional layer.
- ``StringLookup``/``IntegerLookup`` map strings/ints to ids; a
  ``vocabulary=`` must hold unique terms; with ``num_oov_indices=0`` every
  input must be in the vocabulary.
- ``CategoryEncoding`` takes integer ids in ``[0, num_tokens)``, not strings:
  a string column needs a ``StringLookup`` (which can itself one-hot encode).
- ``Resizing`` and the image layers take one image of rank 3 or a batch of
  rank 4 with one shape: a Python list of differently sized images cannot be
  stacked into a batch.

Evidence a diagnosis needs: the adapted state's shape (mean/variance width,
vocabulary size) against the data's width, the data's dtype and rank (and
which column is not numeric), the output mode and rank a layer produces, and
the producer/consumer pair of layers that disagree.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # Raises ValueError: Exception encountered when calling Normalization.call(). Dimensions must be
    # equal, but are 4 and 5 for '{{node sequential_1/normalization_1/Sub}} ...' with input shapes:
    # [32,4], [1,5].
    Case(
        name="normalization_adapted_on_the_frame_that_still_holds_the_price",
        family="preprocessing_layers",
        code="""
import pandas as pd

train_df = pd.DataFrame(np.random.rand(64, 5).astype("float32"),
                        columns=["rooms", "area", "age", "distance", "price"])
normalizer = keras.layers.Normalization(axis=-1)
normalizer.adapt(np.array(train_df))
train_features = train_df.drop(columns=["price"])
train_labels = train_df["price"]
model = keras.Sequential([normalizer, keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(train_features, train_labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("adapt",),
        must_not=("batch size", "reshape"),
        fix="adapt the Normalization on the feature columns only (without the target)",
    ),
    # Raises TypeError: unsupported operand type(s) for /: 'str' and 'int'
    Case(
        name="auto_mpg_normalizer_adapted_before_encoding_origin",
        family="preprocessing_layers",
        code="""
import pandas as pd

dataset = pd.DataFrame({
    "MPG": np.random.uniform(10, 40, 20),
    "Horsepower": np.random.uniform(50, 200, 20),
    "Weight": np.random.uniform(1500, 4500, 20),
    "Origin": np.random.choice(["USA", "Europe", "Japan"], 20),
})
train_features = dataset.copy()
train_labels = train_features.pop("MPG")
normalizer = keras.layers.Normalization(axis=-1)
normalizer.adapt(np.array(train_features))
""",
        expect="S11",
        must=("origin",),
        must_not=("float64",),
        fix="one-hot encode the Origin column (pd.get_dummies) before adapt",
    ),
    # Raises UnimplementedError: Graph execution error: Detected at node functional_1/Cast ... Cast
    # string to float is not supported
    Case(
        name="text_classifier_input_declared_without_string_dtype",
        family="preprocessing_layers",
        code="""
texts = np.array(["great movie", "terrible plot", "loved it", "boring and long"])
labels = np.array([1, 0, 1, 0])
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=8)
vectorizer.adapt(texts)
inputs = keras.Input(shape=(1,))
x = vectorizer(inputs)
x = keras.layers.Embedding(1000, 8)(x)
x = keras.layers.GlobalAveragePooling1D()(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="binary_crossentropy")
train_ds = tf.data.Dataset.from_tensor_slices((texts[:, None], labels)).batch(2)
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("dtype=",),
        must_not=("astype(", "encode the"),
        fix='keras.Input(shape=(1,), dtype="string")',
    ),
    # Raises ValueError: The passed vocabulary has at least one repeated term. Please uniquify your
    # dataset. The repeated terms are: [np.str_('Paris'), np.str_('Lyon')]
    Case(
        name="string_lookup_vocabulary_from_the_raw_city_column",
        family="preprocessing_layers",
        code="""
cities = np.array(["Paris", "Lyon", "Paris", "Nice", "Lyon", "Paris"])
lookup = keras.layers.StringLookup(vocabulary=list(cities), output_mode="one_hot")
encoded = lookup(cities)
""",
        expect=None,
        unexplained=(
            "Keras says the vocabulary has a repeated term, names it and asks to uniquify it"
        ),
        fix="vocabulary=np.unique(cities), or lookup.adapt(cities)",
    ),
    # Raises InvalidArgumentError: Exception encountered when calling Resizing.call(). Shapes of all
    # inputs must match: values[0].shape = [120,160,3] != values[1].shape = [200,150,3] [Op:Pack]
    Case(
        name="resizing_layer_given_a_list_of_differently_sized_photos",
        family="preprocessing_layers",
        code="""
photos = [np.random.randint(0, 256, (120, 160, 3)).astype("float32"),
          np.random.randint(0, 256, (200, 150, 3)).astype("float32"),
          np.random.randint(0, 256, (90, 90, 3)).astype("float32")]
resize = keras.layers.Resizing(64, 64)
batch = resize(photos)
""",
        expect="S13",
        must=("each",),
        must_not=("channel",),
        fix="resize each photo on its own (or in a dataset map) before stacking",
    ),
    # Raises UnimplementedError: Exception encountered when calling CategoryEncoding.call(). Cast
    # string to int64 is not supported [Op:Cast]
    Case(
        name="category_encoding_fed_the_color_names",
        family="preprocessing_layers",
        code="""
import pandas as pd

df = pd.DataFrame({"color": ["red", "green", "blue", "green"], "size": [1.0, 2.5, 0.5, 1.5]})
encode_color = keras.layers.CategoryEncoding(num_tokens=3, output_mode="one_hot")
color_features = encode_color(df["color"].to_numpy()[:, None])
features = np.concatenate([color_features, df[["size"]].to_numpy()], axis=1)
""",
        expect="S11",
        must=("stringlookup",),
        must_not=("astype(",),
        fix="StringLookup(output_mode='one_hot') (or StringLookup before CategoryEncoding)",
    ),
    # Raises ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer:
    # expected ndim=3, found ndim=2. Full shape received: (None, 11)
    Case(
        name="multi_hot_text_vectorization_into_an_lstm",
        family="preprocessing_layers",
        code="""
reviews = np.array(["fast shipping", "broken on arrival", "works as described", "never again"])
vectorizer = keras.layers.TextVectorization(max_tokens=200, output_mode="multi_hot")
vectorizer.adapt(reviews)
inputs = keras.Input(shape=(), dtype="string")
x = vectorizer(inputs)
x = keras.layers.LSTM(16)(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("embedding",),
        must_not=("expand_dims", "return_sequences"),
        fix='output_mode="int" with output_sequence_length, then an Embedding before the LSTM',
    ),
    # Raises InvalidArgumentError: Exception encountered when calling IntegerLookup.call(). ... When
    # `num_oov_indices=0` all inputs should be in vocabulary, found OOV values [105], consider
    # setting `num_oov_indices=1`.
    Case(
        name="integer_lookup_without_oov_slot_meets_a_new_store_id",
        family="preprocessing_layers",
        code="""
store_lookup = keras.layers.IntegerLookup(num_oov_indices=0)
store_lookup.adapt(np.array([101, 102, 103, 104, 101, 102]))
validation_stores = np.array([[101], [105], [103]])
store_ids = store_lookup(validation_stores)
""",
        expect=None,
        unexplained=(
            "Keras says inputs must be in the vocabulary when num_oov_indices=0, names the "
            "unseen value and suggests num_oov_indices=1"
        ),
        fix="num_oov_indices=1 (and size the consumer for the OOV id)",
    ),
]
