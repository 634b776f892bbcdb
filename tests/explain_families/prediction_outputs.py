"""Family: using what ``model.predict`` / ``model.evaluate`` / ``model(x)`` return.

API: ``Model.predict(x)`` / ``predict_on_batch(x)`` / ``model(x, training=...)`` and the
user's post-processing of the result: ``np.argmax`` / ``tf.argmax(probs, axis=...)``,
thresholds on sigmoid outputs, ``tf.nn.softmax`` / ``tf.sigmoid`` applied by hand,
``keras.ops.top_k(x, k)``, ``tf.math.confusion_matrix(labels, predictions,
num_classes)``, sampling a class with ``np.random.choice(n, p=...)``, element-wise
comparisons (``==``, ``-``) of predictions with labels in NumPy or TensorFlow, and
collecting them in a DataFrame.  Contract (Keras / TensorFlow documentation):
``predict`` returns one NumPy array of shape ``(N, units)`` per output, so a
``Dense(1)`` head gives ``(N, 1)``, not ``(N,)``, and a multi-output model gives a list
(or a dict, keyed by output name) of such arrays; a multi-input model takes its arrays
in the order of ``model.inputs`` (or a dict keyed by the Inputs' names); the class axis
is the LAST axis (``axis=-1``/``1``), axis 0 is the batch; ``tf.argmax`` returns int64
and TensorFlow ops do not mix integer dtypes; ``confusion_matrix`` takes two 1-D arrays
of class ids in ``[0, num_classes)``; ``top_k`` works along the last axis and needs
``k <= `` its length; an output layer with ``activation="sigmoid"``/``"softmax"``
already returns probabilities, and one with no activation (a loss with
``from_logits=True``) returns logits that are not probabilities; ``training=True``
keeps ``Dropout`` active.  Evidence a diagnosis could read at the failure: the shapes
and dtypes of the predictions and of the labels (the user's variable names in the
cell's source), the axis passed, the model's inputs (names, order, shapes), outputs
(names, count, units, activation), its layers (``Dropout``), the compiled loss and
its ``from_logits``, the values (ranges of the predictions, the smallest and largest
label), and the user's failing line.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "prediction_outputs"

CASES = [
    # InvalidArgumentError: {{function_node __wrapped__Equal_device_/job:localhost/replica:0/
    # task:0/device:CPU:0}} Incompatible shapes: [3] vs. [20] [Op:Equal] name:
    # (argmax over axis 0, the batch axis: one id per class instead of one per example)
    Case(
        "ev2_argmax_over_batch_axis_accuracy",
        FAMILY,
        """
x_train = np.random.rand(60, 4).astype("float32")
y_train = np.random.randint(0, 3, 60)
x_test = np.random.rand(20, 4).astype("float32")
y_test = np.random.randint(0, 3, 20)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
probs = model.predict(x_test, verbose=0)
pred_ids = tf.argmax(probs, axis=0)
accuracy = tf.reduce_mean(tf.cast(tf.equal(pred_ids, y_test), tf.float32))
print("test accuracy:", float(accuracy))
""",
        "S07",
        must=("pred_ids", "axis"),
        must_not=("expand_dims", "tile"),
        fix="tf.argmax(probs, axis=-1)",
    ),
    # InvalidArgumentError: cannot compute Equal as input #1(zero-based) was expected to
    # be a int64 tensor but is a uint8 tensor [Op:Equal] name:
    # (tf.argmax returns int64; the labels kept the uint8 of the stored data set)
    Case(
        "ev2_eval_loop_argmax_int64_vs_uint8_labels",
        FAMILY,
        """
x_train = np.random.rand(48, 8, 8, 1).astype("float32")
y_train = np.random.randint(0, 10, 48).astype("uint8")  # labels as stored in the .npz
x_test = np.random.rand(24, 8, 8, 1).astype("float32")
y_test = np.random.randint(0, 10, 24).astype("uint8")
model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(),
                          keras.layers.Dense(10)])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x_train, y_train, epochs=1, verbose=0)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(8)
