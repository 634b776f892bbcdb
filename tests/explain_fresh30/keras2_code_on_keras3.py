"""Keras 2 (``tf.keras`` 2.x) code run on Keras 3: what changed under the same names.

The family
----------
TensorFlow 2.16+ ships Keras 3 as ``tf.keras``; code written for Keras 2 meets:

* Models without an input: Keras 2 built a ``Sequential`` from ``input_shape=``/``input_dim=``/
  ``input_length=`` on its first layer, or on the first ``fit``.  Keras 3 still accepts
  ``input_shape=`` (with a warning) but ignores ``Embedding(input_length=...)`` ("Argument
  `input_length` is deprecated. Just remove it."); a ``Sequential`` without
  ``keras.Input(shape=...)`` is built lazily by ``fit`` and never gets a symbolic
  ``model.input``/``layer.output``, so the Keras 2 feature-extractor idiom
  ``keras.Model(model.input, model.get_layer(...).output)`` fails ("has never been called
  and thus has no defined input"); ``count_params``/``summary`` see an unbuilt model.
  The documented fix: start the model with ``keras.Input(shape=...)``.
* Weights of subclassed models: Keras 3 ``load_weights`` needs a built model (Keras 2 TF
  checkpoints restored lazily); ``save_weights`` paths end in ``.weights.h5``.
* Saving: ``model.save(path)`` takes ``.keras`` (native) or ``.h5``; a directory path
  (Keras 2's SavedModel) raises and points to ``model.export``; ``save_format=`` is
  removed; ``ModelCheckpoint(save_weights_only=True)`` needs ``.weights.h5``.
* Serialization: Keras 3 rebuilds a layer as ``cls(**get_config())``; a Keras 2
  ``get_config`` that omits a constructor argument (SavedModel loading never called it)
  now breaks ``load_model``.  Custom classes and functions are found by
  ``custom_objects=`` or ``@keras.saving.register_keras_serializable()``; a legacy ``.h5``
  file whose compile config names a custom loss function is recompiled on load
  (``compile=True`` by default) and, without ``custom_objects``, fails inside the legacy
  loader with a message that does not name the function.
* Functional API: a ``KerasTensor`` cannot go through a raw TensorFlow op (``tf.concat``,
  ``tf.expand_dims``) as in Keras 2; use ``keras.layers``/``keras.ops`` or wrap the op in a
  layer.  Default input names changed (Keras 2 ``input_1``, ``input_2``; Keras 3
  ``input_layer``, ``input_layer_1``, ...): a data dict keyed by the Keras 2 names misses.
* Removed/renamed: optimizer ``lr=`` (now ``learning_rate``), ``decay=`` (ignored; use a
  ``LearningRateSchedule``), ``fit_generator``/``predict_classes``, ``keras.backend``
  functions (``K.function``, ``set_value``), ``Layer.add_update``,
  ``layers.experimental.preprocessing`` (now ``keras.layers``), ``keras.utils.Sequence``
  is ``PyDataset`` (``workers=`` moved from ``fit`` to the dataset), ``tf.compat.v1``
  placeholders and sessions do not exist in eager Keras 3 code.

Evidence a diagnosis needs
--------------------------
Which Keras 2 idiom the cell used (the argument, the path, the missing ``Input``, the
``get_config`` and the constructor it must feed, the dict keys against the model's input
names) and what Keras 3 wants instead; where Keras' own message already states the Keras 3
form, nothing needs to be added.
"""

from tests.explain_corpus import Case

FAMILY = "keras2_code_on_keras3"

