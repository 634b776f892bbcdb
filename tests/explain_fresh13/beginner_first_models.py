"""Family ``beginner_first_models``: the first MLP or CNN a learner builds from a tutorial.

APIs: ``keras.Sequential`` / ``keras.Input`` with ``Flatten``, ``Dense`` and ``Conv2D``
on MNIST / Fashion-MNIST / CIFAR-like arrays and Iris-like tables; ``compile(loss=...)``
and ``fit``/``predict``.  The documented contract: ``keras.Input(shape=...)`` is the shape
of ONE example, without the batch axis, and the data must have exactly that shape after
its first axis (a ``Dense`` after ``Input((784,))`` takes flat vectors, so 28x28 images
need ``Flatten`` or a reshape; ``Conv2D`` takes ``(H, W, C)`` examples, so grayscale
images need a trailing channel axis); ``predict`` always takes a batch, so a single
example needs ``x[None]`` / ``x[:1]``; ``sparse_categorical_crossentropy`` takes integer
class ids in ``[0, units)``, ``categorical_crossentropy`` one-hot rows with as many
columns as the output has units; the data must be numeric (string class names are
encoded first), and NumPy's in-place ``/=`` cannot write floats into a ``uint8`` array.

Evidence a diagnosis needs: the model's declared input shape against the array's shape
(which axis is missing or extra, and whether it is the batch, the channel or the
flattened feature axis), the output layer's units and activation against the labels'
shape, dtype and value range (largest id, number of distinct classes, one-hot or not),
and the dtype of the arrays passed to ``fit`` or to an arithmetic step (``uint8``,
``object``/string columns).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... Invalid input shape for input Tensor("data:0", shape=(32, 28, 28), dtype=float32) with name 'keras_tensor' and path ''. Expected shape (None, 784), bu ...
    Case(
        name="f13_mnist_images_into_dense_input_of_784",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, size=(64, 28, 28)).astype("float32") / 255.0
y_train = np.random.randint(0, 10, size=(64,))
model = keras.Sequential([
    keras.Input(shape=(784,)),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, batch_size=32, verbose=0)
""",
        expect="S01",
        must=("784",),
        must_not=("batch axis", "to_categorical"),
        fix="x_train.reshape(-1, 784), or Input((28, 28)) + Flatten()",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected axis -1 of input shape to have value 1, but received input with sh ...
    Case(
        name="f13_mnist_cnn_copied_for_rgb_cifar_images",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(48, 32, 32, 3).astype("float32")
y_train = np.random.randint(0, 10, size=(48,))
model = keras.Sequential([
    keras.Input(shape=(32, 32, 1)),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("batch axis", "flatten"),
        fix="keras.Input(shape=(32, 32, 3))",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 10)
    Case(
        name="f13_categorical_crossentropy_with_digit_ids",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(60, 784).astype("float32")
y_train = np.random.randint(0, 10, size=(60,))
model = keras.Sequential([
    keras.Input(shape=(784,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="sgd", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("flatten", "dense(1"),
        fix='loss="sparse_categorical_crossentropy" (or to_categorical(y_train, 10))',
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of 3 which is outside the valid range of [0, 3).  Label values: 1 2 2 3 1 1 1 3 1 3 2 2 1 3 1 2 2 3 3 2 2 3 2 2 1 1 1 3 3 3
    Case(
        name="f13_iris_species_numbered_from_one",
        family="beginner_first_models",
        code="""
rng = np.random.default_rng(0)
features = rng.normal(size=(30, 4)).astype("float32")
species = np.repeat([1, 2, 3], 10)  # class column as stored in the CSV: 1, 2, 3
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(features, species, epochs=1, batch_size=30, verbose=0)
""",
        expect="P12",
        must=("3",),
        must_not=("from_logits", "dense(4"),
        fix="species - 1 (ids 0..2)",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    #   ... Negative dimension size caused by subtracting 3 from 1 for '{{node sequential_1/conv2d_1_1/convolution}} = Conv2D[T=DT_FLOAT, data_format="NHWC", dila ...
    Case(
        name="f13_predict_one_test_digit_on_cnn",
        family="beginner_first_models",
        code="""
x_test = np.random.rand(10, 28, 28, 1).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(28, 28, 1)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
probs = model.predict(x_test[0], verbose=0)
print(probs.argmax())
""",
        expect="S12",
        must=("batch",),
        must_not=("channel",),
        fix="model.predict(x_test[:1]) (or x_test[0][None])",
    ),
    # UFuncTypeError: Cannot cast ufunc 'divide' output from dtype('float64') to dtype('uint8') with casting rule 'same_kind'
    Case(
        name="f13_inplace_divide_uint8_pixels_by_255",
        family="beginner_first_models",
        code="""
x_train = np.random.randint(0, 256, size=(32, 32, 32, 3), dtype=np.uint8)
y_train = np.random.randint(0, 10, size=(32,))
x_train /= 255
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S11",
        must=("astype",),
        must_not=("rescaling(", "batch_size"),
        fix='x_train = x_train.astype("float32") / 255',
    ),
    # ValueError: Invalid dtype: str320
    Case(
        name="f13_iris_table_with_species_names_as_labels",
        family="beginner_first_models",
        code="""
measurements = np.random.rand(9, 4).astype("float32")
species = np.array(["setosa", "versicolor", "virginica"] * 3)
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(measurements, species, epochs=1, verbose=0)
""",
        expect="S11",
        must=("string",),
        must_not=("reshape", "float64"),
        fix="encode the names: ids = np.unique(species, return_inverse=True)[1] (or StringLookup)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 10), output.shape=(None, 5)
    Case(
        name="f13_one_hot_cifar_labels_against_five_unit_head",
        family="beginner_first_models",
        code="""
x_train = np.random.rand(40, 32, 32, 3).astype("float32")
y_train = keras.utils.to_categorical(np.random.randint(0, 10, size=(40,)), 10)
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(5, activation="softmax"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        expect="M04",
        must=("10",),
        must_not=("sparse_categorical", "flatten"),
        fix="Dense(10, activation='softmax')",
    ),
]
