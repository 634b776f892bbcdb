"""Family ``saving_and_export``: saving a model and loading it back.

APIs: ``model.save(path)`` / ``keras.saving.load_model(path, custom_objects=None,
compile=True, safe_mode=True)`` (the ``.keras`` archive stores each object's class name
and ``get_config()``; loading rebuilds it with ``cls.from_config(config)``, so every custom
layer, loss or metric must be registered with
``@keras.saving.register_keras_serializable()`` or passed in ``custom_objects`` keyed by
its class or function name, and ``get_config`` must return every constructor argument;
``compile=False`` skips the training configuration; a ``Lambda`` wrapping a Python lambda
is refused unless ``safe_mode=False``), the legacy ``.h5`` format (the same rules for
custom objects), ``save_weights``/``load_weights`` (``.weights.h5``),
``tf.saved_model.save``/``tf.saved_model.load`` and ``model.export`` (a reloaded
SavedModel is called through its signatures: ``signatures["serving_default"]`` accepts
keyword arguments only, named after the model's inputs, with the dtypes and shapes of the
exported ``TensorSpec``; ``serve`` takes the batched tensor positionally), and
``keras.layers.TFSMLayer(path, call_endpoint=...)`` (a SavedModel endpoint as a layer).

Evidence a diagnosis needs: the class or function name the loader could not find, and
whether ``custom_objects`` or a registration was given (and under which key); for a
config that cannot rebuild the object, the constructor argument that ``get_config`` leaves
out; for a reloaded signature, the names, dtypes and shapes of its ``TensorSpec``s against
what was passed (a float64 array, a single example without its batch axis, a keyword that
is not an input name).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. ...
    #   (chained: GatedDense.__init__() missing 1 required positional argument: 'units')
    Case(
        name="f11_gated_dense_get_config_drops_the_units_argument",
        family="saving_and_export",
        code="""
import os, tempfile
@keras.saving.register_keras_serializable(package="demo")
class GatedDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.value = keras.layers.Dense(units)
        self.gate = keras.layers.Dense(units, activation="sigmoid")
    def call(self, x):
        return self.value(x) * self.gate(x)
    def get_config(self):
        return {"name": self.name, "trainable": self.trainable}

inputs = keras.Input((6,))
outputs = keras.layers.Dense(1)(GatedDense(8)(inputs))
model = keras.Model(inputs, outputs)
path = os.path.join(tempfile.mkdtemp(), "gated.keras")
model.save(path)
restored = keras.saving.load_model(path)
""",
        expect="C05",
        must=("units",),
        must_not=("safe_mode", "compile=false"),
        fix="get_config returning {**super().get_config(), 'units': self.units}",
    ),
    # TypeError: Could not locate function 'weighted_mse'. ...
    Case(
        name="f11_load_model_compiled_with_a_custom_weighted_mse_loss",
        family="saving_and_export",
        code="""
import os, tempfile
def weighted_mse(y_true, y_pred):
    return tf.reduce_mean(3.0 * tf.square(y_true - y_pred), axis=-1)

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(np.random.rand(16, 3).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "regressor.keras")
model.save(path)
reloaded = keras.saving.load_model(path)
""",
        expect="C05",
        must=("weighted_mse",),
        must_not=("get_config", "safe_mode"),
        fix="custom_objects={'weighted_mse': weighted_mse} (or compile=False)",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. ...
    #   (chained: Could not locate class 'Rescale'.)
    Case(
        name="f11_custom_objects_keyed_by_the_instance_variable_name",
        family="saving_and_export",
        code="""
