"""Family: Keras 2 / tf.keras 2.x code run on Keras 3 (TensorFlow backend), a second pass.

API: what Keras 2 (TF 2.x up to 2.15) did for the user and Keras 3 no longer does:
function metrics given to ``compile(metrics=[fn])`` (Keras 2's ``MeanMetricWrapper`` cast
``y_true`` and ``y_pred`` to the metric's float dtype; Keras 3 passes the labels as they
come), losses given as Python functions (Keras 2 ran them through AutoGraph; Keras 3
traces them as plain Python inside the train step), ``input_shape=`` on a layer (Keras 3
only reads it from the FIRST layer of a ``Sequential``, with a deprecation warning),
``Embedding(input_length=...)`` (ignored: the model is built by the first data it sees),
auto-generated ``Input`` names (Keras 2 ``input_1``, ``input_2``; Keras 3
``input_layer``, ``input_layer_1``), ``Dense``/``Conv2D`` on tensors of unknown rank
(Keras 2 since TF 2.2 accepted them from ``tf.numpy_function``/``tf.py_function`` in a
``map``), ``load_model`` of a SavedModel directory, ``Lambda`` layers with a Python
``lambda`` reloaded from a file (``safe_mode``), one optimizer object compiled into two
models (the Keras 2 GAN tutorials), ``metrics=[...]`` as one flat list for a
multi-output model (Keras 2 applied it to every output).

Contract (Keras 3): a metric or loss function receives ``y_true`` with the labels' own
dtype and casts it itself (``tf.cast(y_true, y_pred.dtype)``) or uses a built-in
``keras.metrics`` class; control flow on tensors inside a loss uses ``tf.where``/
``tf.cond``; a ``Sequential`` gets its input shape from ``keras.Input`` (or
``input_shape`` on its first layer); sequence length is fixed by the data (pad every split
with the same ``maxlen``) or by ``keras.Input((maxlen,))``; a dict of inputs is keyed by
the Inputs' names (give them ``name=``); dataset elements have a known rank (``set_shape``/
``tf.ensure_shape`` after ``tf.numpy_function``); ``load_model`` reads ``.keras``/``.h5``
(a SavedModel is reloaded with ``keras.layers.TFSMLayer``); a Python ``lambda`` is only
deserialized with ``safe_mode=False``; an optimizer instance serves one set of
variables; multi-output ``metrics`` are a dict or a list with one entry per output.

Evidence a diagnosis could read at the failure: the exception and the frame it came from
(a metric function under ``compile_metrics``, a loss function under ``compile_loss``, a
``Sequential.call`` with an input of unknown rank), the dtypes of the labels and of the
model's output, the function's source (``if`` on a tensor), the model's layers and which
of them got ``input_shape``/``input_length`` (with their deprecation warnings), the shapes
the model was built with against the data passed to ``predict`` (the padded length of
each split), the Inputs' names against the keys of the dict passed to ``fit``, the
dataset's ``element_spec`` and the ``map`` function that produced it, the path given to
``load_model`` (a directory holding ``saved_model.pb``), the optimizer shared between
two compiled models, the model's outputs against ``metrics``.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras2_more"

CASES = [
    # The recall_m / precision_m / f1_m snippet copied into countless Keras 2 notebooks
    # (Stack Overflow "How to get other metrics in Keras"): Keras 2's MeanMetricWrapper cast
    # y_true to float32 first, Keras 3 hands the metric the int64 labels as they are.
    # TypeError: Input 'y' of 'Mul' Op has type float32 that does not match type int64 of
    # argument 'x'.
    Case(
        "k2b_keras2_recall_metric_int_labels",
        FAMILY,
        """
from tensorflow.keras import backend as K

def recall_m(y_true, y_pred):
    true_positives = K.sum(K.round(K.clip(y_true * y_pred, 0, 1)))
    possible_positives = K.sum(K.round(K.clip(y_true, 0, 1)))
    return true_positives / (possible_positives + K.epsilon())

x = np.random.rand(40, 6).astype("float32")
y = np.random.randint(0, 2, size=(40, 1))
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy", recall_m])
model.fit(x, y, epochs=1, verbose=0)
""",
        "S11",
        must=("recall_m", "int64"),
        must_not=("float64",),
        fix="tf.cast(y_true, y_pred.dtype) in recall_m, or keras.metrics.Recall()",
    ),
    # Keras 2 losses were converted by AutoGraph (LossFunctionWrapper used tf_convert);
    # Keras 3 calls the function as plain Python inside the traced train step.
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not
    # allowed. You can attempt the following resolutions to the problem: ...
    Case(
        "k2b_custom_loss_python_if_no_autograph",
        FAMILY,
        """
def asymmetric_loss(y_true, y_pred):
    err = y_true - y_pred
    if tf.reduce_mean(err) > 0:  # under-forecasting costs twice as much
        return tf.reduce_mean(2.0 * tf.square(err))
    return tf.reduce_mean(tf.square(err))

