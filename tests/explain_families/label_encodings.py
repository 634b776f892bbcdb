"""Family: labels and their encodings for classification.

API: class ids as integers ``(n,)``/``(n, 1)`` against one-hot (or multi-hot) rows
``(n, C)``; ``keras.utils.to_categorical(y, num_classes=None)`` (takes integer class
ids in ``[0, num_classes)``; without ``num_classes`` the width is ``max(y) + 1``, so ids
that start at 1 give an extra, never-used column; strings cannot be converted);
``sparse_categorical_crossentropy`` (integer ids, output ``(n, C)``),
``categorical_crossentropy`` (one-hot rows as wide as the output),
``binary_crossentropy`` (targets of the same shape as the output: one sigmoid unit
for two classes, C sigmoid units for multi-label rows with several 1s); the output
layer's ``units`` and ``activation`` against the number of classes;
``keras.layers.StringLookup`` (``output_mode="int"`` reserves index 0 for the OOV
token by default, ``num_oov_indices=1``, so a vocabulary of C words maps to
``1..C``); ``keras.utils.image_dataset_from_directory(label_mode=...)`` (``"int"``
gives ids, ``"categorical"`` one-hot rows, ``"binary"`` a float 0/1 and needs exactly
two class folders); ``fit(sample_weight=...)`` (one weight per sample, as many as
``x`` and ``y``; per-class weights go in ``class_weight``); metrics that read a given
encoding (``AUC``/``Precision`` read one-hot or binary targets of the output's shape,
``SparseCategoricalAccuracy`` reads ids).  Contract: the labels' encoding, width and
value range match the loss and the output layer (ids in ``[0, units)`` for a sparse
loss, rows of width ``units`` for a dense one).  Evidence a diagnosis can read at the
failure: the labels' values (min, max, distinct ids, 1s per row), dtype and shape; the
output layer's units and activation; the loss and metrics given to ``compile``; the
mapping in the user's code (``to_categorical``, ``StringLookup``, ``label_mode``).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "label_encodings"

CASES = [
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 3), output.shape=(None, 3)
    # (label_mode="categorical" yields one-hot rows; the loss is the sparse one)
    Case(
        "lab_image_dir_categorical_labels_sparse_loss",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for name in ["bird", "cat", "dog"]:
    os.makedirs(os.path.join(root, name))
    for i in range(4):
        img = tf.cast(tf.random.uniform((8, 8, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, name, f"{i}.png"), tf.io.encode_png(img))
train_ds = keras.utils.image_dataset_from_directory(
    root, label_mode="categorical", image_size=(8, 8), batch_size=4, verbose=False)
model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Rescaling(1 / 255),
                          keras.layers.Flatten(), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=1, verbose=0)
""",
        "M05",
        must=("label_mode",),
        must_not=("flatten", "image_size"),
        fix='label_mode="int", or categorical_crossentropy',
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 5), output.shape=(None, 5)
    # (multi-label rows with several 1s, sigmoid outputs, but a sparse loss)
    Case(
        "lab_multi_hot_tags_sparse_loss",
        FAMILY,
        """
texts = np.random.rand(40, 12).astype("float32")
tags = (np.random.rand(40, 5) > 0.6).astype("float32")  # several tags per post
model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(5, activation="sigmoid")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(texts, tags, epochs=1, verbose=0)
""",
        "M05",
        must=("tags", "binary_crossentropy"),
        must_not=("argmax",),
        fix="binary_crossentropy for multi-hot tags",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 6), output.shape=(None, 5)
    # (star ratings 1..5: to_categorical makes max + 1 = 6 columns, id 5 is out of [0, 5))
    Case(
        "lab_ratings_from_one_to_categorical",
        FAMILY,
        """
reviews = np.random.rand(40, 8).astype("float32")
ratings = np.random.permutation(np.repeat(np.arange(1, 6), 8))  # 1 to 5 stars
y = keras.utils.to_categorical(ratings)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(5, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(reviews, y, epochs=1, verbose=0)
""",
        "P12",
        must=("ratings",),
        must_not=("flatten", "expand_dims"),
        fix="to_categorical(ratings - 1, 5)",
    ),
    # InvalidArgumentError: Graph execution error: ... Received a label value of 3 which
    # is outside the valid range of [0, 3).  Label values: 2 3 3 2 ...
    # (StringLookup reserves id 0 for OOV: 3 species map to 1..3)
    Case(
        "lab_stringlookup_oov_shifts_label_ids",
        FAMILY,
        """
species = np.array(["setosa", "versicolor", "virginica"] * 10)
features = np.random.rand(30, 4).astype("float32")
label_lookup = keras.layers.StringLookup()
label_lookup.adapt(species)
y = label_lookup(species).numpy()
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(features, y, epochs=1, verbose=0)
""",
        "P12",
        must=("label_lookup",),
        must_not=("input_dim", "embedding"),
        fix="StringLookup(num_oov_indices=0), or y - 1",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 3), output.shape=(None, 10)
    # (an MNIST template's Dense(10) head reused for a 3-class problem)
    Case(
        "lab_template_head_ten_units_three_classes",
        FAMILY,
        """
x = np.random.rand(36, 16).astype("float32")
y_raw = np.random.permutation(np.arange(36) % 3)
y = keras.utils.to_categorical(y_raw)
model = keras.Sequential([
    keras.Input((16,)),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(10, activation="softmax", name="predictions"),
])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        "M04",
        must=("predictions", "10"),
        must_not=("sparse_categorical", "flatten"),
        fix="Dense(3) for 3 classes",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    # Received: target.shape=(None,), output.shape=(None, 2)
    # (0/1 labels, two-unit softmax, binary cross-entropy)
    Case(
        "lab_binary_loss_on_two_unit_softmax",
        FAMILY,
        """
x = np.random.rand(40, 6).astype("float32")
is_spam = np.random.randint(0, 2, 40)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(x, is_spam, epochs=1, verbose=0)
""",
        "M03",
        must=("binary_crossentropy",),
        must_not=("flatten", "expand_dims"),
        fix="Dense(1, sigmoid), or a sparse loss",
    ),
    # InvalidArgumentError: Graph execution error: ... data.shape = [32] does not start
    # with segment_ids.shape = [96]  [[{{node UnsortedSegmentSum_1}}]]
    # (AUC reads targets of the output's shape; the labels are sparse class ids)
    Case(
        "lab_auc_metric_on_sparse_class_ids",
        FAMILY,
        """
x = np.random.rand(40, 6).astype("float32")
y = np.random.randint(0, 3, 40)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=[keras.metrics.AUC()])
model.fit(x, y, epochs=1, verbose=0)
""",
        "M07",
        must=("auc",),
        must_not=("from_logits", "threshold"),
        fix="one-hot labels with categorical loss, or drop AUC",
    ),
    # ValueError: invalid literal for int() with base 10: np.str_('cat')
    # (text labels passed to to_categorical without mapping them to ids)
    Case(
        "lab_to_categorical_on_text_labels",
        FAMILY,
        """
