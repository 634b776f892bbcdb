"""Family ``saving_and_export``: saving, reloading and exporting Keras models.

APIs: ``model.save(filepath)`` (Keras 3 writes the native ``.keras`` zip or a legacy
``.h5`` file and refuses any other extension; a SavedModel for serving comes from
``model.export(dir)``), ``keras.saving.load_model`` (rebuilds every layer, loss and
metric from its config: a custom class or function must be registered with
``@keras.saving.register_keras_serializable()`` or passed in ``custom_objects``, the
dict returned by ``get_config()`` must hold every argument ``__init__`` needs, since
``from_config(config)`` calls ``cls(**config)``, and a nested layer stored in the config
as a serialized dict must be turned back into a layer with
``keras.saving.deserialize_keras_object`` in ``from_config``), ``save_weights`` /
``load_weights`` and ``keras.callbacks.ModelCheckpoint`` (file name conventions), and
``model.export`` / ``tf.saved_model.load`` (the reloaded object is not a Keras model; its
``serve`` endpoint is a concrete function that accepts only tensors matching the
exported input signature: the same dtype and a leading batch axis).

Evidence a diagnosis needs: the file name and the format it selects; for a reload, the
class or function the config names and whether it is registered, the arguments of its
``__init__`` against the keys of its saved config, and whether a config value is a
serialized layer that ``from_config`` did not deserialize; for a reloaded SavedModel,
the signature of the endpoint (shape and dtype of each ``TensorSpec``) against the
tensor that was passed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. ...
    Case(
        name="f15_model_save_to_a_path_without_extension",
        family="saving_and_export",
        code="""
import os, tempfile
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.save(os.path.join(tempfile.mkdtemp(), "my_model"))
""",
        expect=None,
        unexplained="Keras's own message names both accepted extensions (.keras, .h5) and model.export for a SavedModel",
        fix='model.save("my_model.keras")',
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (innermost: ScaledDense.__init__() missing 1 required positional argument: 'units')
    Case(
        name="f15_registered_layer_get_config_forgets_units",
        family="saving_and_export",
        code="""
import os, tempfile
@keras.saving.register_keras_serializable(package="f15")
class ScaledDense(keras.layers.Layer):
    def __init__(self, units, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.scale = scale
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units))
    def call(self, x):
        return self.scale * (x @ self.kernel)
    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config
inputs = keras.Input((5,))
outputs = ScaledDense(3, scale=0.5)(inputs)
model = keras.Model(inputs, outputs)
path = os.path.join(tempfile.mkdtemp(), "scaled.keras")
model.save(path)
restored = keras.saving.load_model(path)
""",
        expect="C05",
        must=("units",),
        must_not=("custom_objects",),
        fix='get_config: config.update({"units": self.units, "scale": self.scale})',
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (innermost: Could not locate class 'Residual'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. ...)
    Case(
        name="f15_unregistered_residual_layer_in_new_session",
        family="saving_and_export",
        code="""
import os, tempfile
class Residual(keras.layers.Layer):
    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = keras.layers.Dense(units)
    def call(self, x):
        return x + self.inner(x)
    def get_config(self):
        return {**super().get_config(), "units": self.units}
model = keras.Sequential([keras.Input((8,)), Residual(8), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "residual.keras")
model.save(path)
del Residual  # a fresh kernel that never ran the class definition
reloaded = keras.models.load_model(path)
""",
        expect="C05",
        must=("residual",),
        must_not=("from_config",),
        fix='@keras.saving.register_keras_serializable() on Residual, or custom_objects={"Residual": Residual}',
    ),
    # TypeError: Could not locate function 'huber_like'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="f15_compiled_custom_loss_function_missing_at_load",
        family="saving_and_export",
        code="""
import os, tempfile
def huber_like(y_true, y_pred):
    err = y_true - y_pred
    return tf.reduce_mean(tf.sqrt(1.0 + tf.square(err)) - 1.0)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=huber_like)
