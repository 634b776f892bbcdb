"""Family: code written for ``tf.keras`` 2.x run on Keras 3.

The APIs and their documented contract (Keras 3 and the "Migrating Keras 2 code to
multi-backend Keras 3" guide):

- Saving: ``model.save(path)`` takes a ``.keras`` (native) or ``.h5`` (legacy) path; the
  TF SavedModel directory format of Keras 2 is gone (``model.export(path)`` writes one
  for serving, ``keras.layers.TFSMLayer`` reloads one for inference); ``save_format=`` is
  removed; ``save_weights`` needs ``.weights.h5``; ``ModelCheckpoint`` needs ``.keras``
  (or ``.weights.h5`` with ``save_weights_only=True``).  ``load_model`` of a ``Lambda``
  with a Python lambda needs ``safe_mode=False``.
- Custom layers are rebuilt from ``get_config()`` with ``cls(**config)``: the config
  holds the base arguments (``name``, ``trainable``, ``dtype``) besides the layer's own,
  so ``__init__`` must accept ``**kwargs`` and pass them to ``super().__init__``, and
  ``get_config`` must return every constructor argument.
- Removed arguments and methods: ``lr=`` (now ``learning_rate=``), ``fit_generator``/
  ``predict_classes``/``optimizer.minimize``/``Layer.add_update``, ``fit(workers=...)``,
  ``Embedding(input_length=...)`` (accepted with a warning and ignored: it no longer builds
  the model), ``keras.layers.experimental.preprocessing`` (now ``keras.layers``).
  ``input_shape=``/``input_dim=`` on a first layer still work (with a warning) but
  ``keras.Input(shape=...)`` is the documented way.
- Model inputs: a ``Sequential`` without an ``Input`` (or ``input_shape``) has no
  ``model.input``/``model.output`` in Keras 3, not even after ``fit`` built its weights
  (Keras 2 defined them on the first call); feature extractors
  ``keras.Model(model.input, model.layers[i].output)`` need ``keras.Input(shape=...)``.
- ``keras.backend`` holds only a few utilities (``epsilon``, ``floatx``, ...); the legacy
  ``tf.keras.backend`` functions (``K.sum``, ``K.gradients``) are TensorFlow ops: a
  ``KerasTensor`` (the symbolic input of a Functional model) cannot go into a TensorFlow
  op or a NumPy function -- only into Keras layers and ``keras.ops``; ``tf.gradients``
  needs graph mode (use ``tf.GradientTape``).
- Data: Keras 3 converts NumPy arrays by dtype and rejects ``object`` (and NumPy unicode)
  arrays, so string features (``dtype="string"`` inputs) go in as ``tf.constant(...)`` or
  a ``tf.data.Dataset``, where tf.keras 2 took the NumPy array.

The evidence a diagnosis needs: which Keras 2 idiom is in the cell (the argument, method
or path), what Keras 3 does with it (ignored, removed, renamed), and the Keras 3 form of
the same thing; for a failure further on, the link between the idiom and the failure (an
ignored ``input_length`` leaves the model unbuilt).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras2_code_on_keras3"

CASES = [
    # AttributeError: The layer sequential has never been called and thus has no defined input.
    Case(
        name="f31_embedding_input_length_no_model_input",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.layers.Embedding(input_dim=50, output_dim=8, input_length=6),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
embedder = keras.Model(inputs=model.input, outputs=model.layers[0].output)
""",
        expect="S04",
        must=("input_length",),
        must_not=("fit the model first", "call the model on"),
        fix="start the model with keras.Input(shape=(6,), dtype='int32') instead of input_length",
    ),
    # AttributeError: The layer sequential_1 has never been called and thus has no defined input.
    Case(
        name="f31_sequential_fit_then_model_input_for_extractor",
        family=FAMILY,
        code="""
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model = keras.Sequential([
    keras.layers.Dense(8, activation="relu", name="hidden"),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, verbose=0)
features = keras.Model(model.input, model.get_layer("hidden").output)
""",
        expect="S04",
        must=("input(",),
        must_not=("fit the model first", "call the model on"),
        fix="keras.Input(shape=(4,)) as the first entry of the Sequential",
    ),
    # ValueError: Invalid dtype: object
    Case(
        name="f31_object_string_array_into_string_input",
        family=FAMILY,
        code="""
inputs = keras.Input(shape=(1,), dtype="string")
lookup = keras.layers.StringLookup(vocabulary=["cat", "dog", "bird"], output_mode="one_hot")
outputs = keras.layers.Dense(1, activation="sigmoid")(lookup(inputs))
model = keras.Model(inputs, outputs)
animals = np.array([["cat"], ["dog"], ["fish"]], dtype=object)
print(model.predict(animals, verbose=0))
""",
        expect="S11",
        must=("object",),
        must_not=("float32",),
        fix="model.predict(tf.constant(animals)) (or a tf.data.Dataset of strings)",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    Case(
        name="f31_lambda_numpy_clip_on_keras_tensor",
        family=FAMILY,
        code="""
inputs = keras.Input(shape=(4,))
h = keras.layers.Dense(4)(inputs)
h = keras.layers.Lambda(lambda t: np.clip(t, 0.0, 6.0))(h)
model = keras.Model(inputs, keras.layers.Dense(1)(h))
""",
        expect="T02",
        must=("clip",),
        must_not=("output_shape",),
        fix="keras.ops.clip(t, 0.0, 6.0) (or keras.layers.ReLU(max_value=6.0))",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f31_custom_layer_init_without_kwargs_reload",
        family=FAMILY,
        code="""
import os, tempfile

class Scale(keras.layers.Layer):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def call(self, x):
        return x * self.factor

model = keras.Sequential([keras.Input(shape=(4,)), Scale(2.0), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "scaled.keras")
model.save(path)
restored = keras.models.load_model(path, custom_objects={"Scale": Scale})
""",
        expect="C05",
        must=("kwargs",),
        must_not=("custom_objects={",),
        fix="def __init__(self, factor, **kwargs): super().__init__(**kwargs) (+ get_config with factor)",
    ),
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use with TFLite/TFServing/etc. Received: filepath=/tmp/.../my_model.
    Case(
        name="f31_model_save_savedmodel_directory_path",
        family=FAMILY,
        code="""
import os, tempfile
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
export_dir = os.path.join(tempfile.mkdtemp(), "my_model")
model.save(export_dir)
""",
        expect=None,
        unexplained=(
            "Keras 3 says the path needs a .keras (or .h5) extension and that "
            "model.export(filepath) writes a SavedModel: both fixes are in the message."
        ),
        fix="model.save(export_dir + '.keras') or model.export(export_dir)",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras Functional models or Keras Functions. You can only use it as input to a Keras layer or a Keras operation (from the namespaces `keras.layers` and `keras.ops`). You are likely doing something like:
    Case(
        name="f31_tf_keras_backend_sum_on_functional_input",
        family=FAMILY,
        code="""
from tensorflow.keras import backend as K
tokens = keras.Input(shape=(5, 8))
pooled = K.sum(tokens, axis=1)
model = keras.Model(tokens, keras.layers.Dense(1)(pooled))
""",
        expect=None,
        unexplained=(
            "Keras 3 explains that a KerasTensor only goes into Keras layers and keras.ops "
            "and shows the wrapping in a layer: the message names the fix."
        ),
        fix="keras.ops.sum(tokens, axis=1)",
    ),
    # ValueError: The filepath provided must end in `.keras` (Keras model format). Received: filepath=/tmp/.../weights.{epoch:02d}.hdf5
    Case(
        name="f31_modelcheckpoint_hdf5_filepath",
        family=FAMILY,
        code="""
import os, tempfile
ckpt_dir = tempfile.mkdtemp()
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
checkpoint = keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "weights.{epoch:02d}.hdf5"))
model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0, callbacks=[checkpoint])
""",
        expect=None,
        unexplained=(
            "Keras 3 says the checkpoint path must end in .keras and shows the path it got: "
            "the fix is in the message."
        ),
        fix="ModelCheckpoint('weights.{epoch:02d}.keras')",
    ),
]
