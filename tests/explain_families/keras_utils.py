"""Family: keras.utils data helpers and dataset builders, and the model they feed.

API: ``keras.utils.to_categorical(y, num_classes=None)`` (one-hot; without
``num_classes`` the width is ``max(y) + 1`` of the array given);
``keras.utils.pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre",
truncating="pre", value=0.0)`` (without ``maxlen`` the width is the longest sequence of
this call; ``value`` is written into the array as an id);
``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length,
sequence_stride=1, sampling_rate=1, batch_size=128, ...)`` (each window has
``sequence_length`` steps taken every ``sampling_rate`` rows, so it spans
``(sequence_length - 1) * sampling_rate + 1`` rows);
``keras.utils.image_dataset_from_directory(directory, labels="inferred",
label_mode="int", class_names=None, color_mode="rgb", batch_size=32,
image_size=(256, 256), ...)`` (images are resized to ``image_size`` whatever their size
on disk; ``label_mode`` "int" gives int32 labels of shape ``(batch,)`` for a sparse
loss, "categorical" float32 one-hot ``(batch, num_classes)``, "binary" float32
``(batch, 1)`` and needs exactly 2 classes); ``keras.utils.text_dataset_from_directory``
(yields ``tf.string`` tensors of shape ``(batch,)``, to be vectorized before any
numeric layer); ``keras.utils.split_dataset(dataset, left_size, right_size, ...)``
(returns two UNBATCHED ``tf.data`` datasets); ``keras.utils.PyDataset``
(``__len__`` is the number of batches, ``__getitem__(i)`` returns batch ``i`` as
``(x, y)`` with the same number of samples in both).  Contract: the builder's output
(shape, dtype, label encoding, batching, number of classes) must be what the model's
``Input``, output layer and loss were built for.

Evidence a diagnosis can read at the failure: the builder's arguments (``num_classes``,
``maxlen``, ``value``, ``sequence_length``/``sampling_rate``, ``image_size``,
``label_mode``, ``batch_size``), the dataset's ``element_spec`` and ``class_names``, the
arrays' shapes, dtypes and value ranges (largest id, label width), the model's ``Input``
shape, its layers (``Embedding.input_dim``, the output layer's units and activation),
the loss, and the user's own objects in the namespace (a ``TextVectorization`` that was
adapted but never applied, a ``PyDataset`` subclass and its ``__getitem__``).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras_utils"

CASES = [
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 4), output.shape=(None, 5)
    # (to_categorical without num_classes made 4 columns: the top grade is absent here)
    Case(
        "ub_to_categorical_without_num_classes",
        FAMILY,
        """
