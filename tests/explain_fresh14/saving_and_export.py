"""Family ``saving_and_export``: saving, reloading and exporting Keras models against the formats' contracts.

APIs: ``model.save(path)`` (Keras 3 writes the native ``.keras`` zip or, legacy, ``.h5``;
any other file name is refused, and a SavedModel is written by ``model.export(path)`` or
``tf.saved_model.save``), ``model.save_weights`` / ``load_weights`` (the file name must end
in ``.weights.h5``; loading into a subclassed model needs its variables to exist, i.e. the
model built by a call or ``build``), ``keras.saving.load_model`` (rebuilds every layer from
its ``get_config()``: a custom class must be registered with
``@keras.saving.register_keras_serializable()`` or passed in ``custom_objects``, the same for
a custom loss or metric in the compile config, and ``get_config`` must return every
constructor argument ``__init__`` needs), ``model.export`` (needs a built model: its input
signature comes from the model's inputs) and the reloaded SavedModel's ``serve`` endpoint
(a ``tf.function`` with a fixed input signature, ``(None, features)`` float32: a batch, not
one example).

Evidence a diagnosis needs: the class or function the loader could not find (it is in the
chained exception, under a generic "could not be deserialized properly" message that points
at ``from_config``), whether that class is registered, the constructor arguments of the class
against the keys its ``get_config`` returns, whether the model was built (its input shape),
and, for a served SavedModel, the signature's ``TensorSpec`` against the shape passed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. ...
    Case(
        name="f14_model_save_to_a_path_without_extension",
        family="saving_and_export",
        code="""
import os, tempfile
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.save(os.path.join(tempfile.mkdtemp(), "my_model"))
""",
        expect=None,
        unexplained="the message says to add a .keras (or .h5) extension, or to use model.export for a SavedModel",
        fix='model.save("my_model.keras")',
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. ...
    # (chained: TypeError: Could not locate class 'Swish'. Make sure custom classes ... register_keras_serializable())
    Case(
        name="f14_load_model_custom_swish_layer_in_a_fresh_session",
        family="saving_and_export",
        code="""
import os, tempfile
class Swish(keras.layers.Layer):
    def call(self, x):
        return x * keras.ops.sigmoid(x)
inputs = keras.Input((8,))
x = keras.layers.Dense(16)(inputs)
x = Swish()(x)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
path = os.path.join(tempfile.mkdtemp(), "swish_net.keras")
model.save(path)
del Swish  # as after a kernel restart: the class is gone when the file is loaded
restored = keras.saving.load_model(path)
""",
        expect="C05",
        must=("swish",),
        must_not=("from_config",),
        fix='register Swish with @keras.saving.register_keras_serializable() or custom_objects={"Swish": Swish}',
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. ...
    # (chained: <class 'ScaledDense'> could not be deserialized properly ... __init__() missing 1 required positional argument: 'units')
    Case(
        name="f14_registered_layer_get_config_drops_units",
        family="saving_and_export",
        code="""
import os, tempfile
@keras.saving.register_keras_serializable(package="demo")
class ScaledDense(keras.layers.Layer):
    def __init__(self, units, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.scale = scale
        self.dense = keras.layers.Dense(units)
    def call(self, x):
        return self.dense(x) * self.scale
    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config
model = keras.Sequential([keras.Input((3,)), ScaledDense(4, scale=0.5), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "scaled.keras")
model.save(path)
reloaded = keras.saving.load_model(path)
""",
        expect="C05",
        must=("units",),
        must_not=("custom_objects",),
        fix='add "units": self.units to get_config',
    ),
    # TypeError: Could not locate function 'weighted_mse'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="f14_load_model_compiled_with_custom_loss_function",
        family="saving_and_export",
        code="""
import os, tempfile
def weighted_mse(y_true, y_pred):
    return keras.ops.mean(2.0 * keras.ops.square(y_true - y_pred), axis=-1)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(np.random.rand(16, 5), np.random.rand(16, 1), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "regressor.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("weighted_mse",),
        must_not=("get_config",),
        fix='custom_objects={"weighted_mse": weighted_mse} (or register it, or compile=False)',
    ),
    # ValueError: Unknown layer: 'Clip'. Please ensure you are using a `keras.utils.custom_object_scope` and that this object is included in the scope. ...
    Case(
        name="f14_legacy_h5_model_with_custom_clip_layer",
        family="saving_and_export",
        code="""
import os, tempfile
class Clip(keras.layers.Layer):
    def __init__(self, limit=1.0, **kwargs):
        super().__init__(**kwargs)
        self.limit = limit
    def call(self, x):
        return keras.ops.clip(x, -self.limit, self.limit)
    def get_config(self):
        return {**super().get_config(), "limit": self.limit}
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(6), Clip(2.0), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "legacy_model.h5")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("clip",),
        must_not=("get_config",),
        fix='load_model(path, custom_objects={"Clip": Clip}) or register Clip',
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(3,), dtype=tf.float32, ...) to TensorSpec(shape=(None, 3), dtype=tf.float32, ...)`. ...
    Case(
        name="f14_exported_serve_called_on_one_example",
        family="saving_and_export",
        code="""
import os, tempfile
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
export_dir = os.path.join(tempfile.mkdtemp(), "served")
model.export(export_dir)
reloaded = tf.saved_model.load(export_dir)
one_example = np.array([0.2, 0.5, 0.1], dtype="float32")
print(reloaded.serve(one_example))
""",
        expect="S12",
        must=("batch",),
        must_not=("astype", "float64"),
        fix="reloaded.serve(one_example[None, :])",
    ),
    # ValueError: You are loading weights into a model that has not yet been built. Try building the model first by calling it on some data or by using `build()`.
    Case(
        name="f14_load_weights_into_a_fresh_subclassed_net",
        family="saving_and_export",
        code="""
import os, tempfile
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(8, activation="relu")
        self.out = keras.layers.Dense(1)
    def call(self, x):
        return self.out(self.hidden(x))
trained = Net()
trained(np.zeros((1, 4), dtype="float32"))
path = os.path.join(tempfile.mkdtemp(), "net.weights.h5")
trained.save_weights(path)
fresh = Net()
fresh.load_weights(path)
""",
        expect=None,
        unexplained="the message says to build the model first, by calling it on some data or with build()",
        fix="fresh(np.zeros((1, 4))) or fresh.build((None, 4)) before load_weights",
    ),
    # ValueError: The model provided has not yet been built. It must be built before export.
    Case(
        name="f14_export_sequential_without_input_shape",
        family="saving_and_export",
        code="""
import os, tempfile
model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.export(os.path.join(tempfile.mkdtemp(), "regressor_export"))
""",
        expect="S04",
        must=("input",),
        must_not=("custom_objects", "extension"),
        fix="start the Sequential with keras.Input((n_features,)) (or build it / fit it first)",
    ),
]
