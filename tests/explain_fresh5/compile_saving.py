"""Family ``compile_saving``: compile and saving contracts that Keras states only in part.

APIs and their documented contracts (Keras 3):

* ``Model.compile(loss=..., metrics=..., loss_weights=...)``: "If the model has multiple
  outputs, you can use a different loss on each output by passing a dictionary or a list of
  losses"; ``loss_weights``: "a list ... expected to have a 1:1 mapping to the model's
  outputs" or a dict.  For a model whose outputs are a dict, the keys are the keys of that
  dict, not the names of the layers that produce them (Keras 2 keyed by layer names).
* ``Model.fit(class_weight=...)``: "Optional dictionary mapping class indices (integers) to a
  weight"; Keras 3 raises for any model with more than one output, also for one dict per
  output; the workaround is a ``sample_weight`` per output built from the class weights.
* ``keras.models.load_model(filepath, custom_objects=None)``: "custom_objects: Optional
  dictionary mapping names (strings) to custom classes or functions to be considered during
  deserialization"; the name is the one the object was saved under (a function's
  ``__name__``, a class's name) unless it is registered with
  ``@keras.saving.register_keras_serializable()``.  Custom layers are rebuilt with
  ``cls.from_config(layer.get_config())``, i.e. ``cls(**config)``: ``get_config`` must return
  every constructor argument under its parameter name.  Custom metrics in a compiled model are
  rebuilt when the model is compiled on load.
* ``keras.callbacks.ModelCheckpoint(filepath, save_weights_only=False)``: saves the whole
  model (``.keras``, or legacy ``.h5``) unless ``save_weights_only=True``, in which case
  "the filepath name needs to end with ``.weights.h5``"; ``Model.load_weights`` reads a
  ``.weights.h5`` file written by ``save_weights``.
* ``compile(jit_compile=True)``: the train step (model, loss and metrics) is compiled with
  XLA, which needs every op to have an XLA kernel and every shape argument to be a
  compile-time constant.

Evidence a diagnosis needs: the model's output names (the layer names and, for dict outputs,
the keys), the keys or lengths given to ``loss``/``metrics``/``loss_weights``/
``class_weight``, the path given and the flags of the callback that wrote it, the custom
classes and functions involved with the names they were saved under and the keys given to
``custom_objects``, the ``__init__`` parameters against the ``get_config`` keys, and the op
that XLA could not compile with where it came from (model, loss or metric).
"""

from __future__ import annotations

from tests.explain_corpus import Case

_FAMILY = "compile_saving"

_TWO_HEADS = """
inp = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu")(inp)
price = keras.layers.Dense(1, name="regressor")(h)
category = keras.layers.Dense(3, activation="softmax", name="classifier")(h)
x = np.random.rand(16, 8).astype("float32")
"""

