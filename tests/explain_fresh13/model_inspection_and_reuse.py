"""Family ``model_inspection_and_reuse``: looking into a model, saving it, and using it again.

APIs: ``model.summary()``, ``model.layers``/``get_layer``, ``layer.output`` and
intermediate feature models ``keras.Model(model.inputs, layer.output)`` (only for a model
with a graph: a Sequential/functional model that has an ``Input`` or was already called
on data), ``get_weights``/``set_weights``, ``keras.models.clone_model`` (rebuilds every
layer from ``get_config()``, so a custom layer's config must hold every constructor
argument), ``model.save("x.keras")``/``keras.models.load_model`` (custom layers, losses
and metrics are found by registered name or ``custom_objects``), ``save_weights`` (Keras 3:
the file name must end in ``.weights.h5``), calling a trained model or ``predict`` on new
data (same feature count, image size and a float dtype as in training), and the NumPy
arrays ``predict`` returns (class probabilities of shape ``(n, classes)``: ``argmax``
gives the class ids).

Evidence a diagnosis needs: whether the model has a known input (``Input``, built, or
called), the layer a feature model or ``get_layer`` names, the custom class or function
and the constructor argument missing from its config, the new data's shape and dtype
against the shape and dtype the model was trained on, and the shape of the predictions
against what the consumer (a metric, a confusion matrix) expects.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # AttributeError: Sequential model 'sequential' has no defined inputs yet.
    Case(
        name="f13_feature_extractor_from_never_called_sequential",
        family="model_inspection_and_reuse",
        code="""
model = keras.Sequential([
    keras.layers.Conv2D(8, 3, activation="relu", name="conv_a"),
    keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(16, 3, activation="relu", name="conv_b"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
feature_model = keras.Model(inputs=model.inputs, outputs=model.get_layer("conv_b").output)
""",
        expect="S04",
        must=("input",),
        must_not=("get_config", "custom_objects"),
        fix="keras.Input(shape=(28, 28, 1)) as the first layer (or call/build the model first)",
    ),
    # ValueError: The filename must end in `.weights.h5`. Received: filepath=iris_classifier.h5
    Case(
        name="f13_save_weights_with_plain_h5_name",
        family="model_inspection_and_reuse",
        code="""
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(np.random.rand(8, 4), np.random.randint(0, 3, size=(8,)), epochs=1, verbose=0)
model.save_weights("iris_classifier.h5")
""",
        expect=None,
        unexplained="the message says the file name must end in .weights.h5",
        fix='model.save_weights("iris_classifier.weights.h5")',
    ),
    # TypeError: Error when deserializing class 'GatedDense' using config={'name': 'gated_dense', 'trainable': True, 'dtype': 'float32'}.
    #   ... Exception encountered: GatedDense.__init__() missing 1 required positional argument: 'units'
    Case(
        name="f13_clone_model_with_custom_layer_config_missing_units",
        family="model_inspection_and_reuse",
        code="""
class GatedDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.value = keras.layers.Dense(units)
        self.gate = keras.layers.Dense(units, activation="sigmoid")
    def call(self, x):
        return self.value(x) * self.gate(x)
    def get_config(self):
        return super().get_config()

inputs = keras.Input(shape=(6,))
outputs = keras.layers.Dense(1)(GatedDense(12)(inputs))
model = keras.Model(inputs, outputs)
twin = keras.models.clone_model(model)
""",
        expect="C05",
        must=("units",),
        must_not=("register_keras_serializable", "input_shape"),
        fix='get_config: return {**super().get_config(), "units": self.units}',
    ),
    # TypeError: Could not locate function 'weighted_mse'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. If ...
    Case(
        name="f13_reload_model_compiled_with_custom_loss_to_keep_training",
        family="model_inspection_and_reuse",
        code="""
import os, tempfile
def weighted_mse(y_true, y_pred):
    return tf.reduce_mean(3.0 * tf.square(y_true - y_pred))
x = np.random.rand(16, 5).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "regressor.keras")
model.save(path)
restored = keras.models.load_model(path)
restored.fit(x, y, epochs=1, verbose=0)
""",
        expect="C05",
        must=("weighted_mse",),
        must_not=("input_shape", "get_config"),
        fix='load_model(path, custom_objects={"weighted_mse": weighted_mse})',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... Input 0 with name 'None' of layer 'hidden' is incompatible with the layer: expected axis -1 of input shape to have value 6, but received input with sh ...
    Case(
        name="f13_predict_on_new_rows_that_keep_the_id_column",
        family="model_inspection_and_reuse",
        code="""
train = np.random.rand(20, 6).astype("float32")
target = np.random.rand(20, 1).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(6,)),
    keras.layers.Dense(16, activation="relu", name="hidden"),
    keras.layers.Dense(1, name="price"),
])
model.compile(optimizer="adam", loss="mse")
model.fit(train, target, epochs=1, verbose=0)
new_rows = np.column_stack([np.arange(3), np.random.rand(3, 6)]).astype("float32")  # id + 6 features
print(model.predict(new_rows, verbose=0))
""",
        expect="S01",
        must=("7",),
        must_not=("batch axis", "expand_dims"),
        fix="model.predict(new_rows[:, 1:]) (drop the id column)",
    ),
    # InvalidArgumentError: Shapes of all inputs must match: values[0].shape = [12] != values[1].shape = [12,3] [Op:Pack] name: stack
    Case(
        name="f13_confusion_matrix_from_predicted_probabilities",
        family="model_inspection_and_reuse",
        code="""
