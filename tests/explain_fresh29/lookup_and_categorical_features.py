"""Lookup and categorical features: ``StringLookup``, ``IntegerLookup``, ``Hashing``,
``CategoryEncoding``, ``Discretization``, embeddings fed with lookup ids, two-tower models.

The family, written down from the Keras 3 preprocessing-layer documentation before the
cases:

* ``StringLookup(vocabulary=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
  output_mode="int", invert=False)`` maps strings to ids; ``IntegerLookup`` does the same for
  integer ids (``oov_token=-1``).  With ``output_mode="int"`` the id space is the mask token
  (if any), then the OOV indices, then the vocabulary: with the defaults id 0 is OOV and the
  N vocabulary terms get ids 1..N, so ``vocabulary_size()`` is N + 1 and an ``Embedding``
  after it needs ``input_dim=lookup.vocabulary_size()``, not ``len(vocab)``.  Before
  ``adapt`` (and without ``vocabulary=``) the vocabulary holds only the OOV token, so
  ``vocabulary_size()`` read then is 1.  ``StringLookup`` takes string tensors: integer ids
  go to ``IntegerLookup`` (or are cast to strings first).  ``output_mode="multi_hot"``/
  ``"count"``/``"one_hot"`` returns one column per id, OOV column included:
  ``vocabulary_size()`` columns, not ``len(vocab)``.
* ``Hashing(num_bins)`` maps any value to ``[0, num_bins)``; an ``Embedding`` after it
  needs ``input_dim >= num_bins``.  ``HashedCrossing(num_bins)`` crosses features of equal
  shape.
* ``CategoryEncoding(num_tokens, output_mode="multi_hot"|"one_hot"|"count")`` expects ids in
  ``[0, num_tokens)``.
* ``Discretization(bin_boundaries=None, num_bins=None)``: either sorted ``bin_boundaries``
  given at construction, or ``num_bins`` and ``adapt(data)`` before the layer is called; not
  both.
* ``Embedding(input_dim, output_dim)`` gathers row ``id`` of a ``(input_dim, output_dim)``
  table: on CPU an id outside ``[0, input_dim)`` raises ``indices[..] = k is not in [0,
  input_dim)``.
* Model inputs: ``keras.Input(shape, dtype=None)`` is ``float32`` unless told otherwise;
  string ids need ``dtype="string"`` (the model casts its inputs to the declared dtype, and
  TensorFlow cannot cast a string to a float), integer ids ``dtype="int32"``/``"int64"``.
  In a two-tower recommender the user and item towers end in vectors that are compared with
  ``Dot(axes=1)``, so both towers must have the same output width.

Evidence a diagnosis needs: the lookup layer and its id range (``vocabulary_size()``, OOV and
mask indices, ``num_bins``) against the consuming layer's size (``input_dim``, the next
layer's expected width), with the largest id seen; for dtypes, the declared input dtype and
the dtype of the data (strings, ints, floats) and which input; for Discretization, whether
it was adapted.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "lookup_and_categorical_features"

CASES = [
    # InvalidArgumentError: Exception encountered when calling Embedding.call().
    # ({{function_node __wrapped__GatherV2_device_...}} indices[1,0] = 4 is not in [0, 4))
    Case(
        name="f29_embedding_input_dim_without_oov_index",
        family=FAMILY,
        code="""
genres = ["action", "comedy", "drama", "horror"]
lookup = keras.layers.StringLookup(vocabulary=genres)
genre_embedding = keras.layers.Embedding(input_dim=len(genres), output_dim=8)
batch = tf.constant([["drama"], ["horror"], ["comedy"]])
vectors = genre_embedding(lookup(batch))
""",
        expect="S09",
        must=("input_dim", "oov"),
        must_not=("clip",),
        fix="Embedding(input_dim=lookup.vocabulary_size(), ...) (len(genres) + 1)",
    ),
    # InvalidArgumentError: Exception encountered when calling Embedding.call().
    # ({{function_node __wrapped__GatherV2_device_...}} indices[0,0] = 1 is not in [0, 1))
    Case(
        name="f29_vocabulary_size_read_before_adapt",
        family=FAMILY,
        code="""
titles = np.array([["heat"], ["alien"], ["up"], ["heat"], ["jaws"]])
title_lookup = keras.layers.StringLookup()
title_embedding = keras.layers.Embedding(title_lookup.vocabulary_size(), 8)
title_lookup.adapt(titles)
vectors = title_embedding(title_lookup(titles))
""",
        expect="S09",
        must=("adapt",),
        must_not=("clip",),
        fix="create the Embedding after title_lookup.adapt(titles)",
    ),
    # InvalidArgumentError: Exception encountered when calling Embedding.call().
    # ({{function_node __wrapped__GatherV2_device_...}} indices[0,0] = 974 is not in [0, 100))
    Case(
        name="f29_hashing_bins_exceed_embedding_rows",
        family=FAMILY,
        code="""
