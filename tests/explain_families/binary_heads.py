"""Family: classification heads and the loss (or metric) they are paired with.

API: the output layer ``Dense(units, activation="sigmoid" | "softmax" | None)``; the
losses ``binary_crossentropy`` / ``BinaryCrossentropy``, ``categorical_crossentropy`` /
``CategoricalCrossentropy``, ``sparse_categorical_crossentropy`` /
``SparseCategoricalCrossentropy``, ``BinaryFocalCrossentropy``,
``CategoricalFocalCrossentropy`` (each with ``from_logits``), given to ``compile`` or
called as ``loss_fn(y_true, y_pred)`` inside a ``tf.GradientTape`` loop; the metrics
``BinaryAccuracy``, ``SparseCategoricalAccuracy``, ``AUC``; the labels passed to
``fit``/``evaluate`` (0/1 vectors, integer class ids, one-hot rows, multi-hot rows).
Contract (Keras documentation): a binary loss takes labels shaped like the output, one
0/1 column per sigmoid unit (multi-label: one column per tag); a sparse categorical
loss or metric takes one integer id per example, in ``[0, units)``, against
``(batch, units)`` scores ("a single floating point value per feature for y_true");
a categorical loss takes one-hot rows of width ``units``; a 2-unit softmax is trained
with a sparse/categorical loss, a 1-unit sigmoid with a binary loss; the loss's first
argument is ``y_true``, the second ``y_pred``.  Keras 3 checks the pairing only by
shape ("Arguments `target` and `output` must have the same shape/rank", "Argument
`output` must have rank (ndim) `target.ndim - 1`") or fails inside the op ("Received a
label value of 1 which is outside the valid range of [0, 1)", "Incompatible shapes:
[32,3] vs. [32]"), so the message names neither the head nor the fix.  Evidence a
diagnosis can read at the failure: the output layer's name, units and activation; the
loss's class/name and ``from_logits``; the compiled metrics; the labels' shape, dtype
and values (only 0/1? integer ids and their largest value? rows that sum to 1? rows
with several 1s?); and, in a loop, which tensor was passed in which argument slot (the
model's own output as ``y_true``).  Two fixes usually fit (change the loss, or change
the head/labels); a right finding names both.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "binary_heads"

CASES = [
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    # Received: target.shape=(16,), output.shape=(16, 2)
    # (binary_crossentropy compiled on a 2-unit softmax head, 0/1 labels of shape (48,))
    Case(
        "bh_binary_loss_on_two_unit_softmax",
        FAMILY,
        """
features = np.random.rand(48, 6).astype("float32")
churned = np.random.randint(0, 2, 48)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(2, activation="softmax", name="churn_out")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(features, churned, epochs=1, batch_size=16, verbose=0)
""",
        "M03",
        must=("binary_crossentropy", "softmax"),
        must_not=("expand_dims", "from_logits=true"),
        fix="sparse_categorical_crossentropy, or Dense(1, sigmoid)",
    ),
    # InvalidArgumentError: Graph execution error: ... Received a label value of 1 which
    # is outside the valid range of [0, 1).  Label values: 1 0 1 1 0 1 1 1 1 1
    # (sparse_categorical_crossentropy on a 1-unit sigmoid head, 0/1 labels; fails in evaluate)
    Case(
        "bh_sparse_loss_on_one_unit_sigmoid_evaluate",
        FAMILY,
        """
rng = np.random.default_rng(1)
x_val = rng.random((40, 8), dtype="float32")
y_val = rng.integers(0, 2, 40)
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(10)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid", name="is_fraud")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.evaluate(val_ds, verbose=0)
""",
        "M03",
        must=("sparse_categorical_crossentropy", "sigmoid"),
        must_not=("input_dim", "embedding"),
        fix="binary_crossentropy, or Dense(2, softmax)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    # Received: target.shape=(8, 1), output.shape=(8, 2)
    # (CategoricalCrossentropy with a single 0/1 label column on a 2-unit softmax)
    Case(
        "bh_categorical_loss_single_label_column",
        FAMILY,
        """
emails = np.random.rand(40, 10).astype("float32")
is_spam = np.random.randint(0, 2, (40, 1)).astype("float32")
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", keras.losses.CategoricalCrossentropy(), metrics=["accuracy"])
model.fit(emails, is_spam, epochs=1, batch_size=8, verbose=0)
""",
        "M05",
        must=("is_spam",),
        must_not=("from_logits", "flatten"),
        fix="sparse loss, or to_categorical(is_spam, 2)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    # Received: target.shape=(8, 5), output.shape=(8, 5)
    # (multi-hot tag rows given to sparse_categorical_crossentropy on a 5-unit sigmoid head)
    Case(
        "bh_multi_hot_tags_sparse_loss",
        FAMILY,
        """
