"""Family: code written for ``tf.keras`` 2.x, run on Keras 3 (``keras`` 3.x; ``tf.keras`` is
the same Keras 3 when ``tf_keras`` is not installed).

The APIs and their documented contract in Keras 3 (and what changed from Keras 2):

* Building: a ``Sequential`` model knows its input only from a ``keras.Input(shape)`` first
  entry (or an ``input_shape=`` on the FIRST layer, accepted with a warning).
  ``Embedding(input_length=...)`` is deprecated and ignored ("Just remove it"), and an
  ``input_shape=`` on any later layer is ignored.  Such a model stays unbuilt until it is
  called on data: ``count_params()``, ``summary()`` sizes, ``model.inputs``/``model.input``
  and any ``keras.Model(model.inputs, ...)`` feature extractor fail ("isn't built", "has no
  defined inputs yet").  ``input_dim=``/``batch_input_shape=`` are no longer layer arguments.
* Data: ``fit``/``evaluate``/``predict`` accept NumPy arrays, tensors, ``tf.data`` datasets,
  ``keras.utils.PyDataset`` (``keras.utils.Sequence`` is an alias) and generators; a Python
  list is read as a STRUCTURE (one entry per model input), not as an array.  Keras 2's
  conversion of lists of scalars (``ListsOfScalarsDataAdapter``) is gone: ``fit(x, [0, 1,
  ...])`` fails with "Unrecognized data type" (naming ``x``, not the list), and a
  ``PyDataset.__getitem__`` that returns ``y`` as a list of scalars yields rank-0 pieces ("the
  arrays must be at least rank 1").  Generators must yield tuples ``(x, y[, w])``.
  ``PyDataset`` subclasses call ``super().__init__(**kwargs)`` (``workers``,
  ``use_multiprocessing``, ``max_queue_size`` moved there from ``fit``).
* Symbolic tensors: a ``KerasTensor`` (a Functional model's placeholder) can only go through
  Keras layers and ``keras.ops``; passing it to a ``tf.*`` function raises a ValueError that
  says so.
* Optimizers: ``learning_rate=`` (not ``lr=``), no ``get_updates``, no ``decay`` (ignored
  with a warning); ``keras.optimizers.legacy`` raises ImportError naming ``tf_keras``.
  ``keras.backend`` keeps only a few utilities (``epsilon``, ``floatx``, ``clear_session``,
  ...): math moved to ``keras.ops``.  ``Layer.add_update`` is gone (assign the variable).
* Saving: ``model.save(path)`` needs a ``.keras`` (or legacy ``.h5``) extension;
  SavedModel export is ``model.export``; ``load_model`` reads only ``.keras``/``.h5``.
  Loading a ``.keras`` file rebuilds each layer as ``cls.from_config(layer.get_config())``:
  a custom layer whose ``__init__`` takes arguments must return them from ``get_config``
  (Keras 2's SavedModel did not need it).  Both ``.keras`` and legacy ``.h5`` loading find a
  custom class only when it is registered (``@keras.saving.register_keras_serializable()``)
  or passed in ``custom_objects``; the ``.h5`` loader looks classes up by name only, so a
  class defined in the same notebook is still "Unknown layer".

Evidence a diagnosis needs: the Keras 2 argument or API in the cell (``input_length``,
``input_shape`` on a non-first layer, ``lr``, ``Sequence`` returning lists) and what Keras 3
does with it (ignored, removed, read as a structure); the Python type of the data that
reached the data adapter (``list`` vs array) and which argument it was; the constructor
custom class a saved file names and how the loader was told about it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras2_to_keras3_migration"

CASES = [
    # AttributeError: Sequential model 'sequential' has no defined inputs yet.
    Case(
        name="f26_embedding_input_length_feature_extractor",
        family=FAMILY,
        code="""
