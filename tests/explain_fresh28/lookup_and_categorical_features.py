"""Family: lookup and categorical preprocessing layers, and the embeddings they feed.

The APIs and their documented contract (``keras.layers`` preprocessing, Keras 3):

- ``StringLookup(vocabulary=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
  invert=False, output_mode="int")`` maps STRINGS to integer ids; ``IntegerLookup`` does the
  same for integer values.  With ``output_mode="int"`` the id space is: the mask token (if
  set) at 0, then ``num_oov_indices`` OOV ids, then the vocabulary, so the ids run over
  ``[0, vocabulary_size())`` and ``vocabulary_size() == len(vocabulary) + num_oov_indices
  (+ 1 with a mask)``.  The vocabulary is given at construction or learned with ``adapt(data)``
  where ``data`` holds only the feature (a ``tf.data`` dataset of ``(x, y)`` tuples must be
  mapped to ``x`` first).  Vocabularies must not repeat terms.  ``invert=True`` maps INTEGER ids
  back to strings, so the inverse layer takes ids, not strings.
- ``Hashing(num_bins)`` hashes values into ``[0, num_bins)``; ``HashedCrossing(num_bins)`` crosses
  a tuple of RAW categorical features, each of shape ``()``, ``(batch,)`` or ``(batch, 1)``, into
  ids in ``[0, num_bins)`` (not one-hot encodings).
- ``CategoryEncoding(num_tokens, output_mode="multi_hot"|"one_hot"|"count")`` turns integer ids
  in ``[0, num_tokens)`` into dense vectors of width ``num_tokens``; negative ids (e.g. ``-1``
  used as padding) are refused ("must be non-negative").
- ``Discretization(bin_boundaries=None, num_bins=None)`` takes either the boundaries or
  ``num_bins`` + ``adapt`` (not both); ``len(bin_boundaries)`` boundaries make
  ``len(bin_boundaries) + 1`` bins, ids ``[0, len(bin_boundaries)]``.
- ``Embedding(input_dim, output_dim)`` accepts integer ids in ``[0, input_dim)``; on CPU an id
  outside raises "indices[..] = N is not in [0, input_dim)".  Fed from a lookup layer its
  ``input_dim`` must be ``lookup.vocabulary_size()`` (OOV and mask included); fed raw ids (user
  or item ids of a recommender) it must be ``max id + 1``, or the ids must be re-indexed with
  ``IntegerLookup``.  ``Embedding`` casts its input to int: STRING ids cannot be cast ("Cast
  string to int32 is not supported") and must go through ``StringLookup`` first.
- Two-tower recommenders: a user tower and an item tower, each ``Input(shape=(1,))`` of ids →
  lookup → ``Embedding``, joined by ``Dot``; the id dtype of each ``Input`` must match the data
  (strings need ``dtype="string"`` and a ``StringLookup``).

Evidence a diagnosis needs: which preprocessing layer or ``Embedding`` failed, the dtype it
received versus the dtype it takes (strings into ``Embedding``/inverse lookup, ints into
``StringLookup``), the id range in the data (smallest and largest id) versus ``input_dim``,
``num_tokens`` or ``vocabulary_size()`` (and the OOV/mask offset that explains the gap), the
shapes given to ``HashedCrossing`` and where they came from (``output_mode`` of the lookup
before it), and the structure of the data given to ``adapt``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "lookup_and_categorical_features"

CASES = [
    # UnimplementedError: Exception encountered when calling StringLookup.call().  (Cast string to int64 is not supported)
    Case(
        name="f28_inverse_lookup_fed_token_strings",
        family=FAMILY,
        code="""
vocab = ["low", "medium", "high"]
label_lookup = keras.layers.StringLookup(vocabulary=vocab, num_oov_indices=0, invert=True)
y_train = label_lookup(tf.constant(["low", "high", "medium", "low"]))
""",
        expect="S11",
        must=("invert",),
        must_not=("float32",),
        fix="invert=False to encode the labels; keep an invert=True twin to decode predicted ids",
    ),
    # InvalidArgumentError: Exception encountered when calling Embedding.call().  (indices[1,0] = 4 is not in [0, 4))
    Case(
        name="f28_embedding_input_dim_forgets_oov_index",
        family=FAMILY,
        code="""
vocab = ["cat", "dog", "bird", "fish"]
lookup = keras.layers.StringLookup(vocabulary=vocab)
emb = keras.layers.Embedding(input_dim=len(vocab), output_dim=4)
vectors = emb(lookup(tf.constant([["cat"], ["fish"], ["dog"]])))
""",
        expect="S09",
        must=("input_dim",),
        must_not=("num_oov_indices=0",),
        fix="Embedding(input_dim=lookup.vocabulary_size(), ...)",
    ),
    # InvalidArgumentError: Graph execution error:  (indices[0,0] = 101 is not in [0, 4); which raw id is reported first depends on the shuffle)
    Case(
        name="f28_two_tower_raw_user_ids_as_embedding_rows",
        family=FAMILY,
        code="""
