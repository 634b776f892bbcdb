"""Family: code written for ``tf.keras`` 2.x, run on Keras 3.

The APIs and their documented contract (Keras 3 as installed, with TensorFlow 2.21):

- ``tf.keras`` resolves to Keras 3 here (``tf.keras.__name__ == "keras._tf_keras.keras"``,
  ``tf.keras.layers.Dense is keras.layers.Dense``), so mixing ``tf.keras.layers.*`` and
  ``keras.layers.*`` objects in one model works; what breaks is the API Keras 3 removed:
  ``tf.keras.optimizers.legacy``, ``keras.layers.experimental``, ``Model.fit_generator`` /
  ``predict_classes``, ``optimizer.get_updates``/``.lr``, ``Layer.add_update``, most of
  ``keras.backend`` (its math moved to ``keras.ops``), the ``lr=`` argument (now
  ``learning_rate=``), ``fit(workers=...)``.
- Saving: ``Model.save(filepath)`` needs a ``.keras`` (native) or ``.h5`` (legacy) suffix;
  a SavedModel directory is written with ``model.export``; ``save_weights`` needs
  ``.weights.h5``.  ``keras.models.load_model`` must be able to rebuild every custom object:
  a custom loss, metric or layer is found only if registered
  (``@keras.saving.register_keras_serializable()``) or passed in ``custom_objects={...}``
  (or the model is loaded with ``compile=False``); from a legacy ``.h5`` file an unknown
  custom loss function does not say so, it fails deep inside the deserialization of the
  compile config.
- Custom layers: ``Layer.add_weight(shape=None, initializer=None, dtype=None,
  trainable=True, ..., name=None)``: the first positional argument is the SHAPE (Keras 2 code
  passed the name first); ``build(input_shape)`` receives a tuple, not a ``TensorShape``.
- Functional API: a ``KerasTensor`` (the output of ``keras.Input`` or of a layer in a
  functional graph) cannot go through a TensorFlow function (``tf.one_hot``, ``tf.concat``):
  Keras 2 wrapped such calls in ``TFOpLambda`` layers; Keras 3 wants a layer or ``keras.ops``.
- ``keras.Sequential`` takes its input shape from a leading ``keras.Input`` (or, deprecated,
  ``input_shape=`` on its FIRST layer only); ``input_shape=`` given to a later layer, and
  ``Embedding(input_length=...)`` (removed), are ignored, so the model stays unbuilt until it
  sees data: ``count_params()``, ``output_shape``, weights are not available before.
- ``compile(loss=, metrics=, loss_weights=)`` of a multi-output model: every argument must
  match the structure of the outputs (a list with one entry per output, or a dict keyed by
  output name); Keras 2 broadcast a flat ``metrics=["accuracy"]`` list to every output,
  Keras 3 raises.  ``fit``'s ``y`` must have the same structure as what the losses need:
  a loss dict with ``None`` for an output that has no target, combined with a single ``y``
  array for a model with a list of outputs, does not resolve.

The evidence a diagnosis needs to name the cause: which Keras 2 argument, method or habit
(``input_shape`` on a non-first layer, ``input_length``, a flat metric list, a ``None`` loss
entry, a custom function in the compile config of a saved file) meets which Keras 3
contract, the names involved (the layer, the output, the custom function), and the Keras 3
spelling of the fix.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras2_to_keras3_migration"

CASES = [
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use with TFLite/TFServing/etc. Received: filepath=/tmp/.../saved_model.
    Case(
        name="f27_model_save_to_savedmodel_directory_path",
        family=FAMILY,
        code="""
import os, tempfile
model = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)]
)
model.compile(optimizer="adam", loss="mse")
export_dir = os.path.join(tempfile.mkdtemp(), "saved_model")
model.save(export_dir)
""",
        expect=None,
        unexplained="the message names both accepted suffixes (.keras, .h5) and "
        "model.export for a SavedModel",
        fix="model.save('model.keras') or model.export(dir)",
    ),
    # ValueError: `name` must be passed as a keyword argument. Received: add_weight('gamma', ...). Use: add_weight(shape=..., name='gamma').
    Case(
        name="f27_add_weight_name_passed_first_positionally",
        family=FAMILY,
        code="""