vocab_size, maxlen = 200, 10
model = keras.Sequential([
    keras.layers.Embedding(vocab_size, 16, input_length=maxlen),
    keras.layers.Flatten(name="flat"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
encoder = keras.Model(model.inputs, model.get_layer("flat").output)
""",
        expect="S04",
        must=("input_length",),
        must_not=("input_dim",),
        fix="keras.Input(shape=(maxlen,)) as the first entry; drop input_length",
    ),
    # ValueError: You tried to call `count_params` on layer 'sequential_1', but the layer isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        name="f26_input_shape_given_to_second_layer",
        family=FAMILY,
        code="""
model = keras.Sequential()
model.add(keras.layers.Dense(32, activation="relu"))
model.add(keras.layers.Dense(16, activation="relu", input_shape=(8,)))
model.add(keras.layers.Dense(1))
print("trainable parameters:", model.count_params())
""",
        expect="S04",
        must=("input_shape",),
        must_not=("input_dim",),
        fix="keras.Input(shape=(8,)) first (input_shape on a later layer is ignored)",
    ),
    # ValueError: Unrecognized data type: x=[[0.46 0.39 ...]  (the message names x; y is a Python list)
    Case(
        name="f26_fit_labels_as_python_list",
        family=FAMILY,
        code="""
x = np.random.rand(6, 4).astype("float32")
y = []
for row in x:
    y.append(1 if row.sum() > 2 else 0)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("list",),
        must_not=("reshape",),
        fix="y = np.array(y)",
    ),
    # ValueError: When passing a dataset to a Keras model, the arrays must be at least rank 1. Received: 0 of rank 0.
    Case(
        name="f26_sequence_getitem_returns_label_list",
        family=FAMILY,
        code="""
class Batches(keras.utils.Sequence):
    def __init__(self, x, y, batch_size=4, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
    def __len__(self):
        return len(self.x) // self.batch_size
    def __getitem__(self, i):
        s = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return self.x[s], [int(v) for v in self.y[s]]

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(Batches(np.random.rand(8, 4).astype("float32"), np.array([0, 1] * 4)), verbose=0)
""",
        expect="S12",
        must=("list",),
        must_not=("expand_dims",),
        fix="return np.array(labels) from __getitem__",
    ),
    # ValueError: Unknown layer: 'ScaleLayer'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details.
    Case(
        name="f26_custom_layer_h5_reload_unregistered",
        family=FAMILY,
        code="""
import os, tempfile

class ScaleLayer(keras.layers.Layer):
    def __init__(self, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
    def call(self, x):
        return x * self.factor
    def get_config(self):
        return {**super().get_config(), "factor": self.factor}

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2), ScaleLayer(2.0)])
path = os.path.join(tempfile.mkdtemp(), "scaled_model.h5")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("scalelayer",),
        must_not=("extension",),
        fix="custom_objects={'ScaleLayer': ScaleLayer} or @keras.saving.register_keras_serializable()",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, ...
    Case(
        name="f26_tf_reduce_mean_on_keras_input",
        family=FAMILY,
        code="""
inputs = keras.Input((20, 8))
h = keras.layers.Dense(16, activation="relu")(inputs)
pooled = tf.reduce_mean(h, axis=1)
outputs = keras.layers.Dense(1)(pooled)
model = keras.Model(inputs, outputs)
""",
        expect=None,
        unexplained=(
            "the message says a KerasTensor can only go through Keras layers and keras.ops "
            "(keras.ops.mean or GlobalAveragePooling1D)"
        ),
        must_not=("tf.function",),
        fix="keras.ops.mean(h, axis=1) or GlobalAveragePooling1D",
    ),
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. ...
    Case(
        name="f26_save_to_savedmodel_directory_path",
        family=FAMILY,
        code="""
import os, tempfile
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
export_dir = os.path.join(tempfile.mkdtemp(), "my_model")
model.save(export_dir)
""",
        expect=None,
        unexplained=(
            "the message asks for a .keras (or .h5) extension and names model.export for a "
            "SavedModel"
        ),
        must_not=("custom_objects",),
        fix="model.save('my_model.keras') or model.export(dir)",
    ),
    # ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras` package ...
    Case(
        name="f26_legacy_adam_from_tf_keras",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=1e-3)
model.compile(optimizer=optimizer, loss="mse")
""",
        expect=None,
        unexplained=(
            "the message says keras.optimizers.legacy is gone in Keras 3 and how to keep it "
            "(tf_keras with TF_USE_LEGACY_KERAS) ; keras.optimizers.Adam is the Keras 3 one"
        ),
        must_not=("scope",),
        fix="keras.optimizers.Adam(learning_rate=1e-3)",
    ),
]
