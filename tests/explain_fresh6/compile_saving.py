"""Family ``compile_saving``: compile arguments and saved files against the model they belong to.

APIs: ``Model.compile(loss=, metrics=, loss_weights=)`` and ``Model.fit(class_weight=,
sample_weight=)``, ``Model.save``/``keras.models.load_model`` (``.keras`` files),
``Model.save_weights``/``load_weights`` (``.weights.h5``), ``Model.export`` and the
``keras.saving`` registration (``register_keras_serializable``, ``custom_objects``,
``get_config``/``from_config``).

Documented contract: a loss (or metric, or weight) given as a dict is matched to the
model's ``output_names`` (the names of the Functional model's output layers, or the keys
of a dict output; a subclassed model has no output names), a list is matched to the
outputs in their flattened order (a dict output flattens in sorted key order);
``class_weight`` maps a class id to a weight for each sample, so it fits one label per
sample, not one per time step (use a ``sample_weight`` of the labels' shape).  A saved
``.keras`` file stores each object by its registered name and its ``get_config()``;
loading rebuilds it with ``cls(**config)``, so every custom function or class must be
registered or passed in ``custom_objects`` and every constructor argument must be in
``get_config()``.  ``load_model`` reads ``.keras`` (and legacy ``.h5``) files only; a
directory written by ``Model.export`` is reloaded with ``keras.layers.TFSMLayer``.
``load_weights`` needs the same variables with the same shapes (``skip_mismatch=True``
skips the layers that differ).

Evidence a diagnosis needs: the model's output names and structure, the keys or the
length of what was given, the label and weight shapes, the file or folder given and what
wrote it, and the custom functions and classes the saved config refers to (with the
constructor arguments their ``get_config`` leaves out).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: 'NoneType' object is not iterable
    Case(
        name="loss_dict_for_a_subclassed_model_returning_a_tuple",
        family="compile_saving",
        code="""
from keras import layers

