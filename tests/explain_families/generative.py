"""Family: generative models (GANs, conditional GANs, WGAN-GP, VAEs, autoencoders) in Keras 3.

API: a generator and a discriminator (critic) built as ``keras.Sequential`` or
functional ``keras.Model``; a GAN as a ``keras.Model`` subclass that overrides
``compile(d_optimizer, g_optimizer)`` and ``train_step(real)`` (noise from
``tf.random.normal((batch_size, latent_dim))``, ``tf.concat`` of generated and real
images with labels ``tf.ones``/``tf.zeros``, one ``tf.GradientTape`` per model, each
optimizer's ``apply``/``apply_gradients`` on that model's ``trainable_weights``); the
Keras 2 style loop with ``discriminator.train_on_batch(X, y)`` on a stacked batch of
real and fake rows; a conditional generator that joins noise with
``Embedding(num_classes, d)(label)`` through ``Concatenate``; a WGAN-GP gradient
penalty taken with an inner ``GradientTape`` w.r.t. interpolated images; a VAE with a
``Sampling`` layer (``z_mean + exp(0.5 * z_log_var) * eps``), an encoder returning
``[z_mean, z_log_var, z]``, a decoder taking ``(latent_dim,)``, the reconstruction and
KL terms written in ``train_step``; an LSTM autoencoder (``LSTM`` ->
``RepeatVector(timesteps)`` -> ``LSTM(return_sequences=True)`` ->
``TimeDistributed(Dense(n_features))``).  Contract (from the Keras guides "DCGAN",
"Conditional GAN", "WGAN-GP", "Variational AutoEncoder" and the layer docs): inside
``train_step`` (traced into a ``tf.function``) and while a functional model is being
built, a tensor's static batch size is ``None``; a shape used for random noise must
come from ``tf.shape``/``keras.ops.shape``; ``tf.concat`` of fakes and reals needs
the generator's output shape to equal the real images' shape on every axis but the
batch axis; the labels must have one row per row of the discriminator's batch; a
Keras 3 optimizer is built for the variables of its first ``apply`` and refuses any
other set, so a GAN needs one optimizer instance per model; a tape records only
trainable variables unless it is told to ``watch`` a tensor; ``Concatenate`` joins
tensors of the same rank (an ``Embedding`` on an ``Input((1,))`` gives rank 3);
a nested model checks its input against its ``Input`` shape (a decoder's ``Input`` must
be ``(latent_dim,)``); ``RepeatVector(n)`` sets the length of the reconstructed
sequence, which the loss compares with the input's; ``binary_crossentropy`` reduces the
last axis, so on flat ``(B, 784)`` data it returns ``(B,)`` and an image VAE's
``sum(axis=(1, 2))`` has no axes to sum; a ``Sequential`` without an ``Input`` has no
shapes until it is called (``output_shape``, ``summary`` shapes, ``load_weights``).
Evidence a diagnosis could read at the failure: the models' names, input and output
shapes and layers (``strides``, ``padding``, ``units``, ``RepeatVector.n``,
``Embedding`` output rank), the latent size and the noise's shape, the ``train_step``
source (the line that reads ``.shape``, the ``tf.concat``, the labels, the tapes and
which variables each optimizer is given), the optimizers' identity, the data's shape,
and the op and its name scope (``compile_loss``, ``concat``, ``Sum``).

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "generative"

CASES = [
    # TypeError: Exception encountered when calling Sampling.call().
    # (inner message: "Could not automatically infer the output shape / dtype of 'sampling'
    # ... Failed to convert elements of (None, 2) to Tensor.")
    # (the Sampling layer reads the static shape of z_mean, whose batch is None)
    Case(
        "gen_vae_sampling_static_batch_none",
        FAMILY,
        """
latent_dim = 2
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = z_mean.shape[0]
        dim = z_mean.shape[1]
        epsilon = tf.random.normal(shape=(batch, dim))
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon
encoder_inputs = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(encoder_inputs)
h = keras.layers.Dense(16, activation="relu")(keras.layers.Flatten()(h))
z_mean = keras.layers.Dense(latent_dim, name="z_mean")(h)
z_log_var = keras.layers.Dense(latent_dim, name="z_log_var")(h)
z = Sampling(name="sampling")([z_mean, z_log_var])
encoder = keras.Model(encoder_inputs, [z_mean, z_log_var, z], name="encoder")
""",
        "T02",
        must=("sampling", "z_mean"),
        must_not=("compute_output_shape", "compute_output_spec"),
        fix="eps shape from keras.ops.shape(z_mean)",
    ),
    # ValueError: Dimension 0 in both shapes must be equal, but are 56 and 28. Shapes are
    # [56,56,1] and [28,28,1]. for '{{node concat}} = ConcatV2[N=2, T=DT_FLOAT, ...]
    # (generator_1/conv2d_transpose_2_1/Tanh, data, concat/axis)' with input shapes:
    # [16,56,56,1], [16,28,28,1], []
    # (DCGAN generator: 7 -> 14 -> 28 -> 56 with three strided transposes; reals are 28x28)
    Case(
        "gen_dcgan_concat_fake_56_real_28",
        FAMILY,
        """