zip_hash = keras.layers.Hashing(num_bins=1000)
zip_embedding = keras.layers.Embedding(input_dim=100, output_dim=4)
zip_codes = tf.constant([["94110"], ["10001"], ["60614"], ["73301"]])
vectors = zip_embedding(zip_hash(zip_codes))
""",
        expect="S09",
        must=("num_bins",),
        must_not=("adapt",),
        fix="Embedding(input_dim=1000) (= num_bins), or Hashing(num_bins=100)",
    ),
    # UnimplementedError: Exception encountered when calling StringLookup.call().
    # ({{function_node __wrapped__Cast_device_...}} Cast int64 to string is not supported)
    Case(
        name="f29_int_user_ids_into_string_lookup",
        family=FAMILY,
        code="""
user_lookup = keras.layers.StringLookup(vocabulary=["101", "205", "333"])
user_ids = np.array([[101], [205], [333]])
ids = user_lookup(user_ids)
""",
        expect="S11",
        must=("integerlookup",),
        must_not=("float32",),
        fix="keras.layers.IntegerLookup(vocabulary=[101, 205, 333]) (or pass the ids as strings)",
    ),
    # ValueError: Exception encountered when calling Discretization.call().
    # (You need to either pass the `bin_boundaries` argument at construction time or call
    # `adapt(dataset)` before you can start using the `Discretization` layer.)
    Case(
        name="f29_discretization_num_bins_not_adapted",
        family=FAMILY,
        code="""
age_buckets = keras.layers.Discretization(num_bins=4)
ages = np.array([[23.0], [35.0], [61.0], [18.0]])
bucketed = age_buckets(ages)
""",
        expect=None,
        must_not=("input_dim",),
        unexplained="the message says to pass bin_boundaries or call adapt(dataset) first",
        fix="age_buckets.adapt(ages) before calling it",
    ),
    # UnimplementedError: Graph execution error:
    # (Detected at node functional_1/Cast: Cast string to float is not supported)
    Case(
        name="f29_two_tower_string_ids_float_input",
        family=FAMILY,
        code="""
user_in = keras.Input(shape=(1,), name="user")
item_in = keras.Input(shape=(1,), name="item", dtype="int32")
user_vec = keras.layers.Embedding(4, 8)(keras.layers.StringLookup(vocabulary=["u1", "u2", "u3"])(user_in))
item_vec = keras.layers.Embedding(10, 8)(item_in)
score = keras.layers.Dot(axes=2)([user_vec, item_vec])
model = keras.Model([user_in, item_in], keras.layers.Flatten()(score))
model.compile("adam", "mse")
ds = tf.data.Dataset.from_tensor_slices(
    ((np.array([["u1"], ["u3"]]), np.array([[3], [7]])), np.array([1.0, 0.0]))
).batch(2)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("float32",),
        must_not=("astype",),
        fix='keras.Input(shape=(1,), name="user", dtype="string")',
    ),
    # ValueError: Incompatible input shapes: axis values 32 (at axis 1) != 16 (at axis 1).
    # Full input shapes: (None, 32), (None, 16)
    Case(
        name="f29_two_tower_towers_different_output_dim",
        family=FAMILY,
        code="""
user_in = keras.Input(shape=(), dtype="int32", name="user_id")
item_in = keras.Input(shape=(), dtype="int32", name="item_id")
user_vec = keras.layers.Embedding(100, 32)(user_in)
item_vec = keras.layers.Embedding(50, 16)(item_in)
affinity = keras.layers.Dot(axes=1)([user_vec, item_vec])
model = keras.Model([user_in, item_in], affinity)
""",
        expect="S01",
        must=("embedding",),
        must_not=("axes=2",),
        fix="the same output_dim in both towers (e.g. 32 and 32)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 ... of layer 'dense' is incompatible with the layer: expected axis -1 of input
    # shape to have value 4, but received input with shape (None, 5))
    Case(
        name="f29_multi_hot_width_counts_oov_slot",
        family=FAMILY,
        code="""
amenities = ["wifi", "pool", "parking", "gym"]
encode = keras.layers.StringLookup(vocabulary=amenities, output_mode="multi_hot")
listings = tf.constant([["wifi", "gym"], ["pool", "pool"], ["parking", "wifi"]])
features = encode(listings)
model = keras.Sequential([
    keras.Input(shape=(len(amenities),)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(features, np.array([3.5, 4.0, 2.0]), epochs=1, verbose=0)
""",
        expect="S01",
        must=("oov",),
        must_not=("reshape",),
        fix="keras.Input(shape=(encode.vocabulary_size(),)) (the OOV column counts)",
    ),
]