CASES = [
    # KeyError: "The path: ('regressor',) in the `loss` argument, can't be found in either the
    # model's output (`y_pred`) or in the labels (`y_true`)."
    Case(
        name="loss_dict_keyed_by_head_layer_names_of_dict_outputs",
        family=_FAMILY,
        code=_TWO_HEADS
        + """
model = keras.Model(inp, {"price": price, "category": category})
model.compile("adam", loss={"regressor": "mse", "classifier": "sparse_categorical_crossentropy"})
y = {"price": np.random.rand(16, 1), "category": np.random.randint(0, 3, (16,))}
model.fit(x, y, verbose=0)
""",
        expect="S12",
        must=("category",),
        must_not=("rename the layer",),
        fix="key the loss dict by the output keys 'price' and 'category'",
    ),
    # ValueError: dictionary key mismatch; expected key(s): ['category', 'price'], got key(s):
    # ['classifier', 'regressor'], missing key(s): ... | Invalid `metrics`. ...
    Case(
        name="metrics_dict_keyed_by_head_layer_names_of_dict_outputs",
        family=_FAMILY,
        code=_TWO_HEADS
        + """
model = keras.Model(inp, {"price": price, "category": category})
model.compile(
    "adam",
    loss={"price": "mse", "category": "sparse_categorical_crossentropy"},
    metrics={"regressor": ["mae"], "classifier": ["accuracy"]},
)
y = {"price": np.random.rand(16, 1), "category": np.random.randint(0, 3, (16,))}
model.fit(x, y, verbose=0)
""",
        expect=None,
        unexplained=(
            "the message lists the expected keys ['category', 'price'] against the keys given "
            "['classifier', 'regressor']"
        ),
        fix="metrics={'price': [...], 'category': [...]}",
    ),
    # ValueError: `loss_weights` must match the number of losses, got 2 losses and 3 weights.
    Case(
        name="loss_weights_list_longer_than_the_losses",
        family=_FAMILY,
        code=_TWO_HEADS
        + """
model = keras.Model(inp, [price, category])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"],
              loss_weights=[1.0, 0.5, 0.5])
model.fit(x, [np.random.rand(16, 1), np.random.randint(0, 3, (16,))], verbose=0)
""",
        expect=None,
        unexplained=(
            "the message says loss_weights must match the number of losses and gives both "
            "counts (2 losses and 3 weights)"
        ),
        fix="one weight per output: loss_weights=[1.0, 0.5]",
    ),
    # KeyError: "The path: (2,) in the `loss` argument, can't be found in either the model's
    # output (`y_pred`) or in the labels (`y_true`)."
    Case(
        name="loss_list_kept_for_a_removed_third_head",
        family=_FAMILY,
        code=_TWO_HEADS
        + """
model = keras.Model(inp, [price, category])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy", "binary_crossentropy"])
model.fit(x, [np.random.rand(16, 1), np.random.randint(0, 3, (16,))], verbose=0)
""",
        expect="S12",
        must=("classifier",),
        must_not=("third label",),
        fix="one loss per output: loss=['mse', 'sparse_categorical_crossentropy']",
    ),
    # ValueError: `class_weight` is only supported for Models with a single output.
    Case(
        name="class_weight_given_one_dict_per_output_name",
        family=_FAMILY,
        code="""
inp = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu")(inp)
species = keras.layers.Dense(2, activation="softmax", name="species")(h)
size = keras.layers.Dense(3, activation="softmax", name="size")(h)
model = keras.Model(inp, {"species": species, "size": size})
model.compile("adam", loss="sparse_categorical_crossentropy")
x = np.random.rand(16, 8).astype("float32")
y = {"species": np.random.randint(0, 2, (16,)), "size": np.random.randint(0, 3, (16,))}
model.fit(x, y, class_weight={"species": {0: 1.0, 1: 3.0}, "size": {0: 1.0, 1: 1.0, 2: 2.0}},
          verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        fix="sample_weight={'species': w1[y1], 'size': w2[y2]} instead of class_weight",
    ),
    # TypeError: Could not locate function 'focal'. Make sure custom classes and functions are
    # decorated with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="custom_objects_key_differs_from_the_saved_function_name",
        family=_FAMILY,
        code="""
import os
import tempfile


def focal(y_true, y_pred):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    return bce * (1.0 - keras.ops.exp(-bce)) ** 2


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", loss=focal)
model.fit(np.random.rand(8, 4), np.random.randint(0, 2, (8, 1)), verbose=0)
path = os.path.join(tempfile.mkdtemp(), "clf.keras")
model.save(path)
restored = keras.models.load_model(path, custom_objects={"focal_loss": focal})
""",
        expect="C05",
        must=("focal_loss",),
        fix="custom_objects={'focal': focal} (the function's own name)",
    ),
    # TypeError: Could not locate class 'F1'. Make sure custom classes and functions are
    # decorated with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="f1_metric_subclass_loaded_without_custom_objects",
        family=_FAMILY,
        code="""
import os
import tempfile


class F1(keras.metrics.Metric):
    def __init__(self, name="f1", **kwargs):
        super().__init__(name=name, **kwargs)
        self.precision = keras.metrics.Precision()
        self.recall = keras.metrics.Recall()

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.precision.update_state(y_true, y_pred)
        self.recall.update_state(y_true, y_pred)

    def result(self):
        p, r = self.precision.result(), self.recall.result()
        return 2 * p * r / (p + r + 1e-7)

    def reset_state(self):
        self.precision.reset_state()
        self.recall.reset_state()


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[F1()])
model.fit(np.random.rand(8, 4), np.random.randint(0, 2, (8, 1)), verbose=0)
path = os.path.join(tempfile.mkdtemp(), "clf.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("metric",),
        fix="load_model(path, custom_objects={'F1': F1}) or register F1",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized
    # properly. Please ensure that components that are Python object instances (...) returned by
    # `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (innermost: Scale.__init__() missing 1 required positional argument: 'factor')
    Case(
        name="get_config_saves_the_factor_under_another_key",
        family=_FAMILY,
        code="""
import os
import tempfile


class Scale(keras.layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "scale_factor": self.factor}


model = keras.Sequential([keras.Input((4,)), Scale(2.0), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "scaled.keras")
model.save(path)
restored = keras.models.load_model(path, custom_objects={"Scale": Scale})
""",
        expect="C05",
        must=("scale_factor",),
        must_not=("from_config",),
        fix="get_config returns {'factor': self.factor} (the __init__ parameter's name)",
    ),
    # ValueError: A total of 2 objects could not be loaded. Example error message for object
    # <Dense name=dense_2, built=True>: Layer 'dense_2' expected 2 variables, but received 0
    # variables during loading. Expected: ['kernel', 'bias']
    Case(
        name="checkpoint_named_weights_h5_without_save_weights_only",
        family=_FAMILY,
        code="""
import os
import tempfile


def build():
    return keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    )


path = os.path.join(tempfile.mkdtemp(), "best.weights.h5")
checkpoint = keras.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True)
model = build()
model.compile("adam", "mse")
model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=2, callbacks=[checkpoint],
          verbose=0)
fresh = build()
fresh.load_weights(path)
""",
        expect="C04",
        must=("save_weights_only",),
        must_not=("skip_mismatch",),
        fix="ModelCheckpoint(..., save_weights_only=True) (or load_model the file)",
    ),
    # InvalidArgumentError: Graph execution error: Detected at node bincount/DenseBincount ...
    # Input 1 to node `bincount/DenseBincount` with op DenseBincount must be a compile-time
    # constant.
    Case(
        name="jit_compile_with_a_bincount_metric",
        family=_FAMILY,
        code="""
def predicted_positives(y_true, y_pred):
    counts = tf.math.bincount(tf.cast(y_pred[:, 0] > 0.5, tf.int32), minlength=2)
    return tf.cast(counts[1], tf.float32)


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[predicted_positives], jit_compile=True)
model.fit(np.random.rand(16, 4), np.random.randint(0, 2, (16, 1)), verbose=0)
""",
        expect="T02",
        must=("jit_compile",),
        must_not=("set_shape", "ensure_shape"),
        fix="jit_compile=False, or count with tf.reduce_sum(tf.cast(y_pred > 0.5, 'float32'))",
    ),
]
