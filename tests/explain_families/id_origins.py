"""Family: integer ids whose range is set by the layer or op that produced them.

API: the producers ``keras.layers.Hashing(num_bins=...)`` (ids in ``[0, num_bins)``),
``StringLookup``/``IntegerLookup`` (``vocabulary``, ``num_oov_indices`` (default 1),
``mask_token``; with ``output_mode="int"`` the index space is the mask token (if set),
then the OOV indices, then the vocabulary, so ``vocabulary_size()`` is
``len(vocabulary) + num_oov_indices (+ 1 for a mask)``, and before ``adapt`` it counts
only those reserved slots), ``TextVectorization(output_mode="int", max_tokens=...)``
(index 0 is padding ``''``, index 1 ``[UNK]``, then the adapted words, all within
``max_tokens``), ``Discretization(bin_boundaries=...)`` (N boundaries give N + 1 bins,
ids in ``[0, N]``), ``tf.strings.to_hash_bucket_fast(x, num_buckets)`` and
``HashedCrossing(num_bins)`` (ids anywhere in ``[0, num_buckets)``, whatever the number
of distinct raw values).  The consumers ``Embedding(input_dim=...)``, ``tf.gather`` on a
table, and a sparse loss over ``units`` classes take ids in ``[0, input_dim)`` /
``[0, len(table))`` / ``[0, units)``.  Contract: the consumer's range must be at least
the producer's output range (``num_bins``; ``vocabulary_size()`` with its OOV and mask
slots, read after ``adapt``; ``len(bin_boundaries) + 1``), not the number of distinct
raw values nor ``len(vocabulary)``.  On CPU an id past the range raises
``InvalidArgumentError: indices[..] = N is not in [0, M)`` (Embedding, gather) or
``Received a label value of N which is outside the valid range of [0, M)`` (sparse
loss).  ``CategoryEncoding(num_tokens=...)`` and ``tf.one_hot(depth=...)`` are
consumers of the same contract but in Keras 3.15 / TF 2.21 they drop an out-of-range
id silently (an all-zero row) instead of raising, so no case here uses them.
Evidence a diagnosis can read at the failure: the producing layer's config
(``num_bins``, ``vocabulary``, ``num_oov_indices``, ``mask_token``,
``vocabulary_size()``, ``bin_boundaries``) and where it sits (in the model graph before
the consumer, in a ``dataset.map``, or applied eagerly in the cell, e.g.
``to_hash_bucket_fast``), the consumer's ``input_dim`` (or table length, or output
units), the id and range in the error, and the ids in the data.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "id_origins"

CASES = [
    # InvalidArgumentError: Graph execution error:
    # ... indices[0,0] = 197 is not in [0, 8) [[{{node functional_1/city_emb_1/GatherV2}}]]
    # (Embedding's arguments swapped: input_dim=8, output_dim=1000; the Hashing layer's
    # ids reach 999, the data's largest is 861, so "input_dim = 862" is the wrong fix)
    Case(
        "idr_hashing_num_bins_embedding_args_swapped",
        FAMILY,
        """
cities = np.array([["paris"], ["lyon"], ["nice"], ["lille"], ["brest"], ["metz"]] * 5)
price = np.random.rand(30).astype("float32")
inp = keras.Input((1,), dtype="string")
ids = keras.layers.Hashing(num_bins=1000, name="city_hash")(inp)
x = keras.layers.Embedding(8, 1000, name="city_emb")(ids)
out = keras.layers.Dense(1)(keras.layers.Flatten()(x))
model = keras.Model(inp, out)
model.compile("adam", "mse")
ds = tf.data.Dataset.from_tensor_slices((cities, price)).batch(10)
model.fit(ds, epochs=1, verbose=0)
""",
        "S09",
        must=("city_hash", "1000"),
        must_not=("862",),
        fix="Embedding(input_dim=1000, output_dim=8)",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[3] = 4 is not in [0, 4) [[{{node sequential_1/color_emb_1/GatherV2}}]]
    # (StringLookup in a dataset.map: index 0 is the OOV slot, the 4 colors get 1..4)
    Case(
        "idr_stringlookup_in_map_embedding_len_vocabulary",
        FAMILY,
        """
