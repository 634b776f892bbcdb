"""GANs and custom train steps: models that override ``train_step``/``test_step``/
``compute_loss``, generators and discriminators trained with two optimizers.

The family, written down from the Keras 3 guides ("Customizing what happens in fit()",
the DCGAN / WGAN-GP examples) and the sources of ``keras.Model`` before the cases:

* ``fit`` calls ``train_step(data)`` once per batch, inside a ``tf.function`` (graph mode),
  with ``data`` exactly as the input pipeline yields it: a tensor when ``fit(x)`` got no
  ``y`` (or a dataset yields bare tensors), a tuple ``(x, y)`` or ``(x, y, sample_weight)``
  otherwise.  ``x, y = data`` on a bare tensor iterates a symbolic tensor
  (``OperatorNotAllowedInGraphError``); ``x, y, sw = data`` on a pair fails with "not enough
  values to unpack".  ``keras.utils.unpack_x_y_sample_weight(data)`` accepts all three forms.
  ``evaluate`` calls ``test_step(data)`` the same way.
* ``train_step`` returns a dict of metric names to scalar values (``tracker.result()``,
  not the tracker); ``keras.metrics.Mean`` trackers listed in the ``metrics`` property are
  reset each epoch.  Keras 3: ``self.compute_loss(x=None, y=None, y_pred=None,
  sample_weight=None, training=True)`` (keyword order matters), ``self.compiled_loss`` is a
  deprecated shim.
* A custom ``compile(self, d_optimizer, g_optimizer, loss_fn)`` must call
  ``super().compile()``.  A Keras 3 optimizer builds its slots for the variables it first
  updates and refuses any other variable ("Unknown variable ... This optimizer can only be
  called for the variables it was originally built with"): a GAN needs one optimizer per
  network.
* Gradients: ``tape.gradient(loss, vars)`` only sees operations recorded inside the
  ``with tf.GradientTape()`` block; a generator output computed before the block is a
  constant for the tape, so every generator gradient is ``None`` and
  ``apply_gradients`` raises "No gradients provided for any variable".
* Latent vectors: ``tf.random.normal((batch, latent_dim))`` with ``latent_dim`` equal to the
  generator's input width; the batch size of a step is ``tf.shape(real)[0]`` (the last batch
  of an epoch is smaller unless ``drop_remainder=True``), not a Python constant.
* Real and fake batches are concatenated along axis 0 with ``tf.concat``, which needs the
  same rank, the same non-batch shape and the same dtype: image arrays loaded as ``uint8``
  (0..255) must be cast (and scaled) to ``float32`` first, and a generator that ends in
  ``Dense(784)`` needs ``Reshape((28, 28, 1))``.  Labels for the discriminator are
  ``(2B, 1)``: ones for real, zeros for fake, concatenated along axis 0.

Evidence a diagnosis needs: which line of the user's ``train_step``/``test_step`` failed and
what ``data`` held (its structure and the arguments ``fit``/``evaluate`` got); for a concat,
the two shapes or dtypes and where each came from (generator output, dataset); for a batch
mismatch, the hard-coded size against the real batch size; for missing gradients, which
term was computed outside the tape.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "gans_and_custom_train_steps"

CASES = [
    # OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed.
    # You can attempt the following resolutions to the problem: ...
    Case(
        name="f29_train_step_unpacks_y_fit_without_targets",
        family=FAMILY,
        code="""
class Denoiser(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}

inp = keras.Input(shape=(8,))
model = Denoiser(inp, keras.layers.Dense(8)(inp))
model.compile(optimizer="adam")
signals = np.random.rand(16, 8).astype("float32")
model.fit(signals, epochs=1, batch_size=8, verbose=0)
""",
        expect="S12",
        must=("x, y",),
        must_not=("tf.cond", "run_eagerly"),
        fix="model.fit(signals, signals) (or unpack with keras.utils.unpack_x_y_sample_weight)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 ... of layer 'dense' is incompatible with the layer: expected axis -1 of input
    # shape to have value 100, but received input with shape (4, 128))
    Case(
        name="f29_gan_latent_dim_differs_from_generator_input",
        family=FAMILY,
        code="""