animal = np.array(["cat", "dog", "bird"] * 10)
x = np.random.rand(30, 6).astype("float32")
y = keras.utils.to_categorical(animal, num_classes=3)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S11",
        must=("animal",),
        must_not=("float32",),
        fix="map the names to ids first (StringLookup / np.unique)",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 40
    # (one weight per class passed as sample_weight)
    Case(
        "lab_per_class_weights_as_sample_weight",
        FAMILY,
        """
x = np.random.rand(40, 6).astype("float32")
y = np.random.randint(0, 3, 40)
weights = np.array([1.0, 2.0, 5.0])  # class 2 is rare
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, sample_weight=weights, epochs=1, verbose=0)
""",
        "S12",
        must=("sample_weight",),
        must_not=("batch axis", "validation_data"),
        fix="class_weight={0: 1, 1: 2, 2: 5}, or weights[y]",
    ),
    # ValueError: When passing `label_mode="binary"`, there must be exactly 2
    # class_names. Received: class_names=['bird', 'cat', 'dog']
    Case(
        "lab_image_dir_binary_mode_three_folders",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for name in ["bird", "cat", "dog"]:
    os.makedirs(os.path.join(root, name))
    for i in range(4):
        img = tf.cast(tf.random.uniform((8, 8, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, name, f"{i}.png"), tf.io.encode_png(img))
train_ds = keras.utils.image_dataset_from_directory(
    root, label_mode="binary", image_size=(8, 8), batch_size=4, verbose=False)
""",
        None,
        unexplained=(
            'Keras says label_mode="binary" needs exactly 2 class folders and lists the 3 '
            "it found; the fix (int or categorical labels) follows plainly"
        ),
        fix='label_mode="int" or "categorical"',
    ),
]
