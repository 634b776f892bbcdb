"""Family: evaluation and prediction after training or loading.

API: ``Model.evaluate(x, y, batch_size, return_dict)``, ``Model.predict(x)``,
``Model.predict_on_batch(x)``, calling the model directly (``model(x, training=False)``),
``keras.saving.load_model``, and the user's code that post-processes predictions
(``argmax``, thresholds, ``keras.metrics.*`` objects' ``update_state(y_true, y_pred)`` /
``result()`` used by hand).  Contract (Keras documentation): ``x`` is an array (or list /
dict of arrays for several inputs) whose FIRST axis is the batch axis, with the same
per-example shape, dtype and preprocessing as the training data (a single example needs
``x[None]`` / ``np.expand_dims(x, 0)``); or a ``tf.data.Dataset`` that is already batched
and, for ``evaluate``, yields ``(inputs, targets)`` or ``(inputs, targets,
sample_weights)``, in which case ``y`` must not be passed; ``y`` has the structure of the
model's outputs (one array per output of a multi-output model) and the encoding the
loss was compiled for (integer ids for a sparse loss, one-hot for a categorical one);
``predict`` returns one array per output; ``evaluate`` returns a scalar, a list in
``model.metrics_names`` order, or a dict with ``return_dict=True``; a metric's
``update_state`` takes ``y_true`` first, then ``y_pred``, with the encoding that metric
expects (``Recall``/``Precision`` compare element-wise, so multi-class probabilities
need one-hot labels).  Model layers only accept float (or, for ``Embedding``, integer)
tensors; a subclassed model does not cast its inputs.  Evidence a diagnosis can read at
the failure: the arguments of the failing call and their shapes / dtypes (the user's
variable names in the cell's source), the model's inputs, outputs, output names, layers
and compiled loss, the dataset's ``element_spec`` (batched or not, one component or
two), the training data still in the namespace (its shape, dtype and range), the
metric object and which argument holds probabilities and which holds ids.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "evaluation"

CASES = [
    # ValueError: Exception encountered when calling MaxPooling2D.call().
    # (Negative dimension size caused by subtracting 2 from 1 ... with input shapes:
    # [28,28,1,8]: predict took the 28 rows of one image as a batch of 28 examples)
    Case(
        "eval_predict_single_image_without_batch_axis",
        FAMILY,
        """
x_train = np.random.rand(40, 28, 28, 1).astype("float32")
y_train = np.random.randint(0, 10, 40)
x_test = np.random.rand(10, 28, 28, 1).astype("float32")
model = keras.Sequential([keras.Input((28, 28, 1)),
                          keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
                          keras.layers.MaxPooling2D(),
                          keras.layers.Flatten(),
                          keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
digit = x_test[3]
probs = model.predict(digit, verbose=0)
print("predicted class:", probs.argmax())
""",
        "S12",
        must=("digit",),
        must_not=("padding", "pool_size"),
        fix="model.predict(digit[None])",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 3), output.shape=(None, 3)
    # (trained on integer ids, evaluated with one-hot test labels)
    Case(
        "eval_evaluate_onehot_test_labels_sparse_loss",
        FAMILY,
        """
x_train = np.random.rand(60, 4).astype("float32")
y_train = np.random.randint(0, 3, 60)
x_test = np.random.rand(15, 4).astype("float32")
test_labels = keras.utils.to_categorical(np.random.randint(0, 3, 15), 3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
test_loss, test_acc = model.evaluate(x_test, test_labels, verbose=0)
""",
        "M05",
        must=("test_labels", "sparse"),
        must_not=("flatten", "from_logits"),
        fix="np.argmax(test_labels, axis=1)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape ... Expected shape (None, 6), but input has incompatible
    # shape (6,): the test dataset was never batched)
    Case(
        "eval_evaluate_unbatched_test_dataset",
        FAMILY,
        """
x_train = np.random.rand(64, 6).astype("float32")
y_train = np.random.randint(0, 2, 64).astype("float32")
x_test = np.random.rand(16, 6).astype("float32")
y_test = np.random.randint(0, 2, 16).astype("float32")
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(64).batch(16)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test))
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=1, verbose=0)
model.evaluate(test_ds, verbose=0)
""",
        "S01",
        must=("test_ds",),
        must_not=("expand_dims", "reshape"),
        fix="test_ds.batch(16)",
    ),
    # ValueError: When providing `x` as a tf.data.Dataset, `y` should not be passed.
    # Instead, the targets should be included as part of the tf.data.Dataset.
    Case(
        "eval_evaluate_dataset_and_separate_y",
        FAMILY,
        """
x_train = np.random.rand(64, 6).astype("float32")
y_train = np.random.randint(0, 2, 64).astype("float32")
x_test = np.random.rand(16, 6).astype("float32")
y_test = np.random.randint(0, 2, 16).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(8)
model.evaluate(test_ds, y_test, verbose=0)
""",
        None,
        unexplained="Keras says y must not be passed with a Dataset and that the targets belong in it",
        fix="model.evaluate(test_ds)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(20, 3), output.shape=(20,)
    # (update_state(y_pred, y_true): probabilities passed as y_true, ids as y_pred)
    Case(
        "eval_metric_update_state_arguments_swapped",
        FAMILY,
        """
