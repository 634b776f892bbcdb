"""Family: NumPy code that prepares arrays for a Keras model and raises in NumPy itself.

API: in-place arithmetic on an integer array (``x /= 255``: ufunc output casting follows
``casting="same_kind"``, so a float64 result cannot be written back into ``uint8``);
``ndarray.reshape`` (the new shape must hold exactly ``x.size`` elements, one ``-1`` may
be inferred); ``np.concatenate`` (every axis but the joined one must match) and
``np.stack`` (every array must have the same shape); ``np.array`` of a list of sequences
(a regular shape or, with ``dtype=object``, a 1-D object array that Keras cannot
convert); ``ndarray.astype`` of a string array (each string must parse as the target
number); ``np.argmax(a, axis)`` (removes ``axis``: on one-hot labels ``axis=0`` reduces
over the samples); ``np.eye(n)[labels]`` (fancy indexing, every label in ``[0, n)``);
broadcasting (trailing axes must be equal or 1, so a per-channel statistic of a
channels-last batch needs ``axis=(0, 1, 2)``); ``np.expand_dims(x, axis)`` (the new axis
goes where ``axis`` says, the channel of a channels-last ``Conv2D`` is ``axis=-1``).
Contract on the Keras side: ``fit`` takes float arrays whose first axis is the sample
axis, x and y with the same number of samples, and an input whose trailing shape is the
``Input``'s.  Evidence a diagnosis can read at the failure: the arrays named on the
failing line (shape, dtype, size, min/max of integer labels), the earlier lines of the
cell that made them (the slice that dropped a row, the ``axis`` argument, the hard-coded
count, the ``dtype=object``), the lengths of the items of a list, and the model's
``Input`` shape, first layer and output units.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "numpy_prep"

CASES = [
    # UFuncTypeError (_UFuncOutputCastingError): Cannot cast ufunc 'divide' output from dtype('float64')
    # to dtype('uint8') with casting rule 'same_kind'
    # (MNIST-style uint8 images scaled in place, as in many tutorials)
    Case(
        "np_inplace_divide_uint8_images",
        FAMILY,
        """