model.fit(np.random.rand(8, 3), np.random.rand(8, 1), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "reg.keras")
model.save(path)
del huber_like  # the loss lives in another notebook
model2 = keras.models.load_model(path)
""",
        expect="C05",
        must=("huber_like",),
        must_not=("get_config",),
        fix='custom_objects={"huber_like": huber_like} (or register it, or compile=False)',
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (innermost: 'TrackedDict' object is not callable, in Wrapped.call())
    Case(
        name="f15_wrapper_layer_config_keeps_inner_layer_as_dict",
        family="saving_and_export",
        code="""
import os, tempfile
@keras.saving.register_keras_serializable(package="f15")
class Wrapped(keras.layers.Layer):
    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner
    def call(self, x):
        return self.inner(x) * 2.0
    def get_config(self):
        config = super().get_config()
        config["inner"] = keras.saving.serialize_keras_object(self.inner)
        return config
model = keras.Sequential([keras.Input((4,)), Wrapped(keras.layers.Dense(3))])
model(np.zeros((1, 4), "float32"))
path = os.path.join(tempfile.mkdtemp(), "wrapped.keras")
model.save(path)
reloaded = keras.saving.load_model(path)
""",
        expect="C05",
        must=("from_config",),
        must_not=("register_keras_serializable",),
        fix='from_config: config["inner"] = keras.saving.deserialize_keras_object(config["inner"])',
    ),
    # TypeError: Could not locate class 'TwoTower'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="f15_subclassed_model_reloaded_without_its_class",
        family="saving_and_export",
        code="""
import os, tempfile
class TwoTower(keras.Model):
    def __init__(self, hidden=16, **kwargs):
        super().__init__(**kwargs)
        self.hidden = hidden
        self.a = keras.layers.Dense(hidden, activation="relu")
        self.out = keras.layers.Dense(1)
    def call(self, x):
        return self.out(self.a(x))
model = TwoTower(16)
model.compile("adam", "mse")
model.fit(np.random.rand(8, 3), np.random.rand(8, 1), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "tt.keras")
model.save(path)
del TwoTower
m = keras.saving.load_model(path)
""",
        expect="C05",
        must=("twotower",),
        must_not=(".h5",),
        fix='register TwoTower with @keras.saving.register_keras_serializable() or custom_objects={"TwoTower": TwoTower}',
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2, 4), dtype=tf.int32, name='counts') to TensorSpec(shape=(None, 4), dtype=tf.float32, name='counts')`. ...
    Case(
        name="f15_exported_serve_endpoint_called_with_int_counts",
        family="saving_and_export",
        code="""
import tempfile
model = keras.Sequential([keras.Input((4,), name="counts"), keras.layers.Dense(2)])
export_dir = tempfile.mkdtemp()
model.export(export_dir, verbose=False)
reloaded = tf.saved_model.load(export_dir)
batch = tf.constant([[1, 0, 3, 2], [0, 0, 1, 5]])
print(reloaded.serve(batch))
""",
        expect="S11",
        must=("int32",),
        must_not=("expand_dims",),
        fix="reloaded.serve(tf.cast(batch, tf.float32))",
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(6,), dtype=tf.float32, name='features') to TensorSpec(shape=(None, 6), dtype=tf.float32, name='features')`. ...
    Case(
        name="f15_exported_serve_endpoint_given_one_example_unbatched",
        family="saving_and_export",
        code="""
import tempfile
inputs = keras.Input((6,), name="features")
outputs = keras.layers.Dense(1, activation="sigmoid")(inputs)
model = keras.Model(inputs, outputs)
export_dir = tempfile.mkdtemp()
model.export(export_dir, verbose=False)
reloaded = tf.saved_model.load(export_dir)
one = tf.constant([0.1, 0.4, 0.2, 0.9, 0.3, 0.5])
print(reloaded.serve(one))
""",
        expect="S12",
        must=("batch",),
        must_not=("tf.cast",),
        fix="reloaded.serve(one[None, :]) (add the batch axis)",
    ),
]