x_train = np.random.rand(60, 4).astype("float32")
y_train = np.random.randint(0, 3, 60)
x_test = np.random.rand(20, 4).astype("float32")
y_test = np.random.randint(0, 3, 20)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
probs = model.predict(x_test, verbose=0)
test_xent = keras.metrics.SparseCategoricalCrossentropy()
test_xent.update_state(probs, y_test)
print("test log-loss:", float(test_xent.result()))
""",
        "S07",
        must=("probs", "y_test"),
        must_not=("to_categorical",),
        fix="update_state(y_test, probs)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__LogicalAnd_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} Incompatible shapes: [1,20] vs. [1,60] [Op:LogicalAnd]
    # (Recall compares element-wise: 20 class ids against 20x3 softmax probabilities)
    Case(
        "eval_recall_metric_ids_against_softmax",
        FAMILY,
        """
x_train = np.random.rand(60, 4).astype("float32")
y_train = np.random.randint(0, 3, 60)
x_test = np.random.rand(20, 4).astype("float32")
y_test = np.random.randint(0, 3, 20)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
recall = keras.metrics.Recall()
recall.update_state(y_test, model.predict(x_test, verbose=0))
print("recall:", float(recall.result()))
""",
        "S07",
        must=("recall", "y_test"),
        must_not=("swap", "hard-code"),
        fix="one-hot y_test, or Recall(class_id=k) per class",
    ),
    # ValueError: y_true and y_pred have different structures.
    # (y_true: *, y_pred: ['*', '*']: one label array for a two-output model)
    Case(
        "eval_evaluate_multi_output_one_label_array",
        FAMILY,
        """
inp = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu")(inp)
species = keras.layers.Dense(3, activation="softmax", name="species")(h)
weight = keras.layers.Dense(1, name="weight")(h)
model = keras.Model(inp, [species, weight])
model.compile("adam", loss=["sparse_categorical_crossentropy", "mse"])
x = np.random.rand(40, 8).astype("float32")
y_species = np.random.randint(0, 3, 40)
y_weight = np.random.rand(40, 1).astype("float32")
model.fit(x, [y_species, y_weight], epochs=1, verbose=0)
model.evaluate(x[30:], y_species[30:], verbose=0)
""",
        "S12",
        must=("weight",),
        must_not=("flatten", "to_categorical"),
        fix="pass [y_species, y_weight] (or a dict by output name)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape ... Expected shape (None, 6), but input has incompatible
    # shape (2,); inputs=tf.Tensor(shape=(2,), dtype=string): raw text, not vectorized)
    Case(
        "eval_predict_on_batch_raw_strings",
        FAMILY,
        """
texts = np.array(["great movie", "awful plot", "loved it", "boring and long"] * 10)
labels = np.array([1, 0, 1, 0] * 10)
vectorize = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=6)
vectorize.adapt(texts)
model = keras.Sequential([keras.Input((6,), dtype="int64"), keras.layers.Embedding(50, 8),
                          keras.layers.GlobalAveragePooling1D(),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(vectorize(texts), labels, epochs=1, verbose=0)
new_reviews = np.array(["what a great film", "worst movie ever"])
model.predict_on_batch(new_reviews)
""",
        "S11",
        must=("new_reviews",),
        must_not=("expand_dims", "padded"),
        fix="model.predict_on_batch(vectorize(new_reviews))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 ... of layer 'dense_..' is incompatible with the layer: expected axis -1
    # of input shape to have value 3600, but received input with shape (5, 2704))
    Case(
        "eval_loaded_model_smaller_test_photos",
        FAMILY,
        """
import os, tempfile
x_train = np.random.rand(32, 32, 32, 3).astype("float32")
y_train = np.random.randint(0, 2, 32)
model = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Conv2D(4, 3, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "clf.keras")
model.save(path)
restored = keras.saving.load_model(path)
photos = np.random.rand(5, 28, 28, 3).astype("float32")
restored.predict(photos, verbose=0)
""",
        "S01",
        must=("photos", "32"),
        must_not=("padding", "expand_dims"),
        fix="resize photos to 32x32",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    # (Incompatible type conversion requested to type uint8 for `tf.Variable of type
    # float32: raw uint8 images into a subclassed model trained on float32 in [0, 1])
    Case(
        "eval_uint8_images_direct_model_call",
        FAMILY,
        """
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(4, 3, activation="relu")
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.out = keras.layers.Dense(5)
    def call(self, x):
        return self.out(self.pool(self.conv(x)))
net = Net()
net.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
train_images = np.random.rand(20, 16, 16, 3).astype("float32")
net.fit(train_images, np.random.randint(0, 5, 20), epochs=1, verbose=0)
test_images = np.random.randint(0, 256, (4, 16, 16, 3), dtype=np.uint8)
logits = net(test_images, training=False)
""",
        "S11",
        must=("test_images", "uint8"),
        must_not=("float64",),
        fix='test_images.astype("float32") / 255',
    ),
]