demand = np.random.rand(48, 5).astype("float32")
target = np.random.rand(48, 1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=asymmetric_loss)
model.fit(demand, target, epochs=1, batch_size=16, verbose=0)
""",
        "T02",
        must=("asymmetric_loss",),
        must_not=("persistent", "argmax"),
        fix="tf.where(...) (or tf.cond) instead of a Python if in the loss",
    ),
    # Keras 3 warns "Do not pass an `input_shape`/`input_dim` argument to a layer" and only
    # reads it on the first layer; here it sits on the Conv2D after Rescaling, so the
    # Sequential has no input and the Keras 2 feature-extractor idiom fails.
    # AttributeError: Sequential model 'sequential' has no defined inputs yet.
    Case(
        "k2b_input_shape_on_second_layer",
        FAMILY,
        """
model = keras.Sequential([
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(16, 3, activation="relu", input_shape=(32, 32, 3)),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
extractor = keras.Model(inputs=model.inputs, outputs=model.layers[1].output)
""",
        "S04",
        must=("input_shape",),
        must_not=("return_sequences", "channels_first"),
        fix="start with keras.Input((32, 32, 3)) before Rescaling",
    ),
    # Keras 3 Embedding: "Argument `input_length` is deprecated. Just remove it." The model is
    # built by the training data, padded without maxlen to its longest sequence (37), so the
    # Dense after Flatten expects 37 * 16; the test data is padded to maxlen=50.
    # ValueError: Exception encountered when calling Sequential.call().
    # (key sentence: Input 0 ... of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 592, but received input with shape (8, 800))
    Case(
        "k2b_embedding_input_length_padding_differs",
        FAMILY,
        """
from keras.preprocessing.sequence import pad_sequences

maxlen = 50
rng = np.random.default_rng(0)
train_seqs = [list(rng.integers(1, 500, rng.integers(5, 38))) for _ in range(40)]
train_seqs[0] = list(rng.integers(1, 500, 37))
test_seqs = [list(rng.integers(1, 500, rng.integers(5, 45))) for _ in range(8)]
x_train = pad_sequences(train_seqs)
x_test = pad_sequences(test_seqs, maxlen=maxlen)
y_train = rng.integers(0, 2, 40)

model = keras.Sequential([
    keras.layers.Embedding(500, 16, input_length=maxlen),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
probs = model.predict(x_test, verbose=0)
""",
        "S01",
        must=("maxlen", "37"),
        must_not=("return_sequences", "input_dim"),
        fix="pad_sequences(train_seqs, maxlen=maxlen) and keras.Input((maxlen,))",
    ),
    # Keras 2 named unnamed Inputs input_1, input_2 (what model.summary() showed, and what
    # Keras 2 code keyed its dicts with); Keras 3 names them input_layer, input_layer_1.
    # ValueError: Missing data for input "input_layer". You passed a data dictionary with
    # keys ['input_1', 'input_2']. Expected the following keys: ['input_layer', ...]
    Case(
        "k2b_keras2_default_input_names_in_dict",
        FAMILY,
        """
numeric = keras.Input((3,))
onehot = keras.Input((4,))
h = keras.layers.Concatenate()([numeric, onehot])
h = keras.layers.Dense(8, activation="relu")(h)
model = keras.Model([numeric, onehot], keras.layers.Dense(1)(h))
model.compile("adam", "mse")
x_num = np.random.rand(30, 3).astype("float32")
x_cat = np.eye(4, dtype="float32")[np.random.randint(0, 4, 30)]
model.fit({"input_1": x_num, "input_2": x_cat}, np.random.rand(30, 1), epochs=1, verbose=0)
""",
        "S12",
        must=("input_1",),
        must_not=("number of samples", "batch axis"),
        fix='keras.Input((3,), name="input_1") (name the Inputs) or pass [x_num, x_cat]',
    ),
    # tensorflow/tensorflow#24520 (Keras 2 since TF 2.2 fit tensors of unknown rank),
    # tensorflow/tensorflow#31373 (numpy_function in map loses the shape); Keras 3's
    # Sequential needs the rank.
    # ValueError: Exception encountered when calling Sequential.call().
    # (key sentence: Cannot take the length of shape with unknown rank.)
    Case(
        "k2b_numpy_function_image_loader_unknown_rank",
        FAMILY,
        """
paths = np.array([f"photos/img_{i:03d}.jpg" for i in range(24)])
labels = np.random.randint(0, 3, 24)

def read_image(path):
    # stands in for cv2.imread(path.decode()) + cv2.resize(img, (32, 32)) / 255
    return np.random.rand(32, 32, 3).astype("float32")

def load(path, label):
    image = tf.numpy_function(read_image, [path], tf.float32)
    return image, label

ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load).batch(8)
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(ds, epochs=1, verbose=0)
""",
        "S10",
        must=("numpy_function",),
        must_not=("output_signature",),
        fix="image.set_shape((32, 32, 3)) (or tf.ensure_shape) in load",
    ),
    # keras-team/keras#18709, unicode-org/lstm_word_segmentation#28, IDAES/idaes-pse#1369:
    # Keras 2's load_model read SavedModel directories, Keras 3's does not.
    # ValueError: File format not supported: filepath=/tmp/.../price_model/1. Keras 3 only
    # supports V3 `.keras` files, legacy H5 format files (`.h5` extension). ...
    Case(
        "k2b_load_model_savedmodel_directory",
        FAMILY,
        """
import os, tempfile

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=1, verbose=0)
export_dir = os.path.join(tempfile.mkdtemp(), "price_model", "1")
tf.saved_model.save(model, export_dir)  # the serving export of the Keras 2 pipeline

reloaded = tf.keras.models.load_model(export_dir)
""",
        None,
        unexplained="Keras' message names the fix: reload a SavedModel with "
        "`keras.layers.TFSMLayer(path, call_endpoint='serving_default')`, or save and load "
        "a `.keras` file.",
        fix='keras.layers.TFSMLayer(export_dir, call_endpoint="serving_default")',
    ),
    # keras-team/keras#18284, tensorflow/tensorflow#61211: a Lambda with a Python lambda
    # reloaded without complaint up to Keras 2.12; Keras 3 refuses it in safe mode.
    # ValueError: Requested the deserialization of a `Lambda` layer whose `function` is a
    # Python lambda. This carries a potential risk of arbitrary code execution ...
    Case(
        "k2b_lambda_l2_normalize_reload_safe_mode",
        FAMILY,
        """
import os, tempfile

inp = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu")(inp)
emb = keras.layers.Lambda(lambda t: tf.math.l2_normalize(t, axis=1))(h)
encoder = keras.Model(inp, emb)
path = os.path.join(tempfile.mkdtemp(), "encoder.keras")
encoder.save(path)
encoder = keras.models.load_model(path)
""",
        None,
        unexplained="Keras' message names the fix: pass `safe_mode=False` to the loading "
        "function when the file is trusted.",
        fix="load_model(path, safe_mode=False), or a registered function instead of the lambda",
    ),
    # The Keras 2 GAN tutorials (one `Adam(0.0002, 0.5)` compiled into the discriminator
    # and the combined model); mrosol/Nonlincausality#12 reports the same error.
    # ValueError: Unknown variable: <Variable path=sequential/dense/kernel, shape=(4, 8),
    # dtype=float32>. This optimizer can only be called for the variables it was
    # originally built with. ...
    Case(
        "k2b_gan_one_optimizer_two_models",
        FAMILY,
        """
optimizer = keras.optimizers.Adam(0.0002, 0.5)
generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh")])
discriminator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
discriminator.compile(loss="binary_crossentropy", optimizer=optimizer)

discriminator.trainable = False
z = keras.Input((4,))
combined = keras.Model(z, discriminator(generator(z)))
combined.compile(loss="binary_crossentropy", optimizer=optimizer)

real = np.random.rand(16, 8)
noise = np.random.normal(size=(16, 4))
discriminator.trainable = True
d_loss = discriminator.train_on_batch(real, np.ones((16, 1)))
g_loss = combined.train_on_batch(noise, np.ones((16, 1)))
""",
        None,
        unexplained="Keras' message names the fix: recreate a new optimizer instance for "
        "the new set of variables (one optimizer per model).",
        fix="a separate Adam(0.0002, 0.5) for each compiled model",
    ),
    # aladdinpersson/Machine-Learning-Collection#180, tensorflow/tensorflow#100319,
    # keras-team/keras#21675: Keras 2 applied metrics=["accuracy"] to every output.
    # ValueError: tuple arity mismatch; expected: 2, got: 1; tuple: ('accuracy',).
    # (next line: Invalid `metrics`. `metrics` should contain metrics objects and either be
    # a dict or a list matching the output names of the functional model ['cls', 'reg'] ...)
    Case(
        "k2b_multi_output_flat_metrics_list",
        FAMILY,
        """
inp = keras.Input((4,))
h = keras.layers.Dense(8, activation="relu")(inp)
species = keras.layers.Dense(3, activation="softmax", name="cls")(h)
weight = keras.layers.Dense(1, name="reg")(h)
model = keras.Model(inp, [species, weight])
model.compile("adam", ["sparse_categorical_crossentropy", "mse"], metrics=["accuracy"])
model.fit(np.random.rand(20, 4), [np.random.randint(0, 3, 20), np.random.rand(20, 1)],
          epochs=1, verbose=0)
""",
        None,
        unexplained="Keras' message names the fix: `metrics` as a dict or a list matching "
        "the output names ['cls', 'reg'].",
        fix='metrics={"cls": ["accuracy"], "reg": ["mae"]}',
    ),
]
