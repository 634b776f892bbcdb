"""Family: a subclassed ``keras.Model`` that overrides ``train_step``/``test_step``/``predict_step``.

API: ``keras.Model.train_step(self, data)``, ``test_step(self, data)``,
``predict_step(self, data)``, ``compute_loss(x=None, y=None, y_pred=None,
sample_weight=None, training=True)``, ``keras.utils.unpack_x_y_sample_weight``,
``tf.GradientTape``, ``self.optimizer.apply(grads, variables)`` /
``apply_gradients(zip(grads, variables))``, ``compute_metrics``, ``Metric.update_state``.
Contract (Keras 3, TensorFlow backend): ``fit`` traces ``train_step`` into a
``tf.function`` and calls it once per batch with exactly what the data yields for that
batch: a tuple ``(x, y)`` or ``(x, y, sample_weight)``, a dict, or ``x`` alone;
``predict`` calls ``predict_step`` with the inputs only, and ``evaluate`` (also the
validation pass of ``fit``) calls ``test_step``, whose default unpacks the batch with
``unpack_x_y_sample_weight`` (a dict batch is taken as ``x``) and needs a loss given to
``compile``.  The step calls the model with ``training=True``, computes the whole loss
inside the ``GradientTape`` block (``self.compute_loss`` uses the compiled loss; a
hand-written loss must be differentiable and take labels in the encoding it expects),
takes one ``tape.gradient`` per non-persistent tape, applies the gradients with the
optimizer given to ``compile`` (a GAN overrides ``compile`` to hold two), and returns a
dict of scalar results.  Evidence a diagnosis could read at the failure: the step's
source (how ``data`` is unpacked, where the loss is computed relative to the tape, what
the loss is made of, ``.numpy()`` calls), which of ``train_step``/``test_step``/
``predict_step`` are overridden and which one raised, the dataset's ``element_spec``
(number of components, dict keys, dtypes), the ``compile`` arguments (loss, optimizer),
the model's layers and output shape, and the shapes/dtypes of ``y`` and ``y_pred``.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "custom_train_step"

CASES = [
    # ValueError: too many values to unpack (expected 2)
    # (the dataset yields (x, y, weights); train_step unpacks two)
    Case(
        "ts_sample_weight_unpacked_as_pair",
        FAMILY,
        """