latent_dim = 32
generator = keras.Sequential([
    keras.Input((latent_dim,)),
    keras.layers.Dense(7 * 7 * 16, activation="relu"),
    keras.layers.Reshape((7, 7, 16)),
    keras.layers.Conv2DTranspose(16, 4, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(8, 4, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(1, 4, strides=2, padding="same", activation="tanh"),
], name="generator")
discriminator = keras.Sequential([
    keras.Input((None, None, 1)),
    keras.layers.Conv2D(8, 3, strides=2, padding="same"),
    keras.layers.LeakyReLU(0.2),
    keras.layers.GlobalMaxPooling2D(),
    keras.layers.Dense(1),
], name="discriminator")
class GAN(keras.Model):
    def __init__(self, generator, discriminator):
        super().__init__()
        self.generator = generator
        self.discriminator = discriminator
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    def compile(self, d_optimizer, g_optimizer):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
    def train_step(self, real_images):
        batch_size = tf.shape(real_images)[0]
        noise = tf.random.normal((batch_size, latent_dim))
        generated_images = self.generator(noise)
        combined_images = tf.concat([generated_images, real_images], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        with tf.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined_images))
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))
        return {"d_loss": d_loss}
gan = GAN(generator, discriminator)
gan.compile(keras.optimizers.Adam(2e-4), keras.optimizers.Adam(2e-4))
digits = (np.random.rand(32, 28, 28, 1).astype("float32") - 0.5) * 2
gan.fit(digits, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("generator", "56"),
        must_not=("drop_remainder", "output_padding"),
        fix="two strided Conv2DTranspose (7 -> 14 -> 28)",
    ),
    # ValueError: Unknown variable: <Variable path=generator/dense/kernel, shape=(16, 32),
    # dtype=float32>. This optimizer can only be called for the variables it was originally
    # built with. When working with a new set of variables, you should recreate a new
    # optimizer instance.
    # (one Adam instance passed as both d_optimizer and g_optimizer)
    Case(
        "gen_gan_one_optimizer_for_both_models",
        FAMILY,
        """
latent_dim = 16
generator = keras.Sequential([keras.Input((latent_dim,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(2)], name="generator")
discriminator = keras.Sequential([keras.Input((2,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)], name="discriminator")
class GAN(keras.Model):
    def __init__(self, generator, discriminator):
        super().__init__()
        self.generator = generator
        self.discriminator = discriminator
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    def compile(self, d_optimizer, g_optimizer):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
    def train_step(self, real):
        batch_size = tf.shape(real)[0]
        noise = tf.random.normal((batch_size, latent_dim))
        with tf.GradientTape() as tape:
            fake = self.generator(noise)
            logits = self.discriminator(tf.concat([fake, real], axis=0))
            labels = tf.concat([tf.zeros((batch_size, 1)), tf.ones((batch_size, 1))], axis=0)
            d_loss = self.loss_fn(labels, logits)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))
        with tf.GradientTape() as tape:
            fake_logits = self.discriminator(self.generator(tf.random.normal((batch_size, latent_dim))))
            g_loss = self.loss_fn(tf.ones_like(fake_logits), fake_logits)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        return {"d_loss": d_loss, "g_loss": g_loss}
opt = keras.optimizers.Adam(learning_rate=1e-3)
gan = GAN(generator, discriminator)
gan.compile(d_optimizer=opt, g_optimizer=opt)
gan.fit(np.random.randn(64, 2).astype("float32"), epochs=1, batch_size=16, verbose=0)
""",
        None,
        unexplained=(
            "Keras' message names the variable and the fix: an optimizer is built for one set "
            "of variables, recreate a new optimizer instance (one per model)"
        ),
        fix="a separate Adam instance for g_optimizer",
    ),
    # ValueError: Tried to convert 'x' to a tensor and failed. Error: None values not supported.
    # (WGAN-GP: gp_tape never watches `interpolated`, a tensor, so the gradient is None)
    Case(
        "gen_wgan_gp_interpolated_not_watched",
        FAMILY,
        """
latent_dim = 8
generator = keras.Sequential([keras.Input((latent_dim,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)], name="generator")
critic = keras.Sequential([keras.Input((4,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)], name="critic")
class WGANGP(keras.Model):
    def __init__(self, generator, critic, gp_weight=10.0):
        super().__init__()
        self.generator, self.critic, self.gp_weight = generator, critic, gp_weight
    def compile(self, c_optimizer, g_optimizer):
        super().compile()
        self.c_optimizer, self.g_optimizer = c_optimizer, g_optimizer
    def gradient_penalty(self, real, fake):
        alpha = tf.random.uniform((tf.shape(real)[0], 1))
        interpolated = real + alpha * (fake - real)
        with tf.GradientTape() as gp_tape:
            pred = self.critic(interpolated, training=True)
        grads = gp_tape.gradient(pred, interpolated)
        norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=1))
        return tf.reduce_mean((norm - 1.0) ** 2)
    def train_step(self, real):
        noise = tf.random.normal((tf.shape(real)[0], latent_dim))
        with tf.GradientTape() as tape:
            fake = self.generator(noise, training=True)
            c_loss = tf.reduce_mean(self.critic(fake)) - tf.reduce_mean(self.critic(real))
            c_loss += self.gp_weight * self.gradient_penalty(real, fake)
        grads = tape.gradient(c_loss, self.critic.trainable_variables)
        self.c_optimizer.apply(grads, self.critic.trainable_variables)
        return {"c_loss": c_loss}
wgan = WGANGP(generator, critic)
wgan.compile(keras.optimizers.Adam(1e-4, beta_1=0.5), keras.optimizers.Adam(1e-4, beta_1=0.5))
wgan.fit(np.random.randn(48, 4).astype("float32"), epochs=1, batch_size=16, verbose=0)
""",
        "T03",
        must=("interpolated", "watch"),
        must_not=("persistent", "argmax"),
        fix="gp_tape.watch(interpolated) first in the tape",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 64), (None, 1, 50)]
    # (conditional generator: Embedding on an Input((1,)) label gives rank 3)
    Case(
        "gen_cgan_label_embedding_rank3_concat",
        FAMILY,
        """
latent_dim, num_classes = 64, 10
noise_in = keras.Input((latent_dim,), name="noise")
label_in = keras.Input((1,), dtype="int32", name="digit")
label_embedding = keras.layers.Embedding(num_classes, 50, name="label_embedding")(label_in)
h = keras.layers.Concatenate(name="noise_and_label")([noise_in, label_embedding])
h = keras.layers.Dense(7 * 7 * 32, activation="relu")(h)
h = keras.layers.Reshape((7, 7, 32))(h)
h = keras.layers.Conv2DTranspose(16, 4, strides=2, padding="same", activation="relu")(h)
img = keras.layers.Conv2DTranspose(1, 4, strides=2, padding="same", activation="tanh")(h)
generator = keras.Model([noise_in, label_in], img, name="cond_generator")
""",
        "S01",
        must=("label_embedding",),
        must_not=("expand_dims", "batch axis"),
        fix="Flatten() the label embedding before Concatenate",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(32, 1), output.shape=(64, 1)
    # (X stacks 32 real and 32 fake rows; y_dis has only batch_size rows)
    Case(
        "gen_gan_train_on_batch_labels_half",
        FAMILY,
        """
latent_dim, batch_size = 16, 32
generator = keras.Sequential([keras.Input((latent_dim,)), keras.layers.Dense(64, activation="relu"),
                              keras.layers.Dense(10, activation="tanh")], name="generator")
discriminator = keras.Sequential([keras.Input((10,)), keras.layers.Dense(64, activation="relu"),
                                  keras.layers.Dense(1, activation="sigmoid")], name="discriminator")
discriminator.compile(optimizer="adam", loss="binary_crossentropy")
X_train = np.random.uniform(-1, 1, (320, 10)).astype("float32")
real = X_train[np.random.randint(0, len(X_train), batch_size)]
fake = generator.predict(np.random.normal(size=(batch_size, latent_dim)), verbose=0)
X = np.concatenate([real, fake])
y_dis = np.ones((batch_size, 1)) * 0.9  # one-sided label smoothing
d_loss = discriminator.train_on_batch(X, y_dis)
""",
        "S12",
        must=("y_dis",),
        must_not=("sparse", "from_logits"),
        fix="y_dis with 2 * batch_size rows: 0.9 for real, 0 for fake",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (inner message: "Input 0 with name 'input_layer' of layer 'functional' is incompatible
    # with the layer: expected shape=(None, 32), found shape=(None, 16)")
    # (latent_dim = 16, but the decoder's Input was typed as (32,))
    Case(
        "gen_vae_decoder_input_32_latent_16",
        FAMILY,
        """
latent_dim = 16
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(keras.ops.shape(z_mean))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * eps
enc_in = keras.Input((64,), name="spectrum")
h = keras.layers.Dense(32, activation="relu")(enc_in)
z_mean = keras.layers.Dense(latent_dim, name="z_mean")(h)
z_log_var = keras.layers.Dense(latent_dim, name="z_log_var")(h)
z = Sampling(name="z")([z_mean, z_log_var])
encoder = keras.Model(enc_in, [z_mean, z_log_var, z], name="encoder")
decoder = keras.Sequential([
    keras.Input((32,)),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(64),
], name="decoder")
vae_out = decoder(encoder(enc_in)[2])
vae = keras.Model(enc_in, vae_out, name="vae")
""",
        "S01",
        must=("decoder", "32"),
        must_not=("batch axis", "flatten"),
        fix="keras.Input((latent_dim,)) in the decoder",
    ),
    # ValueError: Dimensions must be equal, but are 30 and 10 for '{{node compile_loss/mse/sub}}
    # = Sub[T=DT_FLOAT](data_1, lstm_autoencoder_1/time_distributed_1/transpose_1)' with input
    # shapes: [8,30,3], [8,10,3].
    # (RepeatVector(10) rebuilds 10 steps of a 30-step window)
    Case(
        "gen_lstm_ae_repeatvector_10_of_30",
        FAMILY,
        """
timesteps, n_features = 30, 3
windows = np.random.rand(40, timesteps, n_features).astype("float32")
model = keras.Sequential([
    keras.Input((timesteps, n_features)),
    keras.layers.LSTM(16),
    keras.layers.RepeatVector(10),
    keras.layers.LSTM(16, return_sequences=True),
    keras.layers.TimeDistributed(keras.layers.Dense(n_features)),
], name="lstm_autoencoder")
model.compile("adam", "mse")
model.fit(windows, windows, epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("repeat", "30"),
        must_not=("return_sequences", "batch axis"),
        fix="RepeatVector(timesteps)",
    ),
    # ValueError: Invalid reduction dimension 1 for input with 1 dimensions. for '{{node Sum}} =
    # Sum[T=DT_FLOAT, Tidx=DT_INT32, keep_dims=false](Mean, Sum/reduction_indices)' with input
    # shapes: [16], [2] and with computed input tensors: input[1] = <1 2>.
    # (the image VAE's sum over axis=(1, 2), kept for flat (B, 784) data: the BCE is already (B,))
    Case(
        "gen_vae_flat_bce_sum_axis_1_2",
        FAMILY,
        """
latent_dim = 2
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(keras.ops.shape(z_mean))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * eps
enc_in = keras.Input((784,))
h = keras.layers.Dense(64, activation="relu")(enc_in)
z_mean = keras.layers.Dense(latent_dim)(h)
z_log_var = keras.layers.Dense(latent_dim)(h)
encoder = keras.Model(enc_in, [z_mean, z_log_var, Sampling()([z_mean, z_log_var])], name="encoder")
dec_in = keras.Input((latent_dim,))
h = keras.layers.Dense(64, activation="relu")(dec_in)
decoder = keras.Model(dec_in, keras.layers.Dense(784, activation="sigmoid")(h), name="decoder")
class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder, self.decoder = encoder, decoder
    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = keras.ops.mean(keras.ops.sum(
                keras.losses.binary_crossentropy(data, reconstruction), axis=(1, 2)))
            kl_loss = -0.5 * (1 + z_log_var - keras.ops.square(z_mean) - keras.ops.exp(z_log_var))
            kl_loss = keras.ops.mean(keras.ops.sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": total_loss}
x_train = np.random.rand(64, 784).astype("float32")  # MNIST flattened to 784
vae = VAE(encoder, decoder)
vae.compile(optimizer=keras.optimizers.Adam())
vae.fit(x_train, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("reconstruction_loss",),
        must_not=("kl_loss", "sparse"),
        fix="drop the sum over axis=(1, 2) (BCE of (B, 784) is (B,))",
    ),
    # AttributeError: Sequential model 'generator' has no defined output shape yet.
    # (the generator has no keras.Input, so it has no shapes until it is called)
    Case(
        "gen_generator_without_input_output_shape",
        FAMILY,
        """
latent_dim = 8
generator = keras.Sequential([
    keras.layers.Dense(7 * 7 * 16, activation="relu"),
    keras.layers.Reshape((7, 7, 16)),
    keras.layers.Conv2DTranspose(8, 4, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(1, 4, strides=2, padding="same", activation="tanh"),
], name="generator")
discriminator = keras.Sequential([
    keras.Input(shape=generator.output_shape[1:]),
    keras.layers.Conv2D(16, 3, strides=2, padding="same"),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
], name="discriminator")
""",
        "S04",
        must=("generator",),
        must_not=("padding", "drop_remainder"),
        fix="keras.Input((latent_dim,)) first in the generator",
    ),
]