user_ids = np.array([101, 205, 333, 478])
item_ids = np.array([3, 7, 1, 9])
u_in = keras.Input(shape=(1,), dtype="int32")
i_in = keras.Input(shape=(1,), dtype="int32")
u = keras.layers.Flatten()(keras.layers.Embedding(len(np.unique(user_ids)), 8)(u_in))
i = keras.layers.Flatten()(keras.layers.Embedding(10, 8)(i_in))
model = keras.Model([u_in, i_in], keras.layers.Dot(axes=1)([u, i]))
model.compile("adam", "mse")
model.fit([user_ids, item_ids], np.ones(4), epochs=1, verbose=0)
""",
        expect="S09",
        must=("478",),
        must_not=("output_dim",),
        fix="re-index user ids with IntegerLookup (or input_dim = max id + 1)",
    ),
    # ValueError: Exception encountered when calling HashedCrossing.call().  (All `HashedCrossing` inputs should have shape `()`, `(batch_size)` or `(batch_size, 1)`.)
    Case(
        name="f28_hashed_crossing_of_one_hot_encodings",
        family=FAMILY,
        code="""
color = keras.layers.StringLookup(vocabulary=["red", "blue"], output_mode="one_hot")
size = keras.layers.IntegerLookup(vocabulary=[36, 38, 40], output_mode="one_hot")
c = color(np.array([["red"], ["blue"]]))
s = size(np.array([[36], [40]]))
color_x_size = keras.layers.HashedCrossing(num_bins=8)((c, s))
""",
        expect="S01",
        must=("output_mode",),
        must_not=("reshape",),
        fix="cross the raw values (or lookups with output_mode='int'), one-hot the crossed ids",
    ),
    # UnimplementedError: Graph execution error:  (Cast string to int32 is not supported)
    Case(
        name="f28_string_user_ids_into_embedding",
        family=FAMILY,
        code="""
ds = tf.data.Dataset.from_tensor_slices((["u1", "u7", "u3", "u9"], [1.0, 0.0, 1.0, 0.0])).batch(2)
user = keras.Input(shape=(), dtype="int32")
x = keras.layers.Embedding(100, 8)(user)
model = keras.Model(user, keras.layers.Dense(1)(x))
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("stringlookup",),
        must_not=("astype",),
        fix="Input(dtype='string') -> StringLookup -> Embedding(lookup.vocabulary_size(), 8)",
    ),
    # InvalidArgumentError: Exception encountered when calling CategoryEncoding.call().  (Input 'in' must be non-negative! Negative input value found: -1)
    Case(
        name="f28_multi_hot_tags_padded_with_minus_one",
        family=FAMILY,
        code="""
tags = np.array([[0, 1, -1], [2, 3, -1]])
encoder = keras.layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")
features = encoder(tags)
""",
        expect="S09",
        must=("-1",),
        must_not=("increase num_tokens",),
        fix="pad with a real id (shift ids by 1 and num_tokens=5, or mask the padding)",
    ),
    # InvalidArgumentError: cannot compute Pack as input #1(zero-based) was expected to be a string tensor but is a int32 tensor [Op:Pack] name: packed
    Case(
        name="f28_lookup_adapt_on_features_and_labels",
        family=FAMILY,
        code="""
ds = tf.data.Dataset.from_tensor_slices((["paris", "rome", "oslo", "rome"], [0, 1, 0, 1])).batch(2)
city_lookup = keras.layers.StringLookup()
city_lookup.adapt(ds)
""",
        expect="S12",
        must=("map",),
        must_not=("as_string",),
        fix="city_lookup.adapt(ds.map(lambda x, y: x))",
    ),
    # ValueError: Both `num_bins` and `bin_boundaries` should not be set. Received: `num_bins=4` and `bin_boundaries=[18.0, 35.0, 60.0]`
    Case(
        name="f28_discretization_num_bins_and_boundaries",
        family=FAMILY,
        code="""
ages = np.array([[12.0], [25.0], [40.0], [71.0]])
age_bins = keras.layers.Discretization(num_bins=4, bin_boundaries=[18.0, 35.0, 60.0])
age_ids = age_bins(ages)
""",
        expect=None,
        unexplained=(
            "the message says `num_bins` and `bin_boundaries` must not both be set and shows "
            "both values: keep the boundaries (or num_bins + adapt)"
        ),
        fix="Discretization(bin_boundaries=[18.0, 35.0, 60.0])",
    ),
]