class PriceAndCategory(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = layers.Dense(16, activation="relu")
        self.price = layers.Dense(1, name="price")
        self.category = layers.Dense(3, activation="softmax", name="category")

    def call(self, x):
        z = self.hidden(x)
        return self.price(z), self.category(z)

model = PriceAndCategory()
model.compile("adam", loss={"price": "mse", "category": "sparse_categorical_crossentropy"})
x = np.random.rand(16, 8).astype("float32")
y_price = np.random.rand(16, 1).astype("float32")
y_cat = np.random.randint(0, 3, 16)
model.fit(x, (y_price, y_cat), epochs=1, verbose=0)
""",
        expect="S12",
        must=("subclass",),
        must_not=("returns none", "missing return"),
        fix="loss as a list in output order, or return a dict from call()",
    ),
    # InvalidArgumentError: Graph execution error: Detected at node compile_loss/mse/sub
    # ... Incompatible shapes: [16] vs. [16,3]
    Case(
        name="loss_list_in_insertion_order_for_a_dict_output_model",
        family="compile_saving",
        code="""
from keras import layers
inp = keras.Input((8,))
h = layers.Dense(16, activation="relu")(inp)
outputs = {
    "score": layers.Dense(1)(h),
    "label": layers.Dense(3, activation="softmax")(h),
}
model = keras.Model(inp, outputs)
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"])
x = np.random.rand(16, 8).astype("float32")
y = {"score": np.random.rand(16, 1).astype("float32"), "label": np.random.randint(0, 3, 16)}
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("order",),
        must_not=("reshape", "squeeze"),
        fix='loss={"score": "mse", "label": "sparse_categorical_crossentropy"}',
    ),
    # InvalidArgumentError: Graph execution error: Detected at node
    # gradient_tape/compile_loss/sparse_categorical_crossentropy/mul/BroadcastGradientArgs
    # ... Incompatible shapes: [16,10] vs. [16]
    Case(
        name="class_weight_on_per_token_labels_of_a_sequence_tagger",
        family="compile_saving",
        code="""
from keras import layers
tokens = keras.Input((10,), dtype="int32")
h = layers.LSTM(8, return_sequences=True)(layers.Embedding(50, 8)(tokens))
tags = layers.TimeDistributed(layers.Dense(4, activation="softmax"))(h)
model = keras.Model(tokens, tags)
model.compile("adam", "sparse_categorical_crossentropy")
x = np.random.randint(0, 50, (16, 10))
y = np.random.randint(0, 4, (16, 10))
model.fit(x, y, class_weight={0: 0.1, 1: 1.0, 2: 1.0, 3: 1.0}, epochs=1, verbose=0)
""",
        expect="S07",
        must=("sample_weight",),
        must_not=("reshape the labels", "one-hot"),
        fix="sample_weight of shape (16, 10) built from the class weights per token",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized
    # properly. ... (ends with: Could not locate function 'scaled_tanh'.)
    Case(
        name="custom_activation_function_missing_when_loading_the_keras_file",
        family="compile_saving",
        code="""
import os, tempfile
from keras import layers

def scaled_tanh(t):
    return 1.7159 * tf.math.tanh(2.0 / 3.0 * t)

model = keras.Sequential([
    keras.Input((8,)),
    layers.Dense(16, activation=scaled_tanh),
    layers.Dense(1),
])
path = os.path.join(tempfile.mkdtemp(), "lecun_tanh.keras")
model.save(path)
# later, in the serving notebook
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("scaled_tanh",),
        must_not=("from_config",),
        fix='custom_objects={"scaled_tanh": scaled_tanh} or register the function',
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized
    # properly. Please ensure that components that are Python object instances ...
    Case(
        name="registered_initializer_without_get_config_for_its_stddev",
        family="compile_saving",
        code="""
import os, tempfile
from keras import layers

@keras.saving.register_keras_serializable()
class ScaledNormal(keras.initializers.Initializer):
    def __init__(self, stddev):
        self.stddev = stddev

    def __call__(self, shape, dtype=None):
        return tf.random.normal(shape, stddev=self.stddev, dtype=dtype)

model = keras.Sequential([
    keras.Input((8,)),
    layers.Dense(16, kernel_initializer=ScaledNormal(0.05)),
    layers.Dense(1),
])
path = os.path.join(tempfile.mkdtemp(), "init.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("stddev",),
        must_not=("from_config", "custom_objects"),
        fix='get_config returning {"stddev": self.stddev}',
    ),
    # NotImplementedError: Object MLP was created by passing non-serializable argument
    # values in `__init__()`, and therefore the object must override `get_config()` ...
    Case(
        name="subclassed_model_with_constructor_args_saved_without_get_config",
        family="compile_saving",
        code="""
import os, tempfile
from keras import layers

class MLP(keras.Model):
    def __init__(self, hidden, n_out, **kwargs):
        super().__init__(**kwargs)
        self.d1 = layers.Dense(hidden, activation="relu")
        self.d2 = layers.Dense(n_out)

    def call(self, x):
        return self.d2(self.d1(x))

model = MLP(32, 1)
model.compile("adam", "mse")
model.fit(np.random.rand(16, 8), np.random.rand(16, 1), epochs=1, verbose=0)
model.save(os.path.join(tempfile.mkdtemp(), "mlp.keras"))
""",
        expect=None,
        unexplained="Keras says the class must override get_config() and shows an example",
        fix="get_config returning hidden and n_out",
    ),
    # ValueError: File format not supported: filepath=/tmp/.../exported. Keras 3 only
    # supports V3 `.keras` files, legacy H5 format files (`.h5` extension). ...
    # use `keras.layers.TFSMLayer(...)`
    Case(
        name="load_model_on_a_folder_written_by_model_export",
        family="compile_saving",
        code="""
import os, tempfile
from keras import layers
model = keras.Sequential([keras.Input((8,)), layers.Dense(4, activation="relu"), layers.Dense(1)])
export_dir = os.path.join(tempfile.mkdtemp(), "serving")
model.export(export_dir)
reloaded = keras.models.load_model(export_dir)
""",
        expect=None,
        unexplained="Keras says load_model reads .keras/.h5 files and names TFSMLayer "
        "for an exported SavedModel",
        fix="keras.layers.TFSMLayer(export_dir, call_endpoint='serve'), or save a .keras file",
    ),
    # ValueError: A total of 1 objects could not be loaded. Example error message for object
    # <Dense name=head, built=True>: The shape of the target variable and the shape of the
    # target value in `variable.assign(value)` must match. variable.shape=(16, 5), ...
    Case(
        name="fine_tune_loads_a_ten_class_checkpoint_into_a_five_class_head",
        family="compile_saving",
        code="""
import os, tempfile
from keras import layers

def make_classifier(n_classes):
    return keras.Sequential([
        keras.Input((8,)),
        layers.Dense(16, activation="relu", name="features"),
        layers.Dense(n_classes, activation="softmax", name="head"),
    ])

pretrained = make_classifier(10)
ckpt = os.path.join(tempfile.mkdtemp(), "pretrained.weights.h5")
pretrained.save_weights(ckpt)
finetune = make_classifier(5)
finetune.load_weights(ckpt)
""",
        expect="C04",
        must=("skip_mismatch",),
        must_not=("batch", "retrain from scratch"),
        fix="load_weights(ckpt, skip_mismatch=True), or load into the 10-class model "
        "and replace its head",
    ),
]
