"""Family: class labels and their encodings.

The APIs and their documented contract (Keras 3 / TensorFlow):

- Sparse losses and metrics (``sparse_categorical_crossentropy``,
  ``SparseCategoricalAccuracy``) take integer class ids, ``y_true`` of shape ``(N,)`` or
  ``(N, 1)``, each in ``[0, C)`` for an output of ``C`` units; an id outside raises on
  CPU "Received a label value of K which is outside the valid range of [0, C)".  The
  loss checks ranks: one-hot ``(N, C)`` labels against ``(N, C)`` scores fail with
  "Argument `output` must have rank (ndim) `target.ndim - 1`".
- Dense losses (``categorical_crossentropy``, ``binary_crossentropy``) take ``y_true``
  of the SAME shape as ``y_pred``: one-hot ``(N, C)`` for a softmax over ``C`` classes,
  multi-hot ``(N, C)`` (several ones per row) for independent sigmoids, ``(N, 1)`` or
  ``(N,)`` 0/1 for one sigmoid unit.  Integer ids ``(N,)`` or ``(N, 1)`` against
  ``(N, C)`` fail with "must have the same rank" / "must have the same shape".
  ``binary_crossentropy`` belongs to sigmoid outputs (one unit, or one per label), not
  to a softmax over 2 units with 0/1 ids.
- ``keras.utils.to_categorical(y, num_classes=None)``: ``y`` integer ids in
  ``[0, num_classes)``; ``num_classes`` defaults to ``max(y) + 1`` (so ids 1..K give K+1
  columns, the first never used); an id ``>= num_classes`` raises NumPy's "index K is
  out of bounds for axis 1 with size K"; strings raise "invalid literal for int()".
- ``tf.one_hot(indices, depth)``: ``indices`` must be an integer tensor (uint8, int8,
  int32, int64); float class ids (labels read from a CSV or ``astype("float32")``) raise
  "Value passed to parameter 'indices' has DataType float32 not in list of allowed
  values"; ids outside ``[0, depth)`` give all-zero rows silently.
- ``keras.layers.StringLookup`` / ``IntegerLookup(num_oov_indices=1, mask_token=None,
  output_mode="int")``: the vocabulary starts with the mask token (if any), then the OOV
  indices, then the learned terms, so with the defaults ``adapt``-ed class names map to
  ``1..K`` and index 0 is the OOV bucket: as labels they need ``num_oov_indices=0`` or
  ``vocabulary_size()`` output units.  ``output_mode="one_hot"`` gives dense labels.
- String class names (``"cat"``, ``"dog"``) cannot reach ``fit``: Keras refuses the array
  ("Invalid dtype: str128"); they must be encoded to ids first (``StringLookup``,
  ``np.unique(..., return_inverse=True)``).

Evidence a diagnosis needs: the label array's dtype, shape and value set (min, max,
distinct values, whether rows are one-hot or multi-hot), the output layer's units and
activation, the loss (sparse or dense, binary or categorical) and which side of the
contract each argument is on, and where the labels came from (which encoder and its
OOV/mask settings, ``to_categorical``'s inferred ``num_classes``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "labels_and_encodings"

CASES = [
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="f20_to_categorical_labels_into_sparse_loss",
        family=FAMILY,
        code="""
x = np.random.rand(30, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 30), num_classes=3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("Flatten", "sigmoid"),
        fix="loss='categorical_crossentropy' (or integer labels)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 1), output.shape=(None, 3)
    Case(
        name="f20_column_of_class_ids_with_categorical_loss",
        family=FAMILY,
        code="""
x = np.random.rand(30, 4).astype("float32")
y = np.random.randint(0, 3, (30, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("Flatten", "sigmoid"),
        fix="loss='sparse_categorical_crossentropy'",
    ),
    # IndexError: index 3 is out of bounds for axis 1 with size 3
    Case(
        name="f20_to_categorical_on_grades_one_to_three",
        family=FAMILY,
        code="""
grades = np.array([1, 2, 3, 3, 2, 1, 1, 3, 2, 2])
x = np.random.rand(10, 4).astype("float32")
n_classes = len(np.unique(grades))
y = keras.utils.to_categorical(grades, num_classes=n_classes)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(n_classes, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="P12",
        must=("num_classes",),
        must_not=("dtype",),
        fix="to_categorical(grades - 1, num_classes=3)",
    ),
    # ValueError: Invalid dtype: str320
    Case(
        name="f20_species_names_passed_as_targets",
        family=FAMILY,
        code="""
x = np.random.rand(30, 4).astype("float32")
y = np.random.choice(["setosa", "versicolor", "virginica"], 30)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("str", "label"),
        must_not=('astype("float32")', "astype('float32')"),
        fix="encode the names to ids (StringLookup(num_oov_indices=0) or np.unique)",
    ),
    # InvalidArgumentError: Graph execution error: ... Received a label value of 3 which is
    # outside the valid range of [0, 3).
    Case(
        name="f20_string_lookup_labels_keep_oov_slot",
        family=FAMILY,
        code="""
x = np.random.rand(30, 4).astype("float32")
names = np.random.choice(["cat", "dog", "bird"], 30)
to_id = keras.layers.StringLookup()
to_id.adapt(names)
y = to_id(names)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="P12",
        must=("oov",),
        must_not=("to_categorical",),
        fix="StringLookup(num_oov_indices=0)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 5), output.shape=(None, 5)
    Case(
        name="f20_multi_hot_tags_with_sparse_softmax",
        family=FAMILY,
        code="""
x = np.random.rand(30, 8).astype("float32")
tags = np.random.randint(0, 2, (30, 5)).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, tags, epochs=1, verbose=0)
""",
        expect="M05",
        must=("binary",),
        must_not=("to_categorical", "argmax"),
        fix="sigmoid outputs with binary_crossentropy",
    ),
    # TypeError: Value passed to parameter 'indices' has DataType float32 not in list of
    # allowed values: uint8, int8, int32, int64
    Case(
        name="f20_tf_one_hot_on_float_labels_in_map",
        family=FAMILY,
        code="""
table = np.random.rand(30, 5).astype("float32")
table[:, 4] = np.random.randint(0, 3, 30)
ds = tf.data.Dataset.from_tensor_slices((table[:, :4], table[:, 4]))
ds = ds.map(lambda features, label: (features, tf.one_hot(label, 3))).batch(8)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("cast",),
        must_not=("StringLookup",),
        fix="tf.one_hot(tf.cast(label, tf.int32), 3)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received:
    # target.shape=(None,), output.shape=(None, 2)
    Case(
        name="f20_binary_crossentropy_on_two_unit_softmax",
        family=FAMILY,
        code="""
x = np.random.rand(30, 4).astype("float32")
y = np.random.randint(0, 2, 30)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M03",
        must=("softmax",),
        must_not=("Flatten",),
        fix="Dense(1, activation='sigmoid') (or sparse_categorical_crossentropy)",
    ),
]
