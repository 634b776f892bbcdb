"""Family: first models as tutorials teach them (MNIST / Fashion-MNIST / CIFAR-like arrays).

The APIs and their documented contract:

- ``keras.Sequential([...])`` stacks layers; with a ``keras.Input(shape=...)`` first it is
  built at once (weights exist, ``summary()`` shows shapes and parameter counts).  Without
  one it stays *unbuilt* until it is called on data or ``build(input_shape)`` is called:
  ``summary()`` prints ``?`` shapes and "0 (unbuilt)" parameters, ``weights`` is empty,
  ``layer.get_weights()`` returns ``[]``, ``count_params()`` raises.  ``Input``'s ``shape``
  EXCLUDES the batch axis: ``Input(shape=(28, 28, 1))`` means batches of
  ``(None, 28, 28, 1)``.
- ``Conv2D`` / ``MaxPooling2D`` take rank-4 input ``(batch, height, width, channels)``
  (``data_format="channels_last"``, the default).  A grayscale MNIST array loaded as
  ``(N, 28, 28)`` has no channel axis: add one (``x[..., None]``,
  ``np.expand_dims(x, -1)``) and declare ``Input(shape=(28, 28, 1))``.  Arrays stored
  channels-first ``(N, 3, 32, 32)`` must be transposed to ``(N, 32, 32, 3)`` (or the layers
  given ``data_format="channels_first"``).  ``Dense`` acts on the LAST axis only: on
  ``(batch, 28, 28)`` images it outputs ``(batch, 28, units)``; a ``Flatten`` first gives
  ``(batch, 784)``.
- Classification head: ``Dense(num_classes, activation="softmax")``, ``num_classes`` = the
  number of distinct labels (labels ``0..num_classes-1``).
- ``compile(loss=...)``: ``sparse_categorical_crossentropy`` takes integer class ids of shape
  ``(batch,)`` or ``(batch, 1)`` in ``[0, num_classes)``; ``categorical_crossentropy`` takes
  one-hot rows of shape ``(batch, num_classes)`` (``keras.utils.to_categorical``).  The TF
  sparse loss raises ``Received a label value of L which is outside the valid range of
  [0, C)`` when a label is >= the number of output units; Keras 3 raises ``Argument `output`
  must have rank (ndim) `target.ndim - 1``` for one-hot labels under the sparse loss and
  ``Arguments `target` and `output` must have the same rank`` for integer labels under the
  categorical one.
- Data: ``uint8`` pixels in ``[0, 255]`` are scaled with ``x.astype("float32") / 255``;
  labels are integer arrays.
- ``fit(x, y, epochs, batch_size, validation_split=..., validation_data=...)``:
  ``validation_split`` slices the last fraction of NumPy arrays / tensors and is refused for
  ``tf.data.Dataset`` / generators (pass ``validation_data=val_ds``, or split with
  ``take``/``skip``).

Evidence a diagnosis needs to name the cause: the shape the failing layer received vs the
shape it expects (which axis is missing or in the wrong place: channel vs batch), the
number of output units vs the number (and range) of labels, the label encoding (rank and
width of ``y``) vs the loss, whether the model has an input shape, and the type of ``x``
passed with ``validation_split``.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected min_ndim=4, found ndim=3. Full shape received: (None, 28, 28)
    Case(
        name="f23_mnist_conv2d_grayscale_without_channel_axis",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, (64, 28, 28)).astype("uint8")
y_train = np.random.randint(0, 10, 64)
x_train = x_train.astype("float32") / 255.0
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Conv2D(32, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("return_sequences", "embedding"),
        fix="add a channel axis: Input(shape=(28, 28, 1)) and x[..., None]",
    ),
    # InvalidArgumentError: Graph execution error: (... Received a label value of 9 which is outside the valid range of [0, 2) ...)
    Case(
        name="f23_cifar10_head_left_with_two_units",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, (64, 32, 32, 3)).astype("float32") / 255.0
y_train = np.arange(64) % 10
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="M04",
        must=("10",),
        must_not=("to_categorical", "from_logits"),
        fix="Dense(10, activation='softmax') for the 10 classes",
    ),
    # InvalidArgumentError: Graph execution error: (... Received a label value of 10 which is outside the valid range of [0, 10) ...)
    Case(
        name="f23_fashion_labels_numbered_one_to_ten",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(64, 28, 28).astype("float32")
y_train = np.arange(64) % 10 + 1
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=64, verbose=0)
""",
        expect="P12",
        must=("10",),
        must_not=("to_categorical", "from_logits"),
        fix="re-index the labels to 0..9 (y - 1)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(16, 10), output.shape=(16, 10)
    Case(
        name="f23_to_categorical_labels_with_sparse_loss",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(64, 784).astype("float32")
y_train = keras.utils.to_categorical(np.random.randint(0, 10, 64), 10)
model = keras.Sequential([
    keras.Input(shape=(784,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("flatten", "return_sequences"),
        fix="categorical_crossentropy for one-hot labels (or keep integer labels)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... layer 'conv2d' ... expected axis -1 of input shape to have value 3, but received input with shape (16, 3, 32, 32))
    Case(
        name="f23_cifar_arrays_stored_channels_first",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, (64, 3, 32, 32)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, 64)
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
""",
        expect="S01",
        must=("channels",),
        must_not=("expand_dims", "batch the dataset"),
        fix="x.transpose(0, 2, 3, 1) to channels-last (or data_format='channels_first')",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(16,), output.shape=(16, 28, 10)
    Case(
        name="f23_dense_stack_on_images_without_flatten",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(64, 28, 28).astype("float32")
y_train = np.random.randint(0, 10, 64)
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
""",
        expect="S07",
        must=("flatten",),
        must_not=("to_categorical", "one-hot"),
        fix="add keras.layers.Flatten() before the Dense layers",
    ),
    # IndexError: list index out of range
    Case(
        name="f23_first_layer_weights_of_unbuilt_sequential",
        family="beginner_first_models",
        code="""
model = keras.Sequential([
    keras.layers.Flatten(),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.summary()
kernel, bias = model.layers[1].get_weights()[0], model.layers[1].get_weights()[1]
print(kernel.shape, bias.shape)
""",
        expect="S04",
        must=("input",),
        must_not=("batch_size",),
        fix="start the model with keras.Input(shape=(28, 28)) (or build it) before reading weights",
    ),
    # ValueError: Argument `validation_split` is only supported for tensors or NumPy arrays.Found incompatible type in the input: [<class 'tensorflow.python.data.ops.batch_op._BatchDataset'>]
    Case(
        name="f23_validation_split_with_batched_dataset",
        family="beginner_first_models",
        code="""
x = np.random.randint(0, 256, (64, 28, 28)).astype("float32") / 255.0
y = np.random.randint(0, 10, 64)
train_ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64).batch(16)
model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=2, validation_split=0.2, verbose=0)
""",
        expect="S12",
        must=("validation_data",),
        must_not=("expand_dims", "sample_weight"),
        fix="pass validation_data=val_ds (split the dataset with take/skip) instead of validation_split",
    ),
]