class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}
inputs = keras.Input((6,))
outputs = keras.layers.Dense(1)(keras.layers.Dense(16, activation="relu")(inputs))
model = Regressor(inputs, outputs)
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(48, 6).astype("float32")
y = np.random.rand(48, 1).astype("float32")
weights = np.where(y[:, 0] > 0.5, 2.0, 1.0).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((x, y, weights)).batch(16)
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("weight",),
        must_not=("batch the dataset", "persistent"),
        fix="x, y, sw = keras.utils.unpack_x_y_sample_weight(data)",
    ),
    # ValueError: No gradients provided for any variable.
    # (the loss and the regularization sum are computed after the tape's with block closed)
    Case(
        "ts_loss_computed_after_tape_closed",
        FAMILY,
        """
class Denoiser(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
        total_loss = keras.losses.mean_squared_error(y, y_pred)
        total_loss = tf.reduce_mean(total_loss) + tf.add_n(self.losses)
        grads = tape.gradient(total_loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": total_loss}
inputs = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu", kernel_regularizer="l2")(inputs)
model = Denoiser(inputs, keras.layers.Dense(8)(h))
model.compile(optimizer="adam")
clean = np.random.rand(32, 8).astype("float32")
model.fit(clean + 0.1 * np.random.randn(32, 8).astype("float32"), clean, epochs=1, verbose=0)
""",
        "T03",
        must=("total_loss",),
        must_not=("argmax", "persistent"),
        fix="compute total_loss inside the `with tf.GradientTape()` block",
    ),
    # RuntimeError: A non-persistent GradientTape can only be used to compute one set of
    # gradients (or jacobians)
    # (one tape records both GAN losses; tape.gradient is called for d_loss and g_loss)
    Case(
        "ts_gan_one_tape_two_gradients",
        FAMILY,
        """
latent_dim = 4
generator = keras.Sequential([keras.Input((latent_dim,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)], name="generator")
discriminator = keras.Sequential([keras.Input((2,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)], name="discriminator")
class GAN(keras.Model):
    def __init__(self, generator, discriminator):
        super().__init__()
        self.generator = generator
        self.discriminator = discriminator
        self.bce = keras.losses.BinaryCrossentropy(from_logits=True)
    def compile(self, d_optimizer, g_optimizer):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
    def train_step(self, real):
        batch = tf.shape(real)[0]
        noise = tf.random.normal((batch, latent_dim))
        with tf.GradientTape() as tape:
            fake = self.generator(noise, training=True)
            real_logits = self.discriminator(real, training=True)
            fake_logits = self.discriminator(fake, training=True)
            d_loss = self.bce(tf.ones_like(real_logits), real_logits) + self.bce(tf.zeros_like(fake_logits), fake_logits)
            g_loss = self.bce(tf.ones_like(fake_logits), fake_logits)
        d_grads = tape.gradient(d_loss, self.discriminator.trainable_variables)
        g_grads = tape.gradient(g_loss, self.generator.trainable_variables)
        self.d_optimizer.apply(d_grads, self.discriminator.trainable_variables)
        self.g_optimizer.apply(g_grads, self.generator.trainable_variables)
        return {"d_loss": d_loss, "g_loss": g_loss}
gan = GAN(generator, discriminator)
gan.compile(d_optimizer=keras.optimizers.Adam(1e-3), g_optimizer=keras.optimizers.Adam(1e-3))
points = np.random.randn(64, 2).astype("float32")
gan.fit(tf.data.Dataset.from_tensor_slices(points).batch(16), epochs=1, verbose=0)
""",
        "T03",
        must=("persistent",),
        must_not=("super().compile",),
        fix="two tapes, or GradientTape(persistent=True)",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    # (fit traces train_step into a tf.function; loss.numpy() in a Python if)
    Case(
        "ts_numpy_call_in_train_step",
        FAMILY,
        """
class EarlyStopStep(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        if loss.numpy() < 1e-3:
            return {"loss": loss}
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}
inputs = keras.Input((4,))
model = EarlyStopStep(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32"), epochs=1, verbose=0)
""",
        "T02",
        must=("numpy",),
        must_not=("enable_eager_execution", "upgrade"),
        fix="tf.cond / compare tensors, or run_eagerly=True",
    ),
    # ValueError: No gradients provided for any variable.
    # (the loss is 1 - accuracy through tf.argmax/tf.equal/tf.cast, computed inside the tape)
    Case(
        "ts_argmax_error_rate_as_loss",
        FAMILY,
        """
class AccuracyTrained(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            probs = self(x, training=True)
            predicted = tf.argmax(probs, axis=-1, output_type=tf.int32)
            error_rate = 1.0 - tf.reduce_mean(tf.cast(tf.equal(predicted, y), tf.float32))
        grads = tape.gradient(error_rate, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"error_rate": error_rate}
inputs = keras.Input((6,))
model = AccuracyTrained(inputs, keras.layers.Dense(4, activation="softmax")(keras.layers.Dense(16, activation="relu")(inputs)))
model.compile(optimizer="adam")
model.fit(np.random.rand(40, 6).astype("float32"), np.random.randint(0, 4, 40).astype("int32"), epochs=1, verbose=0)
""",
        "G04",
        must=("argmax", "error_rate"),
        must_not=("persistent", "outside the tape"),
        fix="a differentiable loss (sparse categorical cross-entropy)",
    ),
    # ValueError: Dimensions must be equal, but are 8 and 64 for '{{node sub}} =
    # Sub[T=DT_FLOAT](data, decoder_1/dense_4_1/Sigmoid)' with input shapes: [8,8,8], [8,64].
    # (the VAE's reconstruction loss subtracts a flat (8, 64) decoder output from (8, 8, 8) images)
    Case(
        "ts_vae_flat_decoder_reconstruction",
        FAMILY,
        """
encoder_in = keras.Input((8, 8))
h = keras.layers.Dense(16, activation="relu")(keras.layers.Flatten()(encoder_in))
encoder = keras.Model(encoder_in, [keras.layers.Dense(2)(h), keras.layers.Dense(2)(h)], name="encoder")
decoder = keras.Sequential([keras.Input((2,)), keras.layers.Dense(16, activation="relu"),
                            keras.layers.Dense(64, activation="sigmoid")], name="decoder")
class VAE(keras.Model):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
    def train_step(self, images):
        with tf.GradientTape() as tape:
            z_mean, z_log_var = self.encoder(images)
            z = z_mean + tf.exp(0.5 * z_log_var) * tf.random.normal(tf.shape(z_mean))
            reconstruction = self.decoder(z)
            reconstruction_loss = tf.reduce_mean(tf.reduce_sum(tf.square(images - reconstruction), axis=(1, 2)))
            kl_loss = -0.5 * tf.reduce_mean(tf.reduce_sum(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var), axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        return {"loss": self.total_loss_tracker.result()}
vae = VAE(encoder, decoder)
vae.compile(optimizer="adam")
vae.fit(np.random.rand(32, 8, 8).astype("float32"), epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("decoder",),
        must_not=("labels", "batch size"),
        fix="Reshape((8, 8)) after the decoder's Dense(64)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received:
    # target.shape=(8,), output.shape=(8, 5)
    # (integer grades 0..4 given to categorical_crossentropy in train_step)
    Case(
        "ts_categorical_ce_integer_labels_in_step",
        FAMILY,
        """
class LabelSmoothStep(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = tf.reduce_mean(keras.losses.categorical_crossentropy(y, y_pred, label_smoothing=0.1))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}
inputs = keras.Input((10,))
model = LabelSmoothStep(inputs, keras.layers.Dense(5, activation="softmax")(inputs))
model.compile(optimizer="adam")
grades = np.random.randint(0, 5, 40)
model.fit(np.random.rand(40, 10).astype("float32"), grades, epochs=1, batch_size=8, verbose=0)
""",
        "M05",
        must=("categorical_crossentropy",),
        must_not=("expand_dims", "flatten"),
        fix="tf.one_hot(y, 5) before the loss (or the sparse loss)",
    ),
    # ValueError: Missing data for input "input_layer". You passed a data dictionary with keys
    # ['features', 'target']. Expected the following keys: ['input_layer']
    # (train_step reads batch["features"]/batch["target"]; validation uses the default test_step)
    Case(
        "ts_dict_batches_default_test_step",
        FAMILY,
        """
class DictModel(keras.Model):
    def train_step(self, batch):
        x, y = batch["features"], batch["target"]
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        for m in self.metrics:
            m.update_state(loss) if m.name == "loss" else m.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}
def to_ds(n):
    return tf.data.Dataset.from_tensor_slices({"features": np.random.rand(n, 7).astype("float32"),
                                               "target": np.random.randint(0, 2, (n, 1)).astype("float32")}).batch(8)
inputs = keras.Input((7,))
model = DictModel(inputs, keras.layers.Dense(1, activation="sigmoid")(inputs))
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(to_ds(40), validation_data=to_ds(16), epochs=1, verbose=0)
""",
        "S12",
        must=("test_step",),
        must_not=("rename",),
        fix="override test_step to read the dict like train_step",
    ),
    # OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed.
    # (predict gives predict_step the batch x alone; `x, _ = data` iterates the tensor)
    Case(
        "ts_predict_step_unpacks_x_y",
        FAMILY,
        """
class Scorer(keras.Model):
    def predict_step(self, data):
        x, _ = data
        return tf.nn.sigmoid(self(x, training=False))
inputs = keras.Input((3,))
model = Scorer(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam", loss=keras.losses.BinaryCrossentropy(from_logits=True))
x = np.random.rand(30, 3).astype("float32")
model.fit(x, np.random.randint(0, 2, (30, 1)), epochs=1, verbose=0)
scores = model.predict(x, verbose=0)
""",
        "S12",
        must=("predict_step",),
        must_not=("tf.cond", "run_eagerly"),
        fix="x, _, _ = keras.utils.unpack_x_y_sample_weight(data)",
    ),
    # ValueError: No loss to compute. Provide a `loss` argument in `compile()`.
    # (train_step calls self.compute_loss; compile got only an optimizer and metrics)
    Case(
        "ts_compute_loss_without_compiled_loss",
        FAMILY,
        """
class PenaltyModel(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
    def train_step(self, data):
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            loss += 0.01 * tf.reduce_mean(tf.abs(y_pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}
inputs = keras.Input((6,))
model = PenaltyModel(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer=keras.optimizers.Adam(1e-3), metrics=["mae"])
model.fit(np.random.rand(32, 6).astype("float32"), np.random.rand(32, 1).astype("float32"), epochs=1, verbose=0)
""",
        None,
        must=(),
        must_not=(),
        unexplained="Keras's own message names the fix: give compile() a loss (the step calls self.compute_loss).",
        fix='compile(..., loss="mse")',
    ),
]
