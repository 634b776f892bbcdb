"""Family: ``keras.utils`` helpers and dataset builders, where their outputs meet a model.

The APIs and their documented contract:

- ``keras.utils.to_categorical(x, num_classes=None)``: integer class ids in
  ``[0, num_classes)`` to a one-hot float matrix ``(N, num_classes)`` (for
  ``categorical_crossentropy``); ids that start at 1 (ratings 1..10) need
  ``num_classes = max + 1`` or ``x - 1``, an id equal to ``num_classes`` raises NumPy's
  ``IndexError``.  One-hot labels go with ``CategoricalCrossentropy``; the sparse losses
  want the integer ids (shape ``(N,)`` or ``(N, 1)``).
- ``keras.utils.image_dataset_from_directory(directory, labels="inferred",
  label_mode="int", class_names=None, color_mode="rgb", batch_size=32,
  image_size=(256, 256), shuffle=True, seed=None, ...)``: one class per subfolder
  (alphabetical order unless ``class_names`` lists them, which must match the subfolder
  names); yields ``(images, labels)`` with float32 images of ``image_size`` (resized, so
  the model's ``Input`` must use the same size; default 256x256) and 3 channels for
  ``"rgb"``; ``label_mode``: ``"int"`` (sparse ids), ``"categorical"`` (one-hot, for
  ``CategoricalCrossentropy``), ``"binary"`` (exactly 2 classes, float 0/1), ``None``
  (images ONLY: no labels, so ``fit`` has no targets); ``batch_size=None`` yields single
  unbatched images.  ``.class_names`` exists on the returned dataset only, not after
  ``map``.
- ``keras.utils.text_dataset_from_directory`` (same layout, ``.txt`` files) yields
  ``(strings, labels)``: raw text of dtype ``tf.string``, shape ``(B,)``; a
  ``TextVectorization`` layer (adapted on the text only) must turn it into token ids
  before an ``Embedding``.
- ``keras.utils.split_dataset(dataset, left_size=None, right_size=None, shuffle=False,
  seed=None)`` accepts a ``tf.data.Dataset``, a list/tuple of arrays of equal length, or an
  array, and returns two UNBATCHED ``tf.data.Dataset`` objects; they must be batched
  before ``fit``.
- ``keras.utils.pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre",
  truncating="pre", value=0.0)`` turns a list of variable-length id lists into a
  rectangular ``(N, maxlen)`` array; Keras cannot take the ragged lists (or an object array
  of them) as ``x`` directly.
- ``keras.utils.normalize(x, axis=-1, order=2)`` is an L2 normalization (not a
  standardization); ``keras.utils.set_random_seed(seed)`` wants an int.

The evidence a diagnosis needs to name the cause: what the builder produced (element
shapes, dtypes, whether batched, label encoding and its range) against what the model's
``Input`` and loss expect, and which builder argument (``image_size``, ``label_mode``,
``batch_size``, ``num_classes``, a missing ``pad_sequences``/``TextVectorization`` step)
made the difference.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras_utils_and_dataset_builders"

_IMAGE_FOLDERS = """
import os, tempfile
root = tempfile.mkdtemp()
for name in ["cat", "dog", "fox"]:
    os.makedirs(os.path.join(root, name))
    for i in range(4):
        img = np.random.RandomState(i).randint(0, 255, (40, 40, 3)).astype("uint8")
        tf.io.write_file(os.path.join(root, name, f"{i}.png"), tf.io.encode_png(img))
"""

CASES = [
    # IndexError: index 10 is out of bounds for axis 1 with size 10
    Case(
        name="f27_to_categorical_ratings_one_to_ten",
        family=FAMILY,
        code="""
ratings = np.array([1, 2, 3, 10, 5, 7, 4, 9])
x = np.random.RandomState(0).rand(8, 4).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy")
y = keras.utils.to_categorical(ratings, num_classes=10)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="P12",
        must=("10",),
        must_not=("sparse_categorical",),
        fix="to_categorical(ratings - 1, num_classes=10)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="f27_image_dataset_categorical_labels_sparse_loss",
        family=FAMILY,
        code=_IMAGE_FOLDERS
        + """
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(32, 32), batch_size=4, label_mode="categorical"
)
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("flatten",),
        fix="label_mode='int' or CategoricalCrossentropy(from_logits=True)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... expected axis -1 of input shape to have value 12288, but received input with shape (None, 196608))
    Case(
        name="f27_image_dataset_default_256_vs_input_64",
        family=FAMILY,
        code=_IMAGE_FOLDERS
        + """
train_ds = keras.utils.image_dataset_from_directory(root, batch_size=4)
model = keras.Sequential([
    keras.Input((64, 64, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Flatten(),
    keras.layers.Dense(3),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("image_size",),
        must_not=("reshape",),
        fix="image_dataset_from_directory(..., image_size=(64, 64))",
    ),
    # ValueError: None values not supported.
    Case(
        name="f27_image_dataset_label_mode_none_then_fit",
        family=FAMILY,
        code=_IMAGE_FOLDERS
        + """
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(32, 32), batch_size=4, label_mode=None
)
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("label_mode",),
        must_not=("fillna", "dropna"),
        fix="label_mode='int' (labels inferred from the subfolders)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'global_average_pooling1d_2' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 8)
    Case(
        name="f27_text_dataset_raw_strings_into_embedding",
        family=FAMILY,
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for label, words in [("neg", "dull boring plot"), ("pos", "great fun acting")]:
    os.makedirs(os.path.join(root, label))
    for i in range(4):
        with open(os.path.join(root, label, f"review_{i}.txt"), "w") as f:
            f.write(f"{words} review number {i}")
train_ds = keras.utils.text_dataset_from_directory(root, batch_size=4)
model = keras.Sequential([
    keras.layers.Embedding(1000, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("string",),
        must_not=("return_sequences",),
        fix="a TextVectorization layer (adapted on the text) before the Embedding",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... Expected shape (None, 4), but input has incompatible shape (4,))
    Case(
        name="f27_split_dataset_halves_fed_unbatched",
        family=FAMILY,
        code="""
x = np.random.RandomState(0).rand(40, 4).astype("float32")
y = np.random.RandomState(1).randint(0, 2, 40)
train_ds, val_ds = keras.utils.split_dataset((x, y), left_size=0.8, shuffle=True, seed=0)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(train_ds, validation_data=val_ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("expand_dims",),
        fix="train_ds.batch(32), val_ds.batch(32)",
    ),
    # ValueError: Invalid dtype: object
    Case(
        name="f27_token_lists_of_different_lengths_not_padded",
        family=FAMILY,
        code="""
sequences = [[3, 8, 1], [4, 9, 12, 5, 2], [7], [6, 6]]
labels = np.array([0, 1, 0, 1])
model = keras.Sequential([
    keras.Input((None,)),
    keras.layers.Embedding(20, 4),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(np.array(sequences, dtype=object), labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad",),
        must_not=("astype",),
        fix="x = keras.utils.pad_sequences(sequences)",
    ),
    # ValueError: The `class_names` passed did not match the names of the subdirectories of the target directory. Expected: ['cat', 'dog', 'fox'] (or a subset of it), but received: class_names=['cats', 'dogs', 'foxes']
    Case(
        name="f27_image_dataset_class_names_not_folder_names",
        family=FAMILY,
        code=_IMAGE_FOLDERS
        + """
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(32, 32), batch_size=4, class_names=["cats", "dogs", "foxes"]
)
""",
        expect=None,
        unexplained="the message lists the subfolder names it expected next to the "
        "class_names it received",
        fix="class_names=['cat', 'dog', 'fox'] (the folder names)",
    ),
]