correct = 0
for images, labels in test_ds:
    logits = model(images, training=False)
    correct += int(tf.reduce_sum(tf.cast(tf.argmax(logits, axis=-1) == labels, tf.int32)))
print("accuracy:", correct / len(y_test))
""",
        "S11",
        must=("labels", "uint8"),
        must_not=("float64",),
        fix="tf.cast(labels, tf.int64) before ==",
    ),
    # ValueError: Per-column arrays must each be 1-dimensional
    # (y_test (20,) minus preds (20, 1) broadcast to a (20, 20) "residuals" matrix)
    Case(
        "ev2_residuals_label_minus_column_predictions",
        FAMILY,
        """
import pandas as pd
x_train = np.random.rand(60, 5).astype("float32")
y_train = np.random.rand(60).astype("float32")
x_test = np.random.rand(20, 5).astype("float32")
y_test = np.random.rand(20).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x_train, y_train, epochs=1, verbose=0)
preds = model.predict(x_test, verbose=0)
residuals = y_test - preds
print("RMSE:", np.sqrt(np.mean(residuals ** 2)))
report = pd.DataFrame({"price": y_test, "residual": residuals})
""",
        "S08",
        must=("y_test", "preds"),
        must_not=("flatten layer", "sparse"),
        fix="preds = preds[:, 0] (or .ravel())",
    ),
    # InvalidArgumentError: `labels` out of bound
    # (ratings 1..5 were shifted to 0..4 for training but not for the confusion matrix)
    Case(
        "ev2_confusion_matrix_one_based_ratings",
        FAMILY,
        """
x_train = np.random.rand(50, 6).astype("float32")
ratings_train = np.tile(np.arange(1, 6), 10)  # star ratings 1..5
x_test = np.random.rand(20, 6).astype("float32")
ratings_test = np.tile(np.arange(1, 6), 4)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(5, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, ratings_train - 1, epochs=1, verbose=0)
pred_ids = np.argmax(model.predict(x_test, verbose=0), axis=1)
cm = tf.math.confusion_matrix(ratings_test, pred_ids, num_classes=5)
""",
        "P12",
        must=("ratings_test",),
        must_not=("input_dim", "num_classes=6"),
        fix="confusion_matrix(ratings_test - 1, pred_ids, num_classes=5)",
    ),
    # IndexError: index 0 is out of bounds for axis 0 with size 0
    # (tf.sigmoid over the output of a sigmoid layer: every score is in [0.5, 0.73],
    # so nothing is ever below the 0.5 threshold)
    Case(
        "ev2_sigmoid_applied_to_sigmoid_output",
        FAMILY,
        """
x_train = np.random.randn(80, 6).astype("float32")
y_train = (x_train[:, 0] > 0).astype("float32")
x_test = np.random.randn(30, 6).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid", name="spam_prob")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
scores = tf.sigmoid(model.predict(x_test, verbose=0)).numpy()[:, 0]
is_spam = scores > 0.5
ham_examples = x_test[~is_spam]
print("first message predicted as ham:", ham_examples[0])
""",
        "M08",
        must=("spam_prob", "sigmoid"),
        must_not=("class_weight", "imbalance"),
        fix="drop the tf.sigmoid: predict already returns probabilities",
    ),
    # ValueError: probabilities are not non-negative
    # (the output layer is linear (from_logits=True loss): predict returns logits)
    Case(
        "ev2_sample_next_char_from_logits",
        FAMILY,
        """
vocab = list("abcdefghij ")
seqs = np.random.randint(0, len(vocab), (40, 8))
next_ids = np.random.randint(0, len(vocab), 40)
model = keras.Sequential([keras.Input((8,), dtype="int32"),
                          keras.layers.Embedding(len(vocab), 8),
                          keras.layers.GlobalAveragePooling1D(),
                          keras.layers.Dense(len(vocab), name="next_char")])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(seqs, next_ids, epochs=1, verbose=0)