colors = ["red", "green", "blue", "black"]
color_lookup = keras.layers.StringLookup(vocabulary=colors, name="color_lookup")
raw = np.array(["red", "green", "blue", "black"] * 10)
sales = np.random.rand(40).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((raw, sales)).batch(8)
ds = ds.map(lambda c, s: (color_lookup(c), s))
model = keras.Sequential([keras.Input((), dtype="int64"),
                          keras.layers.Embedding(len(colors), 3, name="color_emb"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S09",
        must=("color_lookup", "oov"),
        must_not=("label",),
        fix="input_dim=color_lookup.vocabulary_size()",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[0,0] = 4 is not in [0, 1) [[{{node .../genre_emb_1/GatherV2}}]]
    # (the id, 2 to 5, and its position vary with fit's shuffling)
    # (vocabulary_size() read before adapt: 1, the OOV slot only; after adapt it is 5)
    Case(
        "idr_vocabulary_size_read_before_adapt",
        FAMILY,
        """
genres = np.array(["rock", "jazz", "pop", "blues", "rock", "pop"] * 6)
plays = np.random.rand(36).astype("float32")
genre_lookup = keras.layers.StringLookup(name="genre_lookup")
n_genres = genre_lookup.vocabulary_size()
genre_lookup.adapt(genres)
inp = keras.Input((1,), dtype="string")
x = keras.layers.Embedding(n_genres, 4, name="genre_emb")(genre_lookup(inp))
out = keras.layers.Dense(1)(keras.layers.Flatten()(x))
model = keras.Model(inp, out)
model.compile("adam", "mse")
model.fit(tf.constant(genres.reshape(-1, 1)), plays, epochs=1, verbose=0)
""",
        "S09",
        must=("genre_lookup", "adapt"),
        must_not=("label",),
        fix="read vocabulary_size() after adapt",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[7,2] = 16 is not in [0, 16) [[{{node .../embedding_1/GatherV2}}]]
    # (16 distinct words, but TextVectorization adds '' and '[UNK]': vocabulary_size() 18)
    Case(
        "idr_textvectorization_distinct_word_count",
        FAMILY,
        """
reviews = ["great phone", "bad battery life", "great screen bad camera", "love it",
           "screen cracked", "battery is great", "would not buy again", "love the camera"] * 4
liked = np.array([1, 0, 1, 1, 0, 1, 0, 1] * 4, "float32")
vectorize = keras.layers.TextVectorization(output_mode="int", output_sequence_length=6)
vectorize.adapt(reviews)
vocab_size = len({w for r in reviews for w in r.split()})
model = keras.Sequential([keras.Input((6,), dtype="int64"),
                          keras.layers.Embedding(vocab_size, 8),
                          keras.layers.GlobalAveragePooling1D(),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(vectorize(np.array(reviews)), liked, epochs=1, verbose=0)
""",
        "S09",
        must=("vectoriz", "18"),
        must_not=("output_sequence_length",),
        fix="input_dim=vectorize.vocabulary_size()",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[0] = 215 is not in [0, 5) [[{{node .../embedding_1_1/GatherV2}}]]
    # (the id varies with fit's shuffling: 13, 215, ...)
    # (5 distinct browsers hashed into 256 buckets in the cell; the ids in the data reach
    # 215, so "input_dim = 216" is the wrong fix: unseen browsers land anywhere below 256)
    Case(
        "idr_hash_bucket_fast_distinct_value_count",
        FAMILY,
        """
agents = np.array(["chrome", "firefox", "safari", "edge", "opera"] * 8)
clicked = np.random.randint(0, 2, 40).astype("float32")
NUM_BUCKETS = 256
agent_ids = tf.strings.to_hash_bucket_fast(agents, NUM_BUCKETS)
n_agents = len(np.unique(agents))
model = keras.Sequential([keras.Input((), dtype="int64"),
                          keras.layers.Embedding(n_agents, 4),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(agent_ids, clicked, epochs=1, verbose=0)
""",
        "S09",
        must=("to_hash_bucket", "256"),
        must_not=("216",),
        fix="input_dim=NUM_BUCKETS",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[1,0] = 4 is not in [0, 4) [[{{node .../age_emb_1/GatherV2}}]]
    # (4 bin_boundaries make 5 buckets, ids 0..4; ages over 60 get id 4)
    Case(
        "idr_discretization_boundary_count_as_input_dim",
        FAMILY,
        """
age_bounds = [18.0, 30.0, 45.0, 60.0]
ages = np.array([[22.0], [35.0], [51.0], [67.0], [16.0], [40.0]] * 5, "float32")
spend = np.random.rand(30).astype("float32")
inp = keras.Input((1,))
bucket = keras.layers.Discretization(bin_boundaries=age_bounds, name="age_bucket")(inp)
x = keras.layers.Embedding(len(age_bounds), 3, name="age_emb")(bucket)
out = keras.layers.Dense(1)(keras.layers.Flatten()(x))
model = keras.Model(inp, out)
model.compile("adam", "mse")
model.fit(ages, spend, epochs=1, verbose=0)
""",
        "S09",
        must=("age_bucket", "age_emb"),
        must_not=("label", "oov"),
        fix="input_dim=len(age_bounds) + 1",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[0,0] = 451 is not in [0, 168) [[{{node .../slot_emb_1/GatherV2}}]]
    # (the id varies with fit's shuffling: 186, 451, ...)
    # (input_dim = 7 * 24 combinations, but HashedCrossing hashes into 512 bins; the
    # data's largest id is 509, so "input_dim = 510" is the wrong fix)
    Case(
        "idr_hashed_crossing_combination_count",
        FAMILY,
        """
rng = np.random.default_rng(7)
day = rng.integers(0, 7, (40, 1))
hour = rng.integers(0, 24, (40, 1))
rides = np.random.rand(40).astype("float32")
day_in = keras.Input((1,), dtype="int64", name="day")
hour_in = keras.Input((1,), dtype="int64", name="hour")
crossed = keras.layers.HashedCrossing(num_bins=512, name="day_x_hour")((day_in, hour_in))
x = keras.layers.Embedding(7 * 24, 8, name="slot_emb")(crossed)
out = keras.layers.Dense(1)(keras.layers.Flatten()(x))
model = keras.Model([day_in, hour_in], out)
model.compile("adam", "mse")
model.fit([day, hour], rides, epochs=1, verbose=0)
""",
        "S09",
        must=("day_x_hour", "512"),
        must_not=("510",),
        fix="input_dim=512 (num_bins)",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... indices[0,2] = 6 is not in [0, 6) [[{{node .../product_emb_1/GatherV2}}]]
    # (mask slot 0 counted with the + 1, the OOV slot 1 forgotten: vocabulary_size() is 7)
    Case(
        "idr_integerlookup_mask_counted_oov_forgotten",
        FAMILY,
        """
product_ids = [1001, 1002, 1003, 1004, 1005]
history = np.array([[1001, 1003, 0, 0], [1005, 1002, 1004, 0], [1002, 0, 0, 0],
                    [1004, 1001, 1005, 1003]] * 8)
bought = np.random.randint(0, 2, 32).astype("float32")
inp = keras.Input((4,), dtype="int64")
ids = keras.layers.IntegerLookup(vocabulary=product_ids, mask_token=0, name="product_lookup")(inp)
x = keras.layers.Embedding(len(product_ids) + 1, 8, mask_zero=True, name="product_emb")(ids)
x = keras.layers.GlobalAveragePooling1D()(x)
model = keras.Model(inp, keras.layers.Dense(1, activation="sigmoid")(x))
model.compile("adam", "binary_crossentropy")
model.fit(history, bought, epochs=1, verbose=0)
""",
        "S09",
        must=("product_lookup", "oov"),
        must_not=("label",),
        fix="input_dim=product_lookup.vocabulary_size()",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... Received a label value of 3 which is outside the valid range of [0, 3).
    # [[{{node compile_loss/sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/...}}]]
    # (labels from a StringLookup with the default OOV slot: classes map to 1..3)
    Case(
        "idr_stringlookup_labels_sparse_loss",
        FAMILY,
        """
classes = ["setosa", "versicolor", "virginica"]
species = np.array(classes * 15)
label_lookup = keras.layers.StringLookup(vocabulary=classes, name="label_lookup")
y = label_lookup(species)
x = np.random.rand(45, 4).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(len(classes), activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "P12",
        must=("label_lookup", "oov"),
        must_not=("embedding", "to_categorical"),
        fix="StringLookup(num_oov_indices=0) for labels",
    ),
    # InvalidArgumentError: {{function_node __wrapped__GatherV2_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} indices[3] = 3 is not in [0, 3) [Op:GatherV2] name:
    # (3 boundaries make 4 fee buckets, the rate table has one rate per boundary)
    Case(
        "idr_discretization_bucket_gathers_rate_table",
        FAMILY,
        """
boundaries = [1000.0, 5000.0, 20000.0]
rates = tf.constant([0.05, 0.04, 0.03])
amount_bucket = keras.layers.Discretization(bin_boundaries=boundaries, name="amount_bucket")
amounts = np.array([500.0, 2500.0, 12000.0, 45000.0, 800.0], "float32")
fees = amounts * tf.gather(rates, amount_bucket(amounts))
""",
        "S09",
        must=("amount_bucket", "rates"),
        must_not=("input_dim",),
        fix="one rate per bucket: len(boundaries) + 1",
    ),
]