NUM_CLASSES = 5  # quality grades 0-4; grade 4 is rare and missing from this sample
x_train = np.random.rand(40, 6).astype("float32")
y_train = np.array([0, 1, 2, 3] * 10)
y_train_onehot = keras.utils.to_categorical(y_train)
model = keras.Sequential([
    keras.Input((6,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(NUM_CLASSES, activation="softmax"),
])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train_onehot, epochs=1, verbose=0)
""",
        "M04",
        must=("num_classes",),
        must_not=("flatten", "from_logits"),
        fix="to_categorical(y_train, num_classes=NUM_CLASSES)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received:
    # target.shape=(None,), output.shape=(None, 3)
    # (label_mode defaults to "int": class ids, not one-hot, reach categorical_crossentropy)
    Case(
        "ub_image_dataset_int_labels_categorical_loss",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for name in ["cat", "dog", "fox"]:
    os.makedirs(os.path.join(root, name))
    for i in range(4):
        img = np.random.randint(0, 256, (32, 32, 3)).astype("uint8")
        keras.utils.save_img(os.path.join(root, name, f"{i}.png"), img)
train_ds = keras.utils.image_dataset_from_directory(root, image_size=(32, 32), batch_size=4)
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(len(train_ds.class_names), activation="softmax"),
])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=1, verbose=0)
""",
        "M05",
        must=("label_mode",),
        must_not=("flatten", "from_logits"),
        fix="label_mode='categorical' or a sparse loss",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). / Input 0 with name
    # 'None' of layer 'dense_3' is incompatible with the layer: expected axis -1 of input
    # shape to have value 7688, but received input with shape (None, 129032)
    # (the 64x64 files are resized to the default image_size=(256, 256))
    Case(
        "ub_image_dataset_default_image_size",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for name in ["defect", "ok"]:
    os.makedirs(os.path.join(root, name))
    for i in range(4):
        img = np.random.randint(0, 256, (64, 64, 3)).astype("uint8")
        keras.utils.save_img(os.path.join(root, name, f"part_{i}.png"), img)
train_ds = keras.utils.image_dataset_from_directory(root, label_mode="binary", batch_size=4)
model = keras.Sequential([
    keras.Input((64, 64, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("image_size", "256"),
        must_not=("color_mode", "padding"),
        fix="image_size=(64, 64) in the builder",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). / Input 0 with name
    # 'None' of layer 'dense_4' is incompatible with the layer: expected axis -1 of input
    # shape to have value 96, but received input with shape (10, 72)
    # (no maxlen: train padded to its longest, 12; test to its longest, 9)
    Case(
        "ub_pad_sequences_test_without_maxlen",
        FAMILY,
        """
rng = np.random.default_rng(0)
train_seqs = [list(rng.integers(1, 50, n)) for n in [12] + list(rng.integers(3, 12, 39))]
test_seqs = [list(rng.integers(1, 50, n)) for n in [9] + list(rng.integers(3, 9, 9))]
x_train = keras.utils.pad_sequences(train_seqs)
x_test = keras.utils.pad_sequences(test_seqs)
y_train = rng.integers(0, 2, 40)
model = keras.Sequential([
    keras.Input((x_train.shape[1],)),
    keras.layers.Embedding(50, 8),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
model.predict(x_test, verbose=0)
""",
        "S01",
        must=("maxlen",),
        must_not=("input_dim", "batch axis"),
        fix="pad_sequences(test_seqs, maxlen=x_train.shape[1])",
    ),
    # InvalidArgumentError: Graph execution error: ... indices[0,2] = 8 is not in [0, 8)
    # [[{{node sequential_1/embedding_1/GatherV2}}]]
    # (the padding id PAD = len(vocab) = 8 is one past the Embedding's input_dim)
    Case(
        "ub_pad_sequences_pad_value_equals_vocab_size",
        FAMILY,
        """
vocab = ["<unk>", "the", "cat", "sat", "on", "mat", "dog", "ran"]
word_index = {w: i for i, w in enumerate(vocab)}
sentences = ["the cat sat", "the dog ran on the mat", "cat ran", "the mat sat on the dog"] * 8
seqs = [[word_index.get(w, 0) for w in s.split()] for s in sentences]
PAD = len(vocab)  # 0 is already <unk>, so padding gets its own id
x = keras.utils.pad_sequences(seqs, maxlen=6, padding="post", value=PAD)
y = np.random.randint(0, 2, len(x))
model = keras.Sequential([
    keras.Input((6,)),
    keras.layers.Embedding(len(vocab), 4),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim", "8"),
        must_not=("mask_zero", "negative"),
        fix="Embedding(len(vocab) + 1, 4)",
    ),
    # InvalidArgumentError: Graph execution error: ... Matrix size-incompatible: In[0]:
    # [8,36], In[1]: [12,16] [[{{node StatefulPartitionedCall/sequential_5_1/dense_6_1/Relu}}]]
    # (sequence_length counts the sampled steps: windows are (12, 3), the model wants (4, 3))
    Case(
        "ub_timeseries_sequence_length_is_span",
        FAMILY,
        """
hourly = np.random.rand(80, 3).astype("float32")  # temperature, pressure, humidity
target = np.random.rand(80).astype("float32")
past, step = 12, 3  # 12 hours of history, one reading every 3 hours
train_ds = keras.utils.timeseries_dataset_from_array(
    hourly[:-past], target[past:], sequence_length=past, sampling_rate=step, batch_size=8
)
model = keras.Sequential([
    keras.Input((past // step, 3)),
    keras.layers.Flatten(),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("sequence_length",),
        must_not=("batch axis", "padding"),
        fix="sequence_length=past // step",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). / Invalid input shape
    # for input Tensor("data:0", shape=(4,), dtype=float32) ... Expected shape (None, 4), but
    # input has incompatible shape (4,)
    # (split_dataset returns unbatched datasets: fit receives single examples)
    Case(
        "ub_split_dataset_left_unbatched",
        FAMILY,
        """
x = np.random.rand(50, 4).astype("float32")
y = np.random.randint(0, 2, 50)
train_ds, val_ds = keras.utils.split_dataset((x, y), left_size=0.8, shuffle=True, seed=1)
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("train_ds", "batch"),
        must_not=("flatten", "return_sequences"),
        fix="train_ds.batch(16), val_ds.batch(16)",
    ),
    # InvalidArgumentError: Graph execution error: ... logits and labels must have the same
    # first dimension, got logits shape [8,3] and labels shape [0]
    # [[{{node compile_loss/sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/...}}]]
    # (__getitem__ slices y with idx + batch_size instead of lo + batch_size)
    Case(
        "ub_pydataset_label_slice_precedence",
        FAMILY,
        """
class ClipBatches(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, idx):
        lo = idx * self.batch_size
        return self.x[lo:lo + self.batch_size], self.y[lo:idx + self.batch_size]

clips = np.random.rand(48, 10).astype("float32")
labels = np.random.randint(0, 3, 48)
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ClipBatches(clips, labels, batch_size=8), epochs=1, verbose=0)
""",
        "S12",
        must=("__getitem__",),
        must_not=("to_categorical", "from_logits"),
        fix="slice y with lo:lo + self.batch_size",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). / Invalid input shape
    # for input Tensor("sequential_8_1/Cast:0", shape=(None,), dtype=float32) ... Expected
    # shape (None, 10), but input has incompatible shape (None,)  [inputs: dtype=string]
    # (the TextVectorization layer was adapted but never mapped over train_ds)
    Case(
        "ub_text_dataset_vectorizer_never_applied",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
reviews = {"neg": ["awful plot and bad acting", "boring and far too long", "i want my money back"],
           "pos": ["a lovely warm film", "great acting and a clever plot", "i would watch it again"]}
for label, texts in reviews.items():
    os.makedirs(os.path.join(root, label))
    for i, text in enumerate(texts * 3):
        with open(os.path.join(root, label, f"{i}.txt"), "w") as f:
            f.write(text)
train_ds = keras.utils.text_dataset_from_directory(root, batch_size=4)
vectorize = keras.layers.TextVectorization(max_tokens=100, output_sequence_length=10)
vectorize.adapt(train_ds.map(lambda text, label: text))
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Embedding(100, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S11",
        must=("vectorize",),
        must_not=("float64", "batch axis"),
        fix="train_ds.map(lambda t, l: (vectorize(t), l))",
    ),
    # ValueError: When passing `label_mode="binary"`, there must be exactly 2 class_names.
    # Received: class_names=['benign', 'malignant', 'normal']
    Case(
        "ub_image_dataset_binary_three_classes",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for name in ["benign", "malignant", "normal"]:
    os.makedirs(os.path.join(root, name))
    for i in range(3):
        img = np.random.randint(0, 256, (32, 32, 3)).astype("uint8")
        keras.utils.save_img(os.path.join(root, name, f"scan_{i}.png"), img)
train_ds = keras.utils.image_dataset_from_directory(
    root, label_mode="binary", image_size=(32, 32), batch_size=4
)
""",
        None,
        unexplained="Keras' own message says label_mode='binary' needs exactly 2 class "
        "directories and lists the 3 it found: the fix (another label_mode, or remove a "
        "class) is stated",
        fix="label_mode='int' or 'categorical'",
    ),
]
