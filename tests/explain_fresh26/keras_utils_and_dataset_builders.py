"""Family: Keras' data utilities and dataset builders, and how their outputs meet a model.

The APIs and their documented contract:

* ``keras.utils.to_categorical(x, num_classes=None)``: integer class ids -> a float one-hot
  matrix ``(N, num_classes)``; without ``num_classes`` the width is ``max(x) + 1`` (ids
  that start at 1 give an extra, always-zero column 0); an id >= ``num_classes`` raises
  ``IndexError`` from NumPy ("index 3 is out of bounds for axis 1 with size 3").  One-hot
  labels go with ``categorical_crossentropy``; integer ids with the sparse loss.
* ``keras.utils.image_dataset_from_directory(directory, labels="inferred",
  label_mode="int", class_names=None, color_mode="rgb", batch_size=32,
  image_size=(256, 256), shuffle=True, seed=None, validation_split=None, subset=None, ...)``:
  one subfolder per class (alphanumeric order gives the ids; ``class_names`` must match the
  subfolder names); every image is resized to ``image_size`` (default 256x256, whatever the
  files' size); yields ``(images, labels)`` with images ``float32`` ``(B, h, w, 3)`` in
  [0, 255] and labels ``int32`` ``(B,)`` (``"int"``), ``float32`` one-hot ``(B, C)``
  (``"categorical"``) or ``float32`` ``(B, 1)`` (``"binary"``, exactly two classes);
  ``batch_size=None`` yields single, UNBATCHED examples ``(h, w, 3)``.
* ``keras.utils.text_dataset_from_directory(...)`` has the same labelling; it yields RAW
  STRINGS (``tf.string`` ``(B,)``): a ``TextVectorization`` layer (adapted on the texts) must
  turn them into token ids before an ``Embedding``.
* ``keras.utils.split_dataset(dataset, left_size=None, right_size=None, shuffle=False,
  seed=None)``: splits a ``tf.data.Dataset``, a NumPy array or a tuple of arrays of EQUAL
  length into two ``tf.data.Dataset`` s of single examples (unbatched: ``.batch()`` them
  before ``fit``).
* ``keras.utils.pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre",
  truncating="pre", value=0.0)``: a list of id lists -> a ``(N, maxlen)`` array; it keeps the
  ids, so an ``Embedding(input_dim)`` must have ``input_dim > max id`` (1-based vocabularies
  with 0 for padding need ``len(vocab) + 1``).
* ``keras.utils.normalize(x, axis=-1, order=2)`` L2-normalizes along an axis;
  ``keras.utils.set_random_seed(int)`` seeds Python, NumPy and the backend.

Evidence a diagnosis needs: the builder call and its arguments (``label_mode``,
``image_size``, ``batch_size``), the element spec the dataset yields (shapes, dtypes,
batched or not), the model's Input shape and dtype, the loss and its label encoding, the
label values (min, max) against ``num_classes`` or the output width, the largest token id
against ``input_dim``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras_utils_and_dataset_builders"

CASES = [
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 6), output.shape=(None, 5)
    Case(
        name="f26_to_categorical_on_one_based_ratings",
        family=FAMILY,
        code="""