latent_dim = 128
generator = keras.Sequential([
    keras.Input(shape=(100,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(8, activation="tanh"),
])
noise = tf.random.normal((4, latent_dim))
fake = generator(noise)
""",
        expect="S01",
        must=("100", "128"),
        must_not=("flatten",),
        fix="latent_dim = 100 (the generator's input width)",
    ),
    # TypeError: Tensors in list passed to 'values' of 'ConcatV2' Op have types [uint8,
    # float32] that don't all match.
    Case(
        name="f29_gan_concat_uint8_real_with_float_fake",
        family=FAMILY,
        code="""
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__()
        self.g, self.d = g, d
    def compile(self, d_opt, loss_fn):
        super().compile()
        self.d_opt, self.loss_fn = d_opt, loss_fn
    def train_step(self, real):
        n = tf.shape(real)[0]
        fake = self.g(tf.random.normal((n, 4)))
        x = tf.concat([real, fake], axis=0)
        y = tf.concat([tf.ones((n, 1)), tf.zeros((n, 1))], axis=0)
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.d(x))
        grads = tape.gradient(loss, self.d.trainable_weights)
        self.d_opt.apply_gradients(zip(grads, self.d.trainable_weights))
        return {"d_loss": loss}
g = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(16), keras.layers.Reshape((4, 4, 1))])
d = keras.Sequential([keras.Input(shape=(4, 4, 1)), keras.layers.Flatten(), keras.layers.Dense(1)])
images = np.random.randint(0, 256, size=(16, 4, 4, 1)).astype("uint8")
gan = GAN(g, d)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(images, batch_size=8, epochs=1, verbose=0)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="images.astype('float32') / 255 (or tf.cast(real, tf.float32) in train_step)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__ConcatV2_N_2_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} ConcatOp : Ranks of all input tensors should match:
    # shape[0] = [8,28,28,1] vs. shape[1] = [8,784] [Op:ConcatV2] name: concat
    Case(
        name="f29_gan_flat_generator_output_concat_images",
        family=FAMILY,
        code="""
real = np.random.rand(8, 28, 28, 1).astype("float32")
generator = keras.Sequential([
    keras.Input(shape=(16,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(784, activation="sigmoid"),
])
fake = generator(tf.random.normal((8, 16)))
batch = tf.concat([real, fake], axis=0)
""",
        expect="S07",
        must=("concat", "784"),
        must_not=("axis=1",),
        fix="end the generator with keras.layers.Reshape((28, 28, 1))",
    ),
    # InvalidArgumentError: Graph execution error:
    # (Detected at node gradient_tape/binary_crossentropy/logistic_loss/mul/
    # BroadcastGradientArgs: Incompatible shapes: [12,1] vs. [16,1], the last batch of 4)
    Case(
        name="f29_gan_train_step_hardcoded_batch_size",
        family=FAMILY,
        code="""
class GAN(keras.Model):
    def __init__(self, g, d, batch_size):
        super().__init__()
        self.g, self.d, self.batch_size = g, d, batch_size
    def compile(self, d_opt, loss_fn):
        super().compile()
        self.d_opt, self.loss_fn = d_opt, loss_fn
    def train_step(self, real):
        fake = self.g(tf.random.normal((self.batch_size, 4)))
        x = tf.concat([real, fake], 0)
        y = tf.concat([tf.ones((self.batch_size, 1)), tf.zeros((self.batch_size, 1))], 0)
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.d(x))
        grads = tape.gradient(loss, self.d.trainable_weights)
        self.d_opt.apply_gradients(zip(grads, self.d.trainable_weights))
        return {"d_loss": loss}
g = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(6)])
d = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(1)])
gan = GAN(g, d, batch_size=8)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(20, 6).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect="S07",
        must=("batch",),
        must_not=("reshape",),
        fix="n = tf.shape(real)[0] for the noise and the labels (or drop_remainder=True)",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f29_gan_fake_images_made_outside_tape",
        family=FAMILY,
        code="""
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__()
        self.g, self.d = g, d
    def compile(self, g_opt, loss_fn):
        super().compile()
        self.g_opt, self.loss_fn = g_opt, loss_fn
    def train_step(self, real):
        n = tf.shape(real)[0]
        fake = self.g(tf.random.normal((n, 4)))
        with tf.GradientTape() as tape:
            g_loss = self.loss_fn(tf.ones((n, 1)), self.d(fake))
        grads = tape.gradient(g_loss, self.g.trainable_weights)
        self.g_opt.apply_gradients(zip(grads, self.g.trainable_weights))
        return {"g_loss": g_loss}
g = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(6)])
d = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(1)])
gan = GAN(g, d)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(16, 6).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect="T03",
        must=("fake",),
        must_not=("argmax", "learning rate"),
        fix="generate fake = self.g(...) inside the `with tf.GradientTape()` block",
    ),
    # ValueError: Unknown variable: <Variable path=sequential/dense/kernel, shape=(4, 6),
    # dtype=float32>. This optimizer can only be called for the variables it was originally
    # built with. When working with a new set of variables, you should recreate a new
    # optimizer instance.
    Case(
        name="f29_gan_one_optimizer_for_both_networks",
        family=FAMILY,
        code="""
class WGAN(keras.Model):
    def __init__(self, g, d):
        super().__init__()
        self.g, self.d = g, d
    def train_step(self, real):
        n = tf.shape(real)[0]
        with tf.GradientTape() as tape:
            fake = self.g(tf.random.normal((n, 4)))
            d_loss = tf.reduce_mean(self.d(fake)) - tf.reduce_mean(self.d(real))
        grads = tape.gradient(d_loss, self.d.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.d.trainable_weights))
        with tf.GradientTape() as tape:
            g_loss = -tf.reduce_mean(self.d(self.g(tf.random.normal((n, 4)))))
        grads = tape.gradient(g_loss, self.g.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.g.trainable_weights))
        return {"d_loss": d_loss, "g_loss": g_loss}
g = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(6)])
d = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(1)])
gan = WGAN(g, d)
gan.compile(optimizer=keras.optimizers.Adam())
gan.fit(np.random.rand(16, 6).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("learning rate",),
        unexplained=(
            "the message says the optimizer only updates the variables it was built with "
            "and to create a new optimizer instance (one per network)"
        ),
        fix="a separate optimizer for the generator and for the discriminator",
    ),
    # ValueError: not enough values to unpack (expected 3, got 2)
    Case(
        name="f29_test_step_unpacks_sample_weight_always",
        family=FAMILY,
        code="""
class Regressor(keras.Model):
    def test_step(self, data):
        x, y, sample_weight = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        return {"loss": loss}

inp = keras.Input(shape=(4,))
model = Regressor(inp, keras.layers.Dense(1)(inp))
model.compile("adam", "mse")
x_val = np.random.rand(8, 4).astype("float32")
y_val = np.random.rand(8, 1).astype("float32")
model.evaluate(x_val, y_val, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("reshape",),
        fix="x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)",
    ),
]