x_train = np.random.randint(0, 256, (32, 28, 28, 1)).astype("uint8")
y_train = np.random.randint(0, 10, 32)
x_train /= 255
model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "S11",
        must=("x_train", "uint8"),
        must_not=("add_weight", "mixed_float16"),
        fix='x_train = x_train.astype("float32") / 255',
    ),
    # ValueError: cannot reshape array of size 9408 into shape (48,784)
    # (the train cell's sample count copied into the test cell's reshape)
    Case(
        "np_reshape_test_with_train_count",
        FAMILY,
        """
x_train = np.random.rand(48, 28, 28).astype("float32")
x_test = np.random.rand(12, 28, 28).astype("float32")
y_train = np.random.randint(0, 10, 48)
x_train = x_train.reshape(48, 784)
x_test = x_test.reshape(48, 784)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "S07",
        must=("x_test", "48"),
        must_not=("resize", "float64"),
        fix="x_test.reshape(-1, 784)",
    ),
    # ValueError: all the input array dimensions except for the concatenation axis must
    # match exactly, but along dimension 0, the array at index 0 has size 39 and the array
    # at index 1 has size 40
    # (a lag feature made by slicing one column, the other column left whole)
    Case(
        "np_concatenate_lag_feature_row_counts",
        FAMILY,
        """
prices = np.cumsum(np.random.randn(40)).astype("float32")
volume = np.random.rand(40).astype("float32")
features = np.concatenate([prices[:-1, None], volume[:, None]], axis=1)
target = prices[1:]
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(features, target, epochs=1, verbose=0)
""",
        "S12",
        must=("prices", "39"),
        must_not=("float64",),
        fix="slice volume the same way: volume[:-1]",
    ),
    # ValueError: all input arrays must have the same shape
    # (photos of two sizes stacked into one batch without a resize)
    Case(
        "np_stack_photos_of_two_sizes",
        FAMILY,
        """
sizes = [(64, 64)] * 10 + [(48, 64)] * 2  # the last two photos come from another camera
images = [np.random.randint(0, 256, (h, w, 3), dtype=np.uint8) for h, w in sizes]
x = np.stack(images).astype("float32") / 255
y = np.random.randint(0, 2, len(images))
model = keras.Sequential([keras.Input((64, 64, 3)), keras.layers.Conv2D(4, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S13",
        must=("images", "48"),
        must_not=("grayscale", "float64"),
        fix="resize every image to 64x64 before np.stack",
    ),
    # ValueError: Invalid dtype: object
    # (token-id lists of different lengths made into an object array, never padded)
    Case(
        "np_object_array_of_token_lists",
        FAMILY,
        """
token_ids = [[4, 12, 7], [9, 2], [3, 15, 8, 6, 1], [5, 11, 2, 10]] * 5
x_seq = np.array(token_ids, dtype=object)
y = np.random.randint(0, 2, len(token_ids))
model = keras.Sequential([keras.Input((None,), dtype="int32"), keras.layers.Embedding(20, 8),
                          keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x_seq, y, epochs=1, verbose=0)
""",
        "S13",
        must=("x_seq",),
        must_not=("astype", "stringlookup"),
        fix="keras.utils.pad_sequences(token_ids)",
    ),
    # ValueError: invalid literal for int() with base 10: np.str_('setosa')
    # (CSV read as strings, the species column cast to int without encoding)
    Case(
        "np_astype_species_names_to_int",
        FAMILY,
        """
import io
csv = "\\n".join(f"{5 + i % 3}.1,3.{i % 5},1.4,0.2,{['setosa', 'versicolor', 'virginica'][i % 3]}"
                for i in range(30))
raw = np.loadtxt(io.StringIO(csv), delimiter=",", dtype=str)
features = raw[:, :4].astype("float32")
labels = raw[:, 4].astype("int32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(features, labels, epochs=1, verbose=0)
""",
        "S11",
        must=("raw", "setosa"),
        must_not=("float64", "add_weight"),
        fix="encode: np.unique(raw[:, 4], return_inverse=True)[1]",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 60  (next line: 'y' sizes: 3)
    # (one-hot labels turned back into class ids along the sample axis)
    Case(
        "np_argmax_onehot_over_samples",
        FAMILY,
        """
x_train = np.random.rand(60, 4).astype("float32")
y_onehot = keras.utils.to_categorical(np.random.randint(0, 3, 60), 3)
y_train = np.argmax(y_onehot, axis=0).reshape(-1, 1)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "S12",
        must=("argmax", "axis"),
        must_not=("validation_data", "hard-codes"),
        fix="np.argmax(y_onehot, axis=1)",
    ),
    # IndexError: index 5 is out of bounds for axis 0 with size 5
    # (star ratings 1..5 one-hot encoded with np.eye as if they started at 0)
    Case(
        "np_eye_onehot_ratings_from_one",
        FAMILY,
        """
num_classes = 5
reviews = np.random.rand(40, 16).astype("float32")
ratings = np.random.randint(1, 6, 40)
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(num_classes, activation="softmax")])
model.compile("adam", "categorical_crossentropy")
y = np.eye(num_classes)[ratings]
model.fit(reviews, y, epochs=1, verbose=0)
""",
        "P12",
        must=("ratings",),
        must_not=("embedding", "input_dim"),
        fix="np.eye(num_classes)[ratings - 1]",
    ),
    # ValueError: operands could not be broadcast together with shapes (20,32,32,3) (32,)
    # (per-channel mean taken over channels-first axes of a channels-last batch)
    Case(
        "np_channel_mean_over_wrong_axes",
        FAMILY,
        """
x = np.random.randint(0, 256, (20, 32, 32, 3)).astype("float32")
y = np.random.randint(0, 10, 20)
mean = x.mean(axis=(0, 2, 3))
std = x.std(axis=(0, 2, 3))
x = (x - mean) / std
model = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("mean", "axis"),
        must_not=("resize", "float64"),
        fix="x.mean(axis=(0, 1, 2))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (then: Input 0
    # with name 'None' of layer 'conv2d' is incompatible with the layer: expected axis -1
    # of input shape to have value 1, but received input with shape (32, 1, 28, 28))
    # (channel axis added in front, channels-first style, for a channels-last Conv2D)
    Case(
        "np_expand_dims_channel_in_front",
        FAMILY,
        """
x_train = np.random.rand(32, 28, 28).astype("float32")
y_train = np.random.randint(0, 10, 32)
x_train = np.expand_dims(x_train, axis=1)
model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "S01",
        must=("x_train", "axis"),
        must_not=("padding", "strides"),
        fix="np.expand_dims(x_train, axis=-1)",
    ),
]
