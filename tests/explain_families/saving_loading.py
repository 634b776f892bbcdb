"""Family: saving and loading Keras 3 models, weights and checkpoints.

API: ``model.save("x.keras")`` and ``keras.saving.load_model(path, custom_objects=...,
compile=..., safe_mode=...)``; ``@keras.saving.register_keras_serializable(package=...)``;
``get_config``/``from_config`` of custom layers and subclassed models;
``model.save_weights("x.weights.h5")``/``load_weights``;
``keras.callbacks.ModelCheckpoint(filepath=..., save_weights_only=...)``;
``model.export(dir)`` with ``keras.layers.TFSMLayer(dir, call_endpoint=...)``;
``tf.train.Checkpoint(**objects).save``/``restore``.  Contract: a ``.keras`` file stores
each object's config (class name, registered name, ``get_config()``) and its weights;
``load_model`` rebuilds every object by calling ``cls.from_config(config)``, which by
default is ``cls(**config)``, so (1) every custom class and function must be findable,
registered or passed in ``custom_objects`` under the name stored in the config (for a
function, its ``__name__``: the inner function of a closure, not the factory), (2)
``get_config()`` must return every constructor argument, and ``__init__`` must accept
the base keys (``name``, ``trainable``, ``dtype``) through ``**kwargs``, (3) a Python
``lambda`` inside a ``Lambda`` layer is refused unless ``safe_mode=False``.
``load_weights`` matches variables layer by layer, so the target must be built, with
the same architecture.  ``ModelCheckpoint`` wants ``.keras`` for full models and
``.weights.h5`` with ``save_weights_only=True``.  ``TFSMLayer`` calls the exported
signature, whose input has a batch axis (``(None, features)``).  ``tf.train.Checkpoint``
matches objects by the keyword names they were saved under.  Evidence a diagnosis can
read: the path and its extension, the arguments of the save/load call (the keys of
``custom_objects``, ``safe_mode``, ``save_weights_only``), the saved config (the
``.keras`` zip's ``config.json``: class names, registered names, each layer's config),
the custom classes' ``__init__`` signature against the keys their ``get_config``
returns, the weight shapes in the file against the model's, whether the model is built,
the exported signature's input spec against the array passed, the checkpoint's object
names against the restoring ``Checkpoint``'s keywords.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "saving_loading"

CASES = [
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be
    # deserialized properly. Please ensure that components that are Python object
    # instances (layers, models, etc.) returned by `get_config()` are explicitly
    # deserialized in the model's `from_config()` method.
    # (inner cause: Could not locate function 'hard_swish')
    Case(
        "sv_unregistered_activation_function",
        FAMILY,
        """
import os, tempfile
def hard_swish(x):
    return x * tf.nn.relu6(x + 3.0) / 6.0
x = np.random.rand(48, 10).astype("float32")
y = np.random.randint(0, 2, (48, 1))
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(32, activation=hard_swish),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "churn.keras")
model.save(path)
reloaded = keras.saving.load_model(path)
""",
        "C05",
        must=("hard_swish",),
        must_not=("from_config",),
        fix="custom_objects={'hard_swish': hard_swish}",
    ),
    # TypeError: Could not locate function 'focal_loss_fixed'. Make sure custom classes
    # and functions are decorated with `@keras.saving.register_keras_serializable()`.
    # (custom_objects holds the factory 'binary_focal', the config names the inner function)
    Case(
        "sv_closure_loss_custom_objects_factory_name",
        FAMILY,
        """
import os, tempfile
def binary_focal(gamma=2.0):
    def focal_loss_fixed(y_true, y_pred):
        y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
        pt = tf.where(tf.equal(y_true, 1.0), y_pred, 1 - y_pred)
        return -tf.reduce_mean(tf.pow(1.0 - pt, gamma) * tf.math.log(pt))
    return focal_loss_fixed
