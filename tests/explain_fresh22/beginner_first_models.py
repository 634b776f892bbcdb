"""Family ``beginner_first_models``: the first classifiers that tutorials teach.

The APIs and their documented contract (Keras 3):

- ``keras.Sequential([...])`` stacks layers; ``keras.Input(shape=...)`` declares the shape
  of ONE example, without the batch axis (``shape=(28, 28)`` for MNIST, never
  ``x_train.shape``, which starts with the number of samples).  A Sequential model without
  an ``Input`` is not built until it sees data: ``count_params()``, ``weights``,
  ``summary()`` of its layers' parameters need a known input shape
  (``layer.build(input_shape)`` or an ``Input`` first).
- ``Flatten()`` turns ``(batch, 28, 28)`` into ``(batch, 784)``; ``Dense(units)`` acts on the
  LAST axis and fixes its kernel to the last dimension it is built with.
- ``Conv2D``/``MaxPooling2D`` take rank-4 input ``(batch, height, width, channels)`` in the
  default ``data_format="channels_last"``: a grayscale MNIST array ``(N, 28, 28)`` needs a
  channel axis (``x[..., None]`` / ``np.expand_dims(x, -1)`` / ``Input((28, 28, 1))``); a
  CIFAR array stored channels-first ``(N, 3, 32, 32)`` must be transposed to
  ``(N, 32, 32, 3)`` (or the layers given ``data_format="channels_first"``).
- ``compile(optimizer, loss, metrics=[...])``: the loss must match the label encoding and
  the output layer.  ``sparse_categorical_crossentropy`` takes integer class ids of shape
  ``(N,)`` in ``[0, units)`` against a ``(N, units)`` softmax; ``categorical_crossentropy``
  takes one-hot labels ``(N, units)`` (``keras.utils.to_categorical``); the binary loss
  takes ``(N,)``/``(N, 1)`` 0/1 labels against ONE sigmoid unit.  The number of output
  units is the number of classes (``max label + 1`` when ids start at 0).
- ``fit(x, y, epochs, batch_size, validation_split | validation_data)``: x and y arrays
  with one row per example; uint8 pixels are usually scaled with ``/ 255.0`` first.

What the framework raises, and the evidence a diagnosis needs to name the cause:

- a layer's input check (``expected min_ndim=4, found ndim=3``; ``expected axis -1 of input
  shape to have value 3``; ``Invalid input shape ... Expected shape (None, 200, 28, 28)``):
  the failing layer, the shape it received, where that shape came from (the data array,
  the declared ``Input``) -> S01, with the axis that is missing, misplaced or extra;
- a loss's shape check (``target and output must have the same rank``): the loss, the
  label shape/dtype and the output units -> M05 (integer labels with the categorical loss)
  or M03 (the binary loss over a 2-unit softmax);
- ``Received a label value of 9 which is outside the valid range of [0, 9)`` from the
  sparse loss: compare the label range with the output units -- when the labels are
  0..N-1 and the output has fewer units, the output size is wrong (M04, ``Dense(10)``);
  when there are as many units as classes but the ids start at 1, the labels are out of
  range (P12, ``y - 1``);
- ``count_params`` on a model that is not built: no input shape anywhere -> S04.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected min_ndim=4, found ndim=3. Full shape received: (None, 28, 28)
    Case(
        name="f22_mnist_conv2d_without_channel_axis",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, (256, 28, 28), dtype=np.uint8)
y_train = np.random.randint(0, 10, 256)
x_train = x_train.astype("float32") / 255.0

model = keras.Sequential([
    keras.Input(shape=x_train.shape[1:]),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("batch axis", "return_sequences"),
        fix="add a channel axis: x[..., None] and Input((28, 28, 1))",
    ),
    # InvalidArgumentError: Graph execution error:
    Case(
        name="f22_num_classes_taken_as_max_label",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(300, 28, 28).astype("float32")
y_train = np.arange(300) % 10
num_classes = int(y_train.max())

model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(num_classes, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=64, verbose=0)
""",
        expect="M04",
        must=("10",),
        must_not=("subtract", "to_categorical"),
        fix="num_classes = y_train.max() + 1 (10 output units)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 10)
    Case(
        name="f22_fashion_categorical_loss_with_class_ids",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, (200, 28, 28)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, 200)  # Fashion-MNIST class ids 0..9

model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, validation_split=0.1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("flatten",),
        fix="loss='sparse_categorical_crossentropy' (or one-hot the labels)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(32,), output.shape=(32, 2)
    Case(
        name="f22_binary_loss_on_two_unit_softmax",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(128, 20).astype("float32")
y_train = np.random.randint(0, 2, 128)  # 0 = cat, 1 = dog

model = keras.Sequential([
    keras.Input(shape=(20,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="M03",
        must=("softmax",),
        must_not=("expand_dims", "flatten"),
        fix="Dense(1, activation='sigmoid') with binary_crossentropy, or the sparse loss",
    ),
    # InvalidArgumentError: Graph execution error:
    Case(
        name="f22_digit_labels_numbered_one_to_ten",
        family="beginner_first_models",
        code="""
# labels read from a CSV where the classes are numbered 1..10
x_train = np.random.rand(200, 28, 28).astype("float32")
y_train = np.arange(200) % 10 + 1

model = keras.Sequential([
    keras.Input(shape=(28, 28)),
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=50, verbose=0)
""",
        expect="P12",
        must=("10",),
        must_not=("to_categorical", "one-hot"),
        fix="shift the labels to 0..9: y_train - 1",
    ),
    # ValueError: You tried to call `count_params` on layer 'sequential', but the layer isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        name="f22_count_params_of_sequential_without_input",
        family="beginner_first_models",
        code="""
model = keras.Sequential([
    keras.layers.Flatten(),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
print("parameters:", model.count_params())
""",
        expect="S04",
        must=("input",),
        must_not=("call compile",),
        fix="start the model with keras.Input(shape=(28, 28)) (or build it)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    Case(
        name="f22_cifar_array_stored_channels_first",
        family="beginner_first_models",
        code="""
# CIFAR-like batch exported from a PyTorch pipeline: (N, C, H, W)
x_train = np.random.randint(0, 256, (96, 3, 32, 32)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, 96)

model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("expand_dims",),
        fix="x_train.transpose(0, 2, 3, 1) (channels last)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    Case(
        name="f22_input_shape_given_the_whole_train_array_shape",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(200, 28, 28).astype("float32")
y_train = np.random.randint(0, 10, 200)

model = keras.Sequential([
    keras.Input(shape=x_train.shape),
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="S01",
        must=("200",),
        must_not=("expand_dims", "batch the dataset"),
        fix="keras.Input(shape=x_train.shape[1:])",
    ),
]