class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.gamma = self.add_weight("gamma", shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.gamma

model = keras.Sequential([keras.Input((4,)), Scale(), keras.layers.Dense(1)])
""",
        expect=None,
        unexplained="the message shows the Keras 3 call to write: "
        "add_weight(shape=..., name='gamma')",
        fix="add_weight(shape=..., name='gamma')",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras Functional models or Keras Functions. You can only use it as input to a Keras layer or a Keras operation (from the namespaces `keras.layers` and `keras.ops`). You are likely doing something like:
    Case(
        name="f27_tf_one_hot_applied_to_keras_input",
        family=FAMILY,
        code="""
tokens = keras.Input((10,), dtype="int32")
x = tf.one_hot(tokens, depth=50)
x = keras.layers.Flatten()(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(tokens, outputs)
""",
        expect=None,
        unexplained="the message explains that a KerasTensor only goes into Keras layers or "
        "keras.ops and shows how to wrap the TensorFlow call in a layer",
        fix="keras.ops.one_hot or a layer around tf.one_hot",
    ),
    # TypeError: string indices must be integers, not 'str'
    Case(
        name="f27_h5_reload_with_unregistered_loss_function",
        family=FAMILY,
        code="""
import os, tempfile
def weighted_mse(y_true, y_pred):
    return tf.reduce_mean(2.0 * tf.square(y_true - y_pred))

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "model.h5")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("weighted_mse",),
        must_not=("labels",),
        fix="load_model(path, custom_objects={'weighted_mse': weighted_mse})",
    ),
    # AttributeError: Sequential model 'sequential_8' has no defined output shape yet.
    Case(
        name="f27_input_shape_given_to_second_sequential_layer",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.layers.Flatten(),
    keras.layers.Dense(64, activation="relu", input_shape=(28, 28)),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
print(model.output_shape)
""",
        expect="S04",
        must=("28, 28",),
        must_not=("input_dim",),
        fix="start with keras.Input(shape=(28, 28))",
    ),
    # ValueError: You tried to call `count_params` on layer 'sequential_9', but the layer isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        name="f27_embedding_input_length_no_longer_builds_model",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.layers.Embedding(input_dim=5000, output_dim=32, input_length=100),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
print("parameters:", model.count_params())
""",
        expect="S04",
        must=("input_length",),
        must_not=("input_dim",),
        fix="keras.Input(shape=(100,)) as the first layer",
    ),
    # ValueError: tuple arity mismatch; expected: 2, got: 1; tuple: ('accuracy',).
    Case(
        name="f27_flat_metrics_list_for_two_output_model",
        family=FAMILY,
        code="""
inputs = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inputs)
price = keras.layers.Dense(1, name="price")(h)
kind = keras.layers.Dense(3, activation="softmax", name="kind")(h)
model = keras.Model(inputs, [price, kind])
model.compile(
    optimizer="adam",
    loss=["mse", "sparse_categorical_crossentropy"],
    metrics=["accuracy"],
)
x = np.random.rand(32, 6).astype("float32")
model.fit(x, [np.random.rand(32, 1), np.random.randint(0, 3, 32)], epochs=1, verbose=0)
""",
        expect="S12",
        must=("metrics",),
        must_not=("reshape",),
        fix="metrics={'kind': ['accuracy']} (one entry per output)",
    ),
    # KeyError: "The path: (0,) in the `loss` argument, can't be found in either the model's output (`y_pred`) or in the labels (`y_true`)."
    Case(
        name="f27_loss_dict_none_for_untrained_aux_output",
        family=FAMILY,
        code="""
inputs = keras.Input((4,))
h = keras.layers.Dense(8, activation="relu")(inputs)
price = keras.layers.Dense(1, name="price")(h)
aux = keras.layers.Dense(3, name="aux")(h)
model = keras.Model(inputs, [price, aux])
model.compile(optimizer="adam", loss={"price": "mse", "aux": None})
model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        expect="S12",
        must=("aux",),
        must_not=("expand_dims",),
        fix="loss=['mse', None] (a list in output order) or dict outputs and dict y",
    ),
]