x = np.random.rand(40, 6).astype("float32")
y = (np.random.rand(40, 1) < 0.2).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", loss=binary_focal(gamma=2.0), metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "fraud.keras")
model.save(path)
model = keras.saving.load_model(path, custom_objects={"binary_focal": binary_focal})
""",
        "C05",
        must=("focal_loss_fixed",),
        must_not=("get_config",),
        fix="custom_objects={'focal_loss_fixed': binary_focal(2.0)} or compile=False",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be
    # deserialized properly. Please ensure that components that are Python object
    # instances (layers, models, etc.) returned by `get_config()` are explicitly
    # deserialized in the model's `from_config()` method.
    # (inner cause: Standardize.__init__() got an unexpected keyword argument 'name')
    Case(
        "sv_layer_init_without_kwargs",
        FAMILY,
        """
import os, tempfile
@keras.saving.register_keras_serializable(package="sensors")
class Standardize(keras.layers.Layer):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean
        self.std = std
    def call(self, x):
        return (x - self.mean) / self.std
    def get_config(self):
        config = super().get_config()
        config.update({"mean": self.mean, "std": self.std})
        return config
x = (np.random.rand(32, 4) * 10).astype("float32")
model = keras.Sequential([keras.Input((4,)), Standardize(float(x.mean()), float(x.std())),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, np.random.rand(32, 1), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "sensor_model.keras")
model.save(path)
keras.saving.load_model(path)
""",
        "C05",
        must=("standardize", "kwargs"),
        must_not=("custom_objects",),
        fix="def __init__(self, mean, std, **kwargs): super().__init__(**kwargs)",
    ),
    # TypeError: <class 'TwoTower'> could not be deserialized properly. Please ensure
    # that components that are Python object instances (layers, models, etc.) returned
    # by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (inner cause: TwoTower.__init__() missing 1 required positional argument: 'n_out')
    Case(
        "sv_subclassed_model_config_missing_arg",
        FAMILY,
        """
import os, tempfile
@keras.saving.register_keras_serializable(package="recsys")
class TwoTower(keras.Model):
    def __init__(self, hidden, n_out, **kwargs):
        super().__init__(**kwargs)
        self.hidden = hidden
        self.n_out = n_out
        self.body = keras.layers.Dense(hidden, activation="relu")
        self.head = keras.layers.Dense(n_out, activation="softmax")
    def call(self, x):
        return self.head(self.body(x))
    def get_config(self):
        config = super().get_config()
        config.update({"hidden": self.hidden})
        return config
x = np.random.rand(40, 5).astype("float32")
y = np.random.randint(0, 3, 40)
model = TwoTower(hidden=16, n_out=3)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "two_tower.keras")
model.save(path)
restored = keras.saving.load_model(path)
""",
        "C05",
        must=("n_out",),
        must_not=("custom_objects",),
        fix="add 'n_out' to TwoTower.get_config",
    ),
    # ValueError: Input 0 with name 'None' of layer 'dense_2' is incompatible with the
    # layer: expected axis -1 of input shape to have value 64, but received input with
    # shape (None, 32)
    # (get_config drops `units`, so the reloaded ResidualMLP takes its default 32)
    Case(
        "sv_get_config_drops_default_units",
        FAMILY,
        """
import os, tempfile
@keras.saving.register_keras_serializable(package="tabnet")
class ResidualMLP(keras.layers.Layer):
    def __init__(self, units=32, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.rate = rate
        self.proj = keras.layers.Dense(units)
        self.hidden = keras.layers.Dense(units, activation="relu")
        self.drop = keras.layers.Dropout(rate)
    def call(self, x, training=False):
        return self.proj(x) + self.drop(self.hidden(x), training=training)
    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate})
        return config