prompt = seqs[:1]
preds = model.predict(prompt, verbose=0)[0]
next_id = np.random.choice(len(vocab), p=preds)
print("next char:", vocab[next_id])
""",
        "M02",
        must=("next_char",),
        must_not=("remove the softmax", "already applies"),
        fix="tf.random.categorical(logits, 1) or softmax first",
    ),
    # ValueError: Input 0 with name 'image' of layer 'functional' is incompatible with the
    # layer: expected shape=(None, 16, 16, 3), found shape=(8, 4)
    # (the dict's values come out meta-first; model.inputs is [image, meta])
    Case(
        "ev2_predict_on_batch_two_inputs_swapped",
        FAMILY,
        """
image_in = keras.Input((16, 16, 3), name="image")
meta_in = keras.Input((4,), name="meta")
h = keras.layers.GlobalAveragePooling2D()(keras.layers.Conv2D(4, 3, activation="relu")(image_in))
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([h, meta_in]))
model = keras.Model([image_in, meta_in], out)
model.compile("adam", "binary_crossentropy")
img_train = np.random.rand(32, 16, 16, 3).astype("float32")
meta_train = np.random.rand(32, 4).astype("float32")
model.fit([img_train, meta_train], np.random.randint(0, 2, 32), epochs=1, verbose=0)
features = {"meta": np.random.rand(8, 4).astype("float32"),
            "image": np.random.rand(8, 16, 16, 3).astype("float32")}
probs = model.predict_on_batch(list(features.values()))
""",
        "S12",
        must=("image", "meta"),
        must_not=("resize", "expand_dims"),
        fix="predict_on_batch(features) (a dict by input name), or [image, meta]",
    ),
    # ValueError: setting an array element with a sequence. The requested array has an
    # inhomogeneous shape after 2 dimensions. The detected shape was (2, 12) +
    # inhomogeneous part.
    # (predict of a two-output model returns a list [species (12, 3), size (12, 1)])
    Case(
        "ev2_argmax_of_two_output_predict_list",
        FAMILY,
        """
inp = keras.Input((7,))
h = keras.layers.Dense(16, activation="relu")(inp)
species = keras.layers.Dense(3, activation="softmax", name="species")(h)
size = keras.layers.Dense(1, name="size")(h)
model = keras.Model(inp, [species, size])
model.compile("adam", loss=["sparse_categorical_crossentropy", "mse"])
x = np.random.rand(48, 7).astype("float32")
model.fit(x, [np.random.randint(0, 3, 48), np.random.rand(48, 1).astype("float32")],
          epochs=1, verbose=0)
x_new = np.random.rand(12, 7).astype("float32")
species_pred = np.argmax(model.predict(x_new, verbose=0), axis=1)
""",
        "S12",
        must=("species",),
        must_not=("ragged", "padded"),
        fix="species_probs, size_pred = model.predict(x_new); argmax(species_probs, axis=1)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__TopKV2_device_/job:localhost/replica:0/
    # task:0/device:CPU:0}} input must have at least k columns. Had 3, needed 5 [Op:TopKV2]
    # name:
    Case(
        "ev2_top_k_larger_than_class_count",
        FAMILY,
        """
x_train = np.random.rand(40, 4).astype("float32")
y_train = np.random.randint(0, 3, 40)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
probs = model.predict(x_train[:10], verbose=0)
top_values, top_ids = keras.ops.top_k(probs, k=5)
""",
        None,
        unexplained="TensorFlow says the input has 3 columns and k=5 needs at least 5",
        fix="k <= 3 (the number of classes)",
    ),
    # AssertionError: (first line empty; then) Not equal to tolerance rtol=1e-05, atol=0
    # (the serving function calls the model with training=True: Dropout is active)
    Case(
        "ev2_serving_fn_training_true_vs_predict",
        FAMILY,
        """
x_train = np.random.rand(64, 6).astype("float32")
y_train = np.random.randint(0, 2, 64).astype("float32")
x_test = np.random.rand(16, 6).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dropout(0.5), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
def serve(batch):
    return model(batch, training=True).numpy()
# sanity check before export: the serving path must agree with predict
np.testing.assert_allclose(serve(x_test), model.predict(x_test, verbose=0), rtol=1e-5)
""",
        "C01",
        must=("dropout", "training"),
        must_not=("batchnormalization", "set_seed"),
        fix="model(batch, training=False)",
    ),
]
