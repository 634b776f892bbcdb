"""Family: class labels, their encodings, and the losses that read them.

The APIs and their documented contract:

- ``keras.losses.SparseCategoricalCrossentropy`` / ``"sparse_categorical_crossentropy"``:
  ``y_true`` holds INTEGER class ids in ``[0, C)``, shape ``(N,)`` or ``(N, 1)``, against
  ``y_pred`` of shape ``(N, C)``; one-hot labels ``(N, C)`` are rejected ("Argument `output`
  must have rank (ndim) `target.ndim - 1`"), and an id outside ``[0, C)`` raises on CPU
  "Received a label value of K which is outside the valid range of [0, C)".  Over a single
  sigmoid unit (C = 1) every label 1 is out of range.
- ``keras.losses.CategoricalCrossentropy`` / ``"categorical_crossentropy"``: ``y_true`` is
  ONE-HOT ``(N, C)`` with the shape of ``y_pred``; integer ids ``(N,)`` or ``(N, 1)`` are
  rejected ("Arguments `target` and `output` must have the same rank / shape").  The fix is
  the sparse loss or ``keras.utils.to_categorical(y, num_classes=C)``.
- ``keras.losses.BinaryCrossentropy`` / ``"binary_crossentropy"``: targets in {0, 1} (or
  [0, 1]) with the shape of ``y_pred``: a ``Dense(1, "sigmoid")`` head for one binary label,
  a ``Dense(K, "sigmoid")`` head for K independent (multi-label, multi-hot) targets.
  Multi-hot targets, several ones per row, are neither sparse ids nor one-hot rows: softmax
  and the categorical losses (and ``argmax``) do not apply to them.
- ``keras.utils.to_categorical(y, num_classes)``: integer ids in ``[0, num_classes)``;
  ``tf.one_hot(indices, depth)``: ids outside ``[0, depth)`` become zero rows.
- ``keras.layers.StringLookup`` / ``IntegerLookup(vocabulary=..., num_oov_indices=1,
  mask_token=None)``: the vocabulary must hold unique terms ("The passed vocabulary has at
  least one repeated term"); by default index 0 is reserved for out-of-vocabulary terms, so
  a vocabulary of C labels maps to ids 1..C (``vocabulary_size()`` is C + 1); for labels use
  ``num_oov_indices=0`` (ids 0..C-1) or C + 1 output units.
- Labels must be numeric: ``fit`` cannot convert a NumPy array of strings ("Invalid dtype:
  str...") -- map them to ids first (``StringLookup``, ``np.unique(..., return_inverse=True)``).
- The number of output units equals the number of classes; ids that start at 1 (ratings
  1..5, classes numbered from 1) need ``y - 1`` or one more unit.

Evidence a diagnosis needs: the loss (and its sparse/categorical/binary kind), the output
layer's units and activation, the labels' shape, dtype, and value range (min, max, number
of distinct values, whether rows are one-hot, multi-hot or ids, whether ids start at 1), and
where the labels came from (``to_categorical``, a ``StringLookup`` with an OOV index, a
string column).
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="f21_to_categorical_then_sparse_loss",
        family="labels_and_encodings",
        code="""
x = np.random.rand(90, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 90), num_classes=3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("flatten",),
        fix='loss="categorical_crossentropy" (or drop to_categorical)',
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 1), output.shape=(None, 3)
    Case(
        name="f21_class_id_column_with_categorical_loss",
        family="labels_and_encodings",
        code="""
x = np.random.rand(90, 4).astype("float32")
y = np.random.randint(0, 3, (90, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
""",
        expect="M05",
        must=("sparse_categorical",),
        must_not=("dense(1",),
        fix='loss="sparse_categorical_crossentropy" (or to_categorical(y, 3))',
    ),
    # InvalidArgumentError: Graph execution error: (... Received a label value of 5 which is outside the valid range of [0, 5).  Label values: 5 5 4 5 1 ...)
    Case(
        name="f21_star_ratings_one_to_five",
        family="labels_and_encodings",
        code="""
x = np.random.rand(100, 8).astype("float32")
y = np.random.randint(1, 6, 100)   # star ratings 1..5
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
""",
        expect="P12",
        must=("start",),
        must_not=("to_categorical",),
        fix="shift the labels to 0..4 (y - 1)",
    ),
    # ValueError: Invalid dtype: str128
    Case(
        name="f21_animal_names_as_labels",
        family="labels_and_encodings",
        code="""
x = np.random.rand(6, 4).astype("float32")
y = np.array(["cat", "dog", "bird", "dog", "cat", "bird"])
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("label",),
        must_not=("float32",),
        fix="map the names to ids: classes, y_ids = np.unique(y, return_inverse=True)",
    ),
    # InvalidArgumentError: Graph execution error: (... Received a label value of 3 which is outside the valid range of [0, 3).  Label values: 2 3 2 1 ...)
    Case(
        name="f21_stringlookup_oov_shifts_label_ids",
        family="labels_and_encodings",
        code="""
species = np.array(["setosa", "versicolor", "virginica"] * 20)
x = np.random.rand(60, 4).astype("float32")
lookup = keras.layers.StringLookup(vocabulary=["setosa", "versicolor", "virginica"])
y = lookup(species).numpy()
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
""",
        expect="P12",
        must=("oov",),
        must_not=("to_categorical",),
        fix="StringLookup(..., num_oov_indices=0) so the ids are 0..2",
    ),
    # InvalidArgumentError: Graph execution error: (... Received a label value of 1 which is outside the valid range of [0, 1).  Label values: 1 0 0 1 ...)
    Case(
        name="f21_sigmoid_unit_with_sparse_loss",
        family="labels_and_encodings",
        code="""
x = np.random.rand(80, 10).astype("float32")
y = np.random.randint(0, 2, 80)
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
""",
        expect="M03",
        must=("binary_crossentropy",),
        must_not=("input_dim",),
        fix='loss="binary_crossentropy" with the Dense(1, sigmoid) head',
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 5), output.shape=(None, 5)
    Case(
        name="f21_multi_hot_tags_with_sparse_softmax",
        family="labels_and_encodings",
        code="""
x = np.random.rand(50, 12).astype("float32")
y = (np.random.rand(50, 5) > 0.6).astype("float32")   # several tags per example
model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("binary_crossentropy",),
        must_not=("argmax",),
        fix='Dense(5, activation="sigmoid") with loss="binary_crossentropy"',
    ),
    # ValueError: The passed vocabulary has at least one repeated term. Please uniquify your dataset. The repeated terms are: [np.str_('spam'), np.str_('ham')]
    Case(
        name="f21_label_vocabulary_from_raw_column",
        family="labels_and_encodings",
        code="""
labels = np.array(["spam", "ham", "ham", "spam", "ham"])
lookup = keras.layers.StringLookup(vocabulary=list(labels), num_oov_indices=0)
y = lookup(labels)
""",
        expect=None,
        must_not=("num_oov_indices",),
        unexplained="Keras says the vocabulary has repeated terms, names them, and says to "
        "uniquify it.",
        fix="vocabulary=np.unique(labels)",
    ),
]