ratings = np.random.default_rng(0).integers(1, 6, 40)  # 1..5 stars
x = np.random.rand(40, 8).astype("float32")
y = keras.utils.to_categorical(ratings)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M04",
        must=("6",),
        must_not=("from_logits",),
        fix="to_categorical(ratings - 1, num_classes=5)",
    ),
    # IndexError: index 3 is out of bounds for axis 1 with size 3
    Case(
        name="f26_to_categorical_num_classes_too_small",
        family=FAMILY,
        code="""
labels = np.array([0, 1, 2, 3, 1, 2, 0, 3])  # four kinds of defects
NUM_CLASSES = 3
y_train = keras.utils.to_categorical(labels, num_classes=NUM_CLASSES)
""",
        expect="P12",
        must=("num_classes",),
        must_not=("sparse",),
        fix="num_classes = labels.max() + 1 (4), and Dense(4)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="f26_categorical_label_mode_with_sparse_loss",
        family=FAMILY,
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["cat", "dog", "fox"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(4):
        img = tf.cast(tf.random.uniform((20, 20, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(img))
train = keras.utils.image_dataset_from_directory(
    root, label_mode="categorical", image_size=(32, 32), batch_size=4, verbose=False)
model = keras.Sequential([
    keras.Input((32, 32, 3)), keras.layers.Rescaling(1 / 255),
    keras.layers.Flatten(), keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(train, epochs=1, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("from_logits",),
        fix='loss="categorical_crossentropy" (or label_mode="int")',
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... Expected shape (None, 32, 32, 3), but input has incompatible shape (32, 32, 3))
    Case(
        name="f26_unbatched_image_dataset_split_then_fit",
        family=FAMILY,
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["cat", "dog"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(5):
        img = tf.cast(tf.random.uniform((20, 20, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(img))
ds = keras.utils.image_dataset_from_directory(root, image_size=(32, 32), batch_size=None, verbose=False)
train, val = keras.utils.split_dataset(ds, left_size=0.8)
model = keras.Sequential([
    keras.Input((32, 32, 3)), keras.layers.Rescaling(1 / 255), keras.layers.Conv2D(4, 3),
    keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(train, validation_data=val, epochs=1, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("expand_dims",),
        fix="train.batch(8), val.batch(8) (or a batch_size in the builder)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... expected axis -1 of input shape to have value 15376, but received input with shape (None, 258064))
    Case(
        name="f26_image_size_default_256_vs_model_input",
        family=FAMILY,
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["healthy", "sick"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(4):
        img = tf.cast(tf.random.uniform((64, 64, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(img))
train = keras.utils.image_dataset_from_directory(root, batch_size=4, verbose=False)
model = keras.Sequential([
    keras.Input((64, 64, 3)), keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(train, epochs=1, verbose=0)
""",
        expect="S01",
        must=("image_size",),
        must_not=("reshape",),
        fix="image_dataset_from_directory(..., image_size=(64, 64))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... Expected shape (None, None), but input has incompatible shape (None,) ... inputs=tf.Tensor(shape=(None,), dtype=string))
    Case(
        name="f26_text_dataset_strings_into_embedding",
        family=FAMILY,
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls, words in [("neg", "bad awful"), ("pos", "good great")]:
    os.makedirs(os.path.join(root, cls))
    for i in range(4):
        with open(os.path.join(root, cls, f"{i}.txt"), "w") as f:
            f.write(f"{words} movie number {i}")
train = keras.utils.text_dataset_from_directory(root, batch_size=4, verbose=False)
model = keras.Sequential([
    keras.Input((None,), dtype="int32"), keras.layers.Embedding(1000, 8),
    keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(train, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=("expand_dims",),
        fix="map the texts through an adapted keras.layers.TextVectorization first",
    ),
    # InvalidArgumentError: Graph execution error:  (... embedding/GatherV2 ... indices[1,1] = 6 is not in [0, 6))
    Case(
        name="f26_pad_sequences_one_based_vocab_embedding",
        family=FAMILY,
        code="""
vocab = {"the": 1, "cat": 2, "sat": 3, "on": 4, "mat": 5, "dog": 6}  # 0 = padding
sentences = [["the", "cat", "sat"], ["the", "dog", "sat", "on", "the", "mat"]]
seqs = keras.utils.pad_sequences([[vocab[w] for w in s] for s in sentences], maxlen=6)
model = keras.Sequential([
    keras.Input((6,)), keras.layers.Embedding(input_dim=len(vocab), output_dim=4),
    keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1),
])
model.predict(seqs, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("maxlen",),
        fix="Embedding(input_dim=len(vocab) + 1, ...)",
    ),
    # ValueError: The `class_names` passed did not match the names of the subdirectories of the target directory. Expected: ['cats', 'dogs'] (or a subset of it), but received: class_names=['cat', 'dog']
    Case(
        name="f26_class_names_not_matching_subfolders",
        family=FAMILY,
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for folder in ["cats", "dogs"]:
    os.makedirs(os.path.join(root, folder))
    for i in range(2):
        img = tf.cast(tf.random.uniform((20, 20, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, folder, f"{i}.png"), tf.io.encode_png(img))
train = keras.utils.image_dataset_from_directory(
    root, class_names=["cat", "dog"], image_size=(32, 32), verbose=False)
""",
        expect=None,
        unexplained=(
            "the message lists the subfolder names that class_names must match (['cats', 'dogs'])"
        ),
        must_not=("label_mode",),
        fix="class_names=['cats', 'dogs'] (or omit it)",
    ),
]