CASES = [
    # AttributeError: The layer sequential has never been called and thus has no defined input.
    Case(
        name="f30_k2_feature_extractor_from_sequential_without_input",
        family=FAMILY,
        code="""
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 2, 32)
model = keras.Sequential([
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(8, activation="relu", name="embedding"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
extractor = keras.Model(inputs=model.input, outputs=model.get_layer("embedding").output)
""",
        expect="S04",
        must=("input(shape",),
        must_not=("fit the model", "train the model first"),
        fix="start the Sequential with keras.Input(shape=(4,))",
    ),
    # ValueError: You tried to call `count_params` on layer 'sequential', but the layer isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        name="f30_k2_embedding_input_length_no_longer_builds",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.layers.Embedding(1000, 8, input_length=10),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
print("parameters:", model.count_params())
""",
        expect="S04",
        must=("input_length",),
        must_not=("input_dim",),
        fix="replace input_length=10 with keras.Input(shape=(10,)) as the first layer",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f30_k2_get_config_omits_units_on_keras_load",
        family=FAMILY,
        code="""
class ScaledDense(keras.layers.Layer):
    def __init__(self, units, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.units, self.scale = units, scale
        self.dense = keras.layers.Dense(units)
    def call(self, x):
        return self.dense(x) * self.scale
    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config
inputs = keras.Input(shape=(4,))
model = keras.Model(inputs, ScaledDense(3, scale=0.5)(inputs))
model.save("/tmp/f30_scaled_dense.keras")
restored = keras.models.load_model("/tmp/f30_scaled_dense.keras", custom_objects={"ScaledDense": ScaledDense})
""",
        expect="C05",
        must=("units",),
        must_not=("custom_objects",),
        fix="add 'units': self.units to get_config",
    ),
    # ValueError: Missing data for input "input_layer". You passed a data dictionary with keys ['input_1', 'input_2']. Expected the following keys: ['input_layer', 'input_layer_1']
    Case(
        name="f30_k2_default_input_names_in_data_dict",
        family=FAMILY,
        code="""
a = keras.Input(shape=(3,))
b = keras.Input(shape=(2,))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
model = keras.Model([a, b], out)
model.compile(optimizer="adam", loss="mse")
model.fit({"input_1": np.random.rand(8, 3), "input_2": np.random.rand(8, 2)}, np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="S12",
        must=("name=",),
        must_not=("samples",),
        fix="name the inputs: keras.Input(shape=(3,), name='input_1'), ... (or pass a list)",
    ),
    # ValueError: You are loading weights into a model that has not yet been built. Try building the model first by calling it on some data or by using `build()`.
    Case(
        name="f30_k2_load_weights_into_unbuilt_subclassed_model",
        family=FAMILY,
        code="""
class Regressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(8, activation="relu")
        self.head = keras.layers.Dense(1)
    def call(self, x):
        return self.head(self.hidden(x))
trained = Regressor()
trained(np.zeros((1, 4), dtype="float32"))
trained.save_weights("/tmp/f30_regressor.weights.h5")
restored = Regressor()
restored.load_weights("/tmp/f30_regressor.weights.h5")
""",
        expect=None,
        must_not=("custom_objects", "extension"),
        unexplained="Keras' message says the model is not built and how to build it (call it on "
        "some data or use build()) before load_weights.",
        fix="restored(np.zeros((1, 4))) or restored.build((None, 4)) before load_weights",
    ),
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use with TFLite/TFServing/etc. Received: filepath=/tmp/f30_export/my_model.
    Case(
        name="f30_k2_model_save_to_savedmodel_directory",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
model.save("/tmp/f30_export/my_model")
""",
        expect=None,
        must_not=("custom_objects", "get_config"),
        unexplained="Keras' message names both accepted extensions (.keras, .h5) and "
        "model.export for a SavedModel.",
        fix="model.save('my_model.keras') or model.export('my_model')",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras Functional models or Keras Functions. You can only use it as input to a Keras layer or a Keras operation (from the namespaces `keras.layers` and `keras.ops`). You are likely doing something like:
    Case(
        name="f30_k2_tf_concat_on_functional_keras_tensors",
        family=FAMILY,
        code="""
left = keras.Input(shape=(8,), name="left")
right = keras.Input(shape=(8,), name="right")
merged = tf.concat([left, right], axis=-1)
out = keras.layers.Dense(1)(merged)
model = keras.Model([left, right], out)
""",
        expect=None,
        must_not=("run_eagerly", "tf.function"),
        unexplained="Keras' message says a KerasTensor only goes into keras.layers / keras.ops "
        "and shows how to wrap the TensorFlow call in a layer.",
        fix="keras.layers.Concatenate()([left, right]) or keras.ops.concatenate",
    ),
    # TypeError: string indices must be integers, not 'str'
    Case(
        name="f30_k2_h5_reload_with_custom_loss_function",
        family=FAMILY,
        code="""
def weighted_mse(y_true, y_pred):
    return tf.reduce_mean(3.0 * tf.square(y_true - y_pred), axis=-1)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
model.save("/tmp/f30_weighted_mse.h5")
restored = keras.models.load_model("/tmp/f30_weighted_mse.h5")
""",
        expect="C05",
        must=("weighted_mse",),
        must_not=("astype",),
        fix="load_model(path, custom_objects={'weighted_mse': weighted_mse}) or compile=False",
    ),
]
