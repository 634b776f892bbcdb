"""Family: the first models a beginner writes in a notebook, following a tutorial.

API: ``keras.Sequential([...])`` with or without ``keras.Input(shape=...)`` (or the
legacy ``input_shape=`` keyword, which only the FIRST layer honours), ``Flatten`` on
images, ``Dense(units)``, ``Embedding(input_dim, output_dim)``,
``compile(optimizer, loss, metrics)``, ``fit(x, y, batch_size, epochs, verbose,
callbacks, validation_split, ...)`` (that positional order), ``evaluate``,
``predict``, ``model.summary()``, ``model.input_shape``, ``layer.get_weights()``,
``history.history``, ``keras.utils.to_categorical``, a ``tf.data`` pipeline from
NumPy arrays (MNIST / Fashion-MNIST, Iris, IMDB-style ids).  Contract: a model without
an Input has no weights and no input shape until it is built (by ``fit``, ``build`` or
a first call; ``compile`` does not build it); ``fit``/``predict`` take a batch, so one
example needs its batch axis (``x[:1]``, ``np.expand_dims``); the data's trailing
shape must equal the Input's (784 features are not a 28x28 image); ``Dense`` acts on
the last axis only, so images need ``Flatten`` before the classifier head;
``sparse_categorical_crossentropy`` takes integer class ids, ``categorical_*`` one-hot
rows; labels and features are numbers, not strings; an ``Embedding`` accepts ids in
``[0, input_dim)``; ``validation_split`` splits arrays only (a ``tf.data.Dataset``
needs ``validation_data``); TensorFlow ops do not mix ``uint8`` with floats.  Evidence
a diagnosis could read at the failure: the model's layers (their order, units,
``input_shape`` keyword, Input or none, built or not), the arrays' shapes and dtypes
(``uint8`` pixels, ``<U`` strings, one-hot rows, the largest id), the loss, the call
and its arguments (``predict(x_test[0])``, ``validation_split`` with a dataset), and
the framework's own message.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "first_models"

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape ... Expected shape (None, 28, 28), but input has incompatible
    # shape (28, 28))
    Case(
        "fm_predict_one_image_without_batch_axis",
        FAMILY,
        """
x_train = np.random.randint(0, 256, (40, 28, 28)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, 40)
x_test = np.random.randint(0, 256, (8, 28, 28)).astype("float32") / 255.0
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
pred = model.predict(x_test[0], verbose=0)
""",
        "S12",
        must=("x_test",),
        must_not=("channel",),
        fix="predict(x_test[:1]) to keep the batch axis",
    ),
    # AttributeError: Sequential model 'sequential_1' has no defined input shape yet.
    Case(
        "fm_input_shape_given_to_second_layer",
        FAMILY,
        """
x_train = np.random.rand(40, 28, 28).astype("float32")
model = keras.Sequential([
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu", input_shape=(784,)),
    keras.layers.Dense(10, activation="softmax"),
])
model.summary()
print("model expects", model.input_shape)
""",
        "S04",
        must=("input_shape",),
        must_not=("compile",),
        fix="give Flatten input_shape=(28, 28) or start with keras.Input",
    ),
    # ValueError: not enough values to unpack (expected 2, got 0)
    Case(
        "fm_unpack_weights_of_unbuilt_model",
        FAMILY,
        """
x = np.random.rand(30, 4).astype("float32")
y = np.random.randint(0, 3, 30)
model = keras.Sequential([
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
weights, biases = model.layers[0].get_weights()
print(weights.shape, biases.shape)
""",
        "S04",
        must=("dense",),
        must_not=("use_bias",),
        fix="add keras.Input(shape=(4,)) or fit/build before reading weights",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape ... Expected shape (None, 784), but input has incompatible
    # shape (16, 28, 28))
    Case(
        "fm_784_input_fed_28x28_images",
        FAMILY,
        """
x_train = np.random.randint(0, 256, (32, 28, 28)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, 32)
model = keras.Sequential([
    keras.Input(shape=(784,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
""",
        "S01",
        must=("784",),
        must_not=("batch axis", "channel"),
        fix="x_train.reshape(-1, 784), or Input((28, 28)) + Flatten",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(32,), output.shape=(32, 28, 10)
    Case(
        "fm_dense_head_on_images_without_flatten",
        FAMILY,
        """
x_train = np.random.randint(0, 256, (32, 28, 28)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, 32)
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "S07",
        must=("flatten",),
        must_not=("to_categorical", "one-hot"),
        fix="add keras.layers.Flatten() before the first Dense",
    ),
    # ValueError: Invalid dtype: str320
    Case(
        "fm_iris_species_names_as_labels",
        FAMILY,
        """
features = np.random.rand(30, 4).astype("float32")  # sepal/petal length and width
species = np.array(["setosa", "versicolor", "virginica"] * 10)
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(features, species, epochs=1, verbose=0)
""",
        "S11",
        must=("species",),
        must_not=("float64",),
        fix="encode species as ids 0..2 (np.unique(..., return_inverse=True))",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(32, 10), output.shape=(32, 10)
    Case(
        "fm_to_categorical_labels_with_sparse_loss",
        FAMILY,
        """
x_train = np.random.rand(32, 784).astype("float32")  # MNIST, already reshaped to rows
y_train = keras.utils.to_categorical(np.random.randint(0, 10, 32), 10)
model = keras.Sequential([
    keras.Input(shape=(784,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "M05",
        must=("sparse",),
        must_not=("flatten",),
        fix="loss='categorical_crossentropy', or keep integer labels",
    ),
    # InvalidArgumentError: Graph execution error:
    # (Detected at node sequential_1/embedding_1/GatherV2 ... indices[..] = 1xxxx is not
    # in [0, 10000))
    Case(
        "fm_imdb_ids_beyond_embedding_vocab",
        FAMILY,
        """
# ids as imdb.load_data() returns them without num_words=10000: up to ~20000 here
x_train = np.random.randint(1, 20000, (32, 80))
y_train = np.random.randint(0, 2, 32)
model = keras.Sequential([
    keras.Input(shape=(80,)),
    keras.layers.Embedding(10000, 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
""",
        "S09",
        must=("10000",),
        must_not=("label",),
        fix="load_data(num_words=10000) or input_dim = max id + 1",
    ),
    # TypeError: `x` and `y` must have the same dtype, got tf.uint8 != tf.float32.
    Case(
        "fm_uint8_pixels_divided_in_dataset_map",
        FAMILY,
        """
x_train = np.random.randint(0, 256, (32, 28, 28), dtype="uint8")  # as mnist.load_data()
y_train = np.random.randint(0, 10, 32)
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .map(lambda image, label: (image / 255.0, label))
            .batch(16))
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S11",
        must=("uint8",),
        must_not=("float64",),
        fix="tf.cast(image, tf.float32) / 255.0 in the map",
    ),
    # ValueError: Argument `validation_split` is only supported for tensors or NumPy
    # arrays.Found incompatible type in the input: [<class '..._BatchDataset'>]
    Case(
        "fm_validation_split_with_dataset",
        FAMILY,
        """
x_train = np.random.rand(40, 4).astype("float32")
y_train = np.random.randint(0, 3, 40)
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(8)
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(train_ds, epochs=1, validation_split=0.2, verbose=0)
""",
        "S12",
        must=("validation_split",),
        must_not=("batch axis",),
        fix="pass validation_data=val_ds (split with take/skip) or fit the arrays",
    ),
]