x = np.random.rand(40, 8).astype("float32")
model = keras.Sequential([keras.Input((8,)), ResidualMLP(units=64, rate=0.2), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, np.random.rand(40, 1), epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "residual.keras")
model.save(path)
model2 = keras.saving.load_model(path)
""",
        "C05",
        must=("units",),
        must_not=("custom_objects",),
        fix="add 'units' to ResidualMLP.get_config",
    ),
    # ValueError: Requested the deserialization of a `Lambda` layer whose `function` is
    # a Python lambda. This carries a potential risk of arbitrary code execution and
    # thus it is disallowed by default.
    Case(
        "sv_lambda_layer_safe_mode",
        FAMILY,
        """
import os, tempfile
images = np.random.randint(0, 256, (32, 28, 28)).astype("float32")
labels = np.random.randint(0, 10, 32)
model = keras.Sequential([keras.Input((28, 28)), keras.layers.Lambda(lambda t: t / 255.0),
                          keras.layers.Flatten(), keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(images, labels, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "digits.keras")
model.save(path)
model = keras.saving.load_model(path)
""",
        None,
        unexplained="Keras says the Lambda's Python lambda is refused and names safe_mode=False",
        fix="safe_mode=False, or a Rescaling layer",
    ),
    # ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath
    # provided must end in `.weights.h5` (Keras weights format). Received:
    # filepath=/tmp/.../best_model.h5
    Case(
        "sv_checkpoint_weights_only_h5_extension",
        FAMILY,
        """
import os, tempfile
x = np.random.rand(50, 6).astype("float32")
y = np.random.rand(50, 1).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", "mse")
ckpt_dir = tempfile.mkdtemp()
checkpoint = keras.callbacks.ModelCheckpoint(filepath=os.path.join(ckpt_dir, "best_model.h5"),
                                             monitor="val_loss", save_best_only=True,
                                             save_weights_only=True)
model.fit(x, y, validation_split=0.2, epochs=1, callbacks=[checkpoint], verbose=0)
""",
        None,
        unexplained="Keras names the required .weights.h5 ending and the filepath received",
        fix="end the filepath in .weights.h5",
    ),
    # ValueError: You are loading weights into a model that has not yet been built. Try
    # building the model first by calling it on some data or by using `build()`.
    Case(
        "sv_load_weights_unbuilt_sequential",
        FAMILY,
        """
import os, tempfile
x_train = np.random.rand(64, 13).astype("float32")
y_train = np.random.rand(64, 1).astype("float32")
def make_regressor():
    return keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model = make_regressor()
model.compile("adam", "mse")
model.fit(x_train, y_train, epochs=1, verbose=0)
weights_path = os.path.join(tempfile.mkdtemp(), "housing.weights.h5")
model.save_weights(weights_path)
restored = make_regressor()
restored.load_weights(weights_path)
""",
        "S04",
        must=("13",),
        must_not=("architecture",),
        fix="restored.build((None, 13)) or keras.Input((13,)) first",
    ),
    # TypeError: Exception encountered when calling TFSMLayer.call().
    # Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(4,),
    # dtype=tf.float32, ...) to TensorSpec(shape=(None, 4), dtype=tf.float32, ...)`
    # (a single example of shape (4,) against the exported signature (None, 4))
    Case(
        "sv_tfsmlayer_single_example",
        FAMILY,
        """
import os, tempfile
x = np.random.rand(60, 4).astype("float32")
y = np.random.randint(0, 3, 60)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
export_dir = os.path.join(tempfile.mkdtemp(), "iris_export")
model.export(export_dir)
serving = keras.layers.TFSMLayer(export_dir, call_endpoint="serve")
new_flower = np.array([5.1, 3.5, 1.4, 0.2], dtype="float32")
probs = serving(new_flower)
""",
        "S12",
        must=("new_flower",),
        must_not=("float64",),
        fix="serving(new_flower[None, :])",
    ),
    # AssertionError: Found 4 Python objects that were not bound to checkpointed values,
    # likely due to changes in the Python program. Showing 4 of 4 unmatched objects:
    # (saved as Checkpoint(classifier=...), restored as Checkpoint(model=...))
    Case(
        "sv_tf_checkpoint_renamed_key",
        FAMILY,
        """
import os, tempfile
def build():
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(2)])
model = build()
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(np.random.rand(40, 6).astype("float32"), np.random.randint(0, 2, 40), epochs=1, verbose=0)
ckpt_dir = tempfile.mkdtemp()
save_path = tf.train.Checkpoint(classifier=model).save(os.path.join(ckpt_dir, "ckpt"))
new_model = build()
status = tf.train.Checkpoint(model=new_model).restore(save_path)
status.assert_existing_objects_matched()
""",
        "C04",
        must=("classifier",),
        must_not=("architecture",),
        fix="restore with tf.train.Checkpoint(classifier=new_model)",
    ),
]