rng = np.random.default_rng(4)
n_tags = 5
articles = rng.random((40, 12), dtype="float32")
tags = (rng.random((40, n_tags)) > 0.6).astype("float32")  # an article can carry several tags
model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(n_tags, activation="sigmoid")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(articles, tags, epochs=1, batch_size=8, verbose=0)
""",
        "M05",
        must=("tags", "sparse_categorical_crossentropy"),
        must_not=("argmax",),
        fix="binary_crossentropy for multi-hot tags",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    # Received: target.shape=(8, 2), output.shape=(8, 1)
    # (one-hot rows from to_categorical given to BinaryCrossentropy on a 1-unit sigmoid)
    Case(
        "bh_one_hot_labels_binary_loss_one_unit",
        FAMILY,
        """
x = np.random.rand(40, 4).astype("float32")
y = np.random.randint(0, 2, 40)
y_onehot = keras.utils.to_categorical(y, num_classes=2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", keras.losses.BinaryCrossentropy(), metrics=[keras.metrics.BinaryAccuracy()])
model.fit(x, y_onehot, epochs=1, batch_size=8, verbose=0)
""",
        "M05",
        must=("y_onehot",),
        must_not=("sparse_categorical_crossentropy",),
        fix="pass the 0/1 column y, or Dense(2, softmax)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    # Received: target.shape=(12,), output.shape=(12, 3)
    # (BinaryFocalCrossentropy compiled on a 3-class softmax head with integer ids)
    Case(
        "bh_binary_focal_on_three_class_softmax",
        FAMILY,
        """
images = np.random.rand(36, 8, 8, 1).astype("float32")
defect_type = np.random.randint(0, 3, 36)  # 0 scratch, 1 dent, 2 stain
model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", keras.losses.BinaryFocalCrossentropy(gamma=2.0), metrics=["accuracy"])
model.fit(images, defect_type, epochs=1, batch_size=12, verbose=0)
""",
        "M03",
        must=("focal", "softmax"),
        must_not=("flatten", "pooling"),
        fix="CategoricalFocalCrossentropy with one-hot ids, or a sparse loss",
    ),
    # InvalidArgumentError: Graph execution error: ... Detected at node Equal_1 ...
    # Incompatible shapes: [32,3] vs. [32]
    # (sparse_categorical_accuracy metric with one-hot labels; the loss is right)
    Case(
        "bh_sparse_accuracy_metric_on_one_hot",
        FAMILY,
        """
rng = np.random.default_rng(7)
pixels = rng.random((45, 8), dtype="float32")
fruit_onehot = keras.utils.to_categorical(rng.integers(0, 3, 45), 3)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
model.fit(pixels, fruit_onehot, epochs=1, verbose=0)
""",
        "M05",
        must=("sparse_categorical_accuracy",),
        must_not=("drop_remainder", "batch_size"),
        fix="categorical_accuracy for one-hot labels",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    # Received: target.shape=(32, 3), output.shape=(32,)
    # (loss called as loss_fn(logits, class_ids) in a GradientTape loop: arguments swapped)
    Case(
        "bh_swapped_loss_arguments_in_tape",
        FAMILY,
        """
x = np.random.rand(32, 6).astype("float32")
class_ids = np.random.randint(0, 3, 32)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(1e-3)
with tf.GradientTape() as tape:
    logits = model(x, training=True)
    loss = loss_fn(logits, class_ids)
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "M05",
        must=("loss_fn", "class_ids"),
        must_not=("to_categorical",),
        fix="loss_fn(class_ids, logits)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    # Received: target.shape=(8, 5), output.shape=(8, 4)
    # (multi-label head hard-coded to 4 sigmoid units, 5 genre columns in the labels)
    Case(
        "bh_multilabel_head_one_unit_short",
        FAMILY,
        """
genres = ["action", "comedy", "drama", "horror", "romance"]
plots = np.random.rand(40, 16).astype("float32")
genre_labels = (np.random.rand(40, len(genres)) > 0.6).astype("float32")
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(4, activation="sigmoid", name="genre_head")])
model.compile("adam", "binary_crossentropy", metrics=[keras.metrics.AUC(multi_label=True)])
model.fit(plots, genre_labels, epochs=1, batch_size=8, verbose=0)
""",
        "M04",
        must=("genre_head",),
        must_not=("sparse_categorical", "argmax"),
        fix="Dense(len(genres), sigmoid)",
    ),
    # InvalidArgumentError: Graph execution error: ... Received a label value of 3 which
    # is outside the valid range of [0, 3).  Label values: 1 0 1 2 0 2 1 3
    # (4 species, ids 0..3 all present, logits head with only 3 units)
    Case(
        "bh_sparse_ids_beyond_logit_units",
        FAMILY,
        """
measurements = np.random.rand(40, 4).astype("float32")
species = np.arange(40) % 4  # setosa, versicolor, virginica, hybrid
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, name="species_logits")])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=[keras.metrics.SparseCategoricalAccuracy()])
model.fit(measurements, species, epochs=1, batch_size=8, verbose=0)
""",
        "M04",
        must=("species_logits",),
        must_not=("subtract", "start at 1", "input_dim"),
        fix="Dense(4) for 4 species",
    ),
]