x_test = np.random.rand(12, 8).astype("float32")
y_test = np.random.randint(0, 3, size=(12,))
model = keras.Sequential([
    keras.Input(shape=(8,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
preds = model.predict(x_test, verbose=0)
cm = tf.math.confusion_matrix(y_test, preds, num_classes=3)
""",
        expect="S07",
        must=("argmax",),
        must_not=("to_categorical", "sparse_categorical"),
        fix="tf.math.confusion_matrix(y_test, preds.argmax(axis=1), num_classes=3)",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    #   ... Incompatible type conversion requested to type uint8 for `tf.Variable of type float32. ...
    Case(
        name="f13_subclassed_cnn_called_on_decoded_uint8_image",
        family="model_inspection_and_reuse",
        code="""
class TinyNet(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(8, 3, activation="relu")
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.out = keras.layers.Dense(2, activation="softmax")
    def call(self, x):
        return self.out(self.pool(self.conv(x)))

net = TinyNet()
net(np.random.rand(2, 32, 32, 3).astype("float32"))
png = tf.io.encode_png(np.random.randint(0, 256, size=(32, 32, 3)).astype("uint8"))
image = tf.io.decode_png(png, channels=3)
probs = net(image[tf.newaxis, ...])
""",
        expect="S11",
        must=("uint8",),
        must_not=("batch axis", "channel"),
        fix="net(tf.cast(image, tf.float32)[tf.newaxis] / 255.0)",
    ),
    # ValueError: Input 0 with name 'input_layer' of layer 'functional' is incompatible with the layer: expected shape=(None, 32, 32, 3), found shape=(1, 64, 64, 3)
    Case(
        name="f13_trained_cifar_cnn_on_a_larger_photo",
        family="model_inspection_and_reuse",
        code="""
x_train = np.random.rand(16, 32, 32, 3).astype("float32")
y_train = np.random.randint(0, 10, size=(16,))
inputs = keras.Input(shape=(32, 32, 3))
x = keras.layers.Conv2D(8, 3, activation="relu")(inputs)
x = keras.layers.MaxPooling2D()(x)
x = keras.layers.Flatten()(x)
outputs = keras.layers.Dense(10, activation="softmax", name="classifier")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
photo = np.random.rand(1, 64, 64, 3).astype("float32")
print(model.predict(photo, verbose=0).argmax())
""",
        expect="S01",
        must=("resize",),
        must_not=("batch axis", "channel"),
        fix="tf.image.resize(photo, (32, 32)) before predict",
    ),
]