import os, tempfile
class Rescale(keras.layers.Layer):
    def __init__(self, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
    def call(self, x):
        return x * self.factor
    def get_config(self):
        return {**super().get_config(), "factor": self.factor}

rescale = Rescale(0.5)
model = keras.Sequential([keras.Input((5,)), rescale, keras.layers.Dense(2, activation="softmax")])
path = os.path.join(tempfile.mkdtemp(), "clf.keras")
model.save(path)
restored = keras.saving.load_model(path, custom_objects={"rescale": Rescale})
""",
        expect="C05",
        must=("custom_objects",),
        must_not=("get_config",),
        fix="custom_objects={'Rescale': Rescale} (the class name is the key)",
    ),
    # ValueError: Unknown layer: 'ClipByNorm'. ...
    Case(
        name="f11_legacy_h5_model_with_custom_clip_layer_loaded_bare",
        family="saving_and_export",
        code="""
import os, tempfile
class ClipByNorm(keras.layers.Layer):
    def call(self, x):
        return tf.clip_by_norm(x, 1.0, axes=[-1])

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8), ClipByNorm(), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "clipped.h5")
model.save(path)
model_again = keras.models.load_model(path)
""",
        expect="C05",
        must=("clipbynorm",),
        must_not=("safe_mode",),
        fix="custom_objects={'ClipByNorm': ClipByNorm} or register the class",
    ),
    # ValueError: Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. ...
    Case(
        name="f11_lambda_layer_reloaded_with_safe_mode_on",
        family="saving_and_export",
        code="""
import os, tempfile
inputs = keras.Input((10,))
x = keras.layers.Lambda(lambda t: t / 255.0)(inputs)
outputs = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(inputs, outputs)
path = os.path.join(tempfile.mkdtemp(), "lambda_model.keras")
model.save(path)
model = keras.saving.load_model(path)
""",
        expect=None,
        must_not=("custom_objects",),
        unexplained="the error itself says to pass safe_mode=False if the file is trusted",
        fix="load_model(path, safe_mode=False), or a Rescaling layer instead of the Lambda",
    ),
    # TypeError: Binding inputs to tf.function failed due to `missing a required argument: 'sensor_readings'`. ...
    Case(
        name="f11_saved_model_signature_called_with_wrong_input_keyword",
        family="saving_and_export",
        code="""
import os, tempfile
inputs = keras.Input((4,), name="sensor_readings")
outputs = keras.layers.Dense(1)(keras.layers.Dense(8, activation="relu")(inputs))
model = keras.Model(inputs, outputs)
export_dir = os.path.join(tempfile.mkdtemp(), "sensor_model")
model.export(export_dir)
loaded = tf.saved_model.load(export_dir)
infer = loaded.signatures["serving_default"]
preds = infer(inputs=tf.constant(np.random.rand(3, 4), dtype=tf.float32))
""",
        expect="S12",
        must=("sensor_readings",),
        must_not=("float64", "batch axis"),
        fix="infer(sensor_readings=...)",
    ),
    # TypeError: Exception encountered when calling TFSMLayer.call().
    #   Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(6,), ...) to TensorSpec(shape=(None, 6), ...)`
    Case(
        name="f11_tfsmlayer_called_with_one_unbatched_row",
        family="saving_and_export",
        code="""
import os, tempfile
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
export_dir = os.path.join(tempfile.mkdtemp(), "exported")
model.export(export_dir)
scorer = keras.layers.TFSMLayer(export_dir, call_endpoint="serve")
row = tf.constant([0.1, 0.4, 0.3, 0.9, 0.2, 0.5])
scores = scorer(row)
""",
        expect="S12",
        must=("batch",),
        must_not=("float64", "custom_objects"),
        fix="reloaded.serve(row[None, :]) (add the batch axis)",
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(5, 3), dtype=tf.float64, ...)
    #   to TensorSpec(shape=(None, 3), dtype=tf.float32, ...)`
    Case(
        name="f11_reloaded_serve_endpoint_fed_a_float64_tensor",
        family="saving_and_export",
        code="""
import os, tempfile
base = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
export_dir = os.path.join(tempfile.mkdtemp(), "base_export")
base.export(export_dir)
reloaded = tf.saved_model.load(export_dir)
features = tf.convert_to_tensor(np.random.rand(5, 3))
out = reloaded.serve(features)
""",
        expect="S11",
        must=("float64",),
        must_not=("batch axis", "custom_objects"),
        fix='features.astype("float32")',
    ),
]
