"""Family: custom ``train_step``s and GANs (generator, discriminator, their optimizers).

The APIs and their documented contract (Keras guide "Customizing what happens in fit()",
``keras.Model.train_step``/``test_step``/``compute_loss``/``metrics``):

- ``fit`` calls ``train_step(self, data)`` once per batch inside a ``tf.function``.  ``data``
  is exactly what the dataset yields (or what ``fit`` builds from its arguments): a single
  tensor when only ``x`` is given (a GAN fed real images only), a tuple ``(x, y)`` or
  ``(x, y, sample_weight)``, or a dict when a ``tf.data`` element is a dict.  Unpacking
  ``x, y = data`` therefore depends on that structure: a single batch tensor cannot be unpacked
  in graph mode ("Iterating over a symbolic tf.Tensor is not allowed"), a dict unpacks into its
  KEYS (strings), and ``x, y, sw = data`` fails when no ``sample_weight`` was passed.
  ``keras.utils.unpack_x_y_sample_weight(data)`` handles all tuple forms.
- ``train_step`` returns a dict mapping metric names to scalar tensors (``tracker.result()``).
  Metric trackers (``keras.metrics.Mean(name=...)``) hold variables: they are created ONCE in
  ``__init__`` and listed by the ``metrics`` property (so they are reset every epoch); creating
  one inside ``train_step`` creates variables on every trace ("tf.function only supports
  singleton tf.Variables created on the first call").
- Keras 3: ``self.compute_loss(x, y, y_pred, sample_weight, training)`` replaces the deprecated
  ``self.compiled_loss``; with no ``loss`` given to ``compile`` it raises "No loss to compute".
- GANs (keras.io DCGAN/WGAN examples): ``compile`` is overridden to take two optimizers and a
  loss function and must call ``super().compile()``.  Each sub-model gets its OWN optimizer: a
  Keras 3 optimizer is built for the variables of its first ``apply_gradients`` and refuses
  others ("Unknown variable ... This optimizer can only be called for the variables it was
  originally built with").  Latent vectors are sampled with
  ``tf.random.normal((batch_size, latent_dim))`` where ``latent_dim`` is the generator's input
  width and ``batch_size = tf.shape(real_images)[0]`` (the last batch may be smaller: a Python
  constant hard-codes the batch).  Real and fake batches are concatenated on axis 0 with
  ``tf.concat``, which needs equal ranks, equal non-batch shapes and equal dtypes (real images
  read as ``uint8`` must be cast/scaled to float32 first); real/fake labels are
  ``ones``/``zeros`` of shape ``(batch, 1)`` matching the discriminator's output.  Gradients
  only flow through computations recorded INSIDE ``with tf.GradientTape()``: running the
  generator before the tape opens leaves every generator gradient ``None`` ("No gradients
  provided for any variable").

Evidence a diagnosis needs: the structure of ``data`` that reached ``train_step`` (single
tensor, tuple of 2, dict) versus the unpacking line; the generator's input width versus the
sampled latent size; the batch sizes on both sides of a shape mismatch (full batch versus the
last, smaller one) and where the constant came from; the dtypes of the real and the generated
batch; which forward pass ran outside the tape; where a metric variable was created; which
optimizer received which model's variables.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "gans_and_custom_train_steps"

_MODELS = """
latent_dim = 8
generator = keras.Sequential([keras.Input(shape=(latent_dim,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(28 * 28, activation="sigmoid"), keras.layers.Reshape((28, 28, 1))])
discriminator = keras.Sequential([keras.Input(shape=(28, 28, 1)), keras.layers.Flatten(), keras.layers.Dense(1)])
"""

CASES = [
    # OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed. ...
    Case(
        name="f28_gan_train_step_unpacks_images_only_data",
        family=FAMILY,
        code=_MODELS
        + """
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__(); self.g, self.d = g, d
    def compile(self, d_opt, g_opt, loss_fn):
        super().compile(); self.d_opt, self.g_opt, self.loss_fn = d_opt, g_opt, loss_fn
    def train_step(self, data):
        real, _ = data
        z = tf.random.normal((tf.shape(real)[0], latent_dim))
        with tf.GradientTape() as tape:
            loss = self.loss_fn(tf.ones((tf.shape(real)[0], 1)), self.d(self.g(z)))
        grads = tape.gradient(loss, self.g.trainable_weights)
        self.g_opt.apply_gradients(zip(grads, self.g.trainable_weights))
        return {"g_loss": loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(), keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(32, 28, 28, 1).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect="S12",
        must=("unpack",),
        must_not=("tf.cond", "run_eagerly"),
        fix="real = data (fit got only images, no y)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (expected axis -1 of input shape to have value 8, but received input with shape (8, 100))
    Case(
        name="f28_gan_latent_noise_wrong_width",
        family=FAMILY,
        code=_MODELS
        + """
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__(); self.g, self.d = g, d
    def compile(self, g_opt, loss_fn):
        super().compile(); self.g_opt, self.loss_fn = g_opt, loss_fn
    def train_step(self, real):
        z = tf.random.normal((tf.shape(real)[0], 100))
        with tf.GradientTape() as tape:
            loss = self.loss_fn(tf.ones((tf.shape(real)[0], 1)), self.d(self.g(z)))
        grads = tape.gradient(loss, self.g.trainable_weights)
        self.g_opt.apply_gradients(zip(grads, self.g.trainable_weights))
        return {"g_loss": loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(32, 28, 28, 1).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect="S01",
        must=("100",),
        must_not=("flatten",),
        fix="sample z with shape (batch, latent_dim) = (batch, 8)",
    ),
    # InvalidArgumentError: Graph execution error:  (Incompatible shapes: [14,1] vs. [16,1])
    Case(
        name="f28_gan_labels_hardcode_batch_size",
        family=FAMILY,
        code=_MODELS
        + """
batch_size = 8
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__(); self.g, self.d = g, d
    def compile(self, d_opt, loss_fn):
        super().compile(); self.d_opt, self.loss_fn = d_opt, loss_fn
    def train_step(self, real):
        fake = self.g(tf.random.normal((batch_size, latent_dim)))
        both = tf.concat([fake, real], axis=0)
        labels = tf.concat([tf.zeros((batch_size, 1)), tf.ones((batch_size, 1))], axis=0)
        with tf.GradientTape() as tape:
            loss = self.loss_fn(labels, self.d(both))
        grads = tape.gradient(loss, self.d.trainable_weights)
        self.d_opt.apply_gradients(zip(grads, self.d.trainable_weights))
        return {"d_loss": loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(30, 28, 28, 1).astype("float32"), batch_size=batch_size, epochs=1, verbose=0)
""",
        expect="S07",
        must=("tf.shape",),
        must_not=("from_logits",),
        fix="batch = tf.shape(real)[0] for the noise and the labels",
    ),
    # ValueError: Unknown variable: <Variable path=sequential/dense/kernel, shape=(8, 16), dtype=float32>. This optimizer can only be called for the variables it was originally built with. ...
    Case(
        name="f28_gan_single_optimizer_for_both_models",
        family=FAMILY,
        code=_MODELS
        + """
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__(); self.g, self.d = g, d
    def compile(self, opt, loss_fn):
        super().compile(); self.opt, self.loss_fn = opt, loss_fn
    def train_step(self, real):
        n = tf.shape(real)[0]
        z = tf.random.normal((n, latent_dim))
        with tf.GradientTape() as d_tape:
            d_loss = self.loss_fn(tf.ones((n, 1)), self.d(real)) + self.loss_fn(tf.zeros((n, 1)), self.d(self.g(z)))
        self.opt.apply_gradients(zip(d_tape.gradient(d_loss, self.d.trainable_weights), self.d.trainable_weights))
        with tf.GradientTape() as g_tape:
            g_loss = self.loss_fn(tf.ones((n, 1)), self.d(self.g(z)))
        self.opt.apply_gradients(zip(g_tape.gradient(g_loss, self.g.trainable_weights), self.g.trainable_weights))
        return {"d_loss": d_loss, "g_loss": g_loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(1e-4), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(32, 28, 28, 1).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect=None,
        unexplained=(
            "the message says the optimizer can only update the variables it was built with and "
            "that a new set of variables needs a new optimizer instance (one per model)"
        ),
        fix="a d_optimizer and a g_optimizer",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f28_gan_generator_called_before_tape",
        family=FAMILY,
        code=_MODELS
        + """
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__(); self.g, self.d = g, d
    def compile(self, g_opt, loss_fn):
        super().compile(); self.g_opt, self.loss_fn = g_opt, loss_fn
    def train_step(self, real):
        n = tf.shape(real)[0]
        fake = self.g(tf.random.normal((n, latent_dim)))
        with tf.GradientTape() as tape:
            g_loss = self.loss_fn(tf.ones((n, 1)), self.d(fake))
        grads = tape.gradient(g_loss, self.g.trainable_weights)
        self.g_opt.apply_gradients(zip(grads, self.g.trainable_weights))
        return {"g_loss": g_loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
gan.fit(np.random.rand(32, 28, 28, 1).astype("float32"), batch_size=8, epochs=1, verbose=0)
""",
        expect="T03",
        must=("tape",),
        must_not=("argmax", "not differentiable"),
        fix="generate the fake images inside the `with tf.GradientTape()` block",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call. ...
    Case(
        name="f28_mean_tracker_created_inside_train_step",
        family=FAMILY,
        code="""
class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        tracker = keras.metrics.Mean(name="loss")
        with tf.GradientTape() as tape:
            loss = keras.ops.mean((self(x, training=True) - y) ** 2)
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        tracker.update_state(loss)
        return {"loss": tracker.result()}
inp = keras.Input(shape=(4,))
model = Regressor(inp, keras.layers.Dense(1)(inp))
model.compile(optimizer="adam")
model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        expect="T03",
        must=("mean",),
        must_not=("run_eagerly",),
        fix="create the Mean tracker once in __init__ and list it in the metrics property",
    ),
    # ValueError: Inputs to a layer should be tensors. Got 'features' (of type <class 'str'>) as input for layer 'regressor'.
    Case(
        name="f28_train_step_unpacks_dict_element",
        family=FAMILY,
        code="""
class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.compute_loss(y=y, y_pred=self(x, training=True))
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": loss}
inp = keras.Input(shape=(4,), name="features")
model = Regressor(inp, keras.layers.Dense(1)(inp))
model.compile(optimizer="adam", loss="mse")
table = {"features": np.random.rand(16, 4).astype("float32"), "target": np.random.rand(16, 1).astype("float32")}
ds = tf.data.Dataset.from_tensor_slices(table).batch(4)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("dict",),
        must_not=("convert_to_tensor",),
        fix="map the dict to a tuple: ds.map(lambda d: (d['features'], d['target']))",
    ),
    # TypeError: Tensors in list passed to 'values' of 'ConcatV2' Op have types [float32, uint8] that don't all match.
    Case(
        name="f28_gan_uint8_real_images_concat_with_fakes",
        family=FAMILY,
        code=_MODELS
        + """
class GAN(keras.Model):
    def __init__(self, g, d):
        super().__init__(); self.g, self.d = g, d
    def compile(self, d_opt, loss_fn):
        super().compile(); self.d_opt, self.loss_fn = d_opt, loss_fn
    def train_step(self, real):
        n = tf.shape(real)[0]
        fake = self.g(tf.random.normal((n, latent_dim)))
        both = tf.concat([fake, real], axis=0)
        labels = tf.concat([tf.zeros((n, 1)), tf.ones((n, 1))], axis=0)
        with tf.GradientTape() as tape:
            loss = self.loss_fn(labels, self.d(both))
        self.d_opt.apply_gradients(zip(tape.gradient(loss, self.d.trainable_weights), self.d.trainable_weights))
        return {"d_loss": loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(), keras.losses.BinaryCrossentropy(from_logits=True))
images = np.random.randint(0, 256, size=(32, 28, 28, 1)).astype("uint8")
gan.fit(tf.data.Dataset.from_tensor_slices(images).batch(8), epochs=1, verbose=0)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="ds.map(lambda x: tf.cast(x, 'float32') / 255.0) before fit",
    ),
]
