"""Family: autoencoders and variational autoencoders (VAEs) in Keras 3.

API: an encoder/decoder pair built from ``Conv2D``/``MaxPooling2D``/``UpSampling2D``/
``Conv2DTranspose``/``Dense``/``Reshape`` and joined with ``keras.Model(inputs,
outputs)`` or ``keras.Sequential``; ``fit(x, x)`` (or ``fit(noisy, clean)`` for a
denoiser, or a ``tf.data`` pipeline that maps an image to a ``(noisy, clean)`` pair);
a ``Sampling`` layer for the reparameterization trick (``z_mean + exp(0.5 *
z_log_var) * eps`` with ``eps = keras.random.normal(shape)`` / ``tf.random.normal``);
the KL term added in a ``keras.Model`` subclass's ``train_step`` (metric trackers,
``self.add_loss`` inside a layer); the parts used on their own after training
(``encoder.predict(x)``, ``decoder.predict(z)``).  Contract (from the Keras guides
and layer docs): each ``MaxPooling2D(2)``/``Conv2D(strides=2)`` maps a size ``n`` to
``ceil(n/2)`` with ``padding="same"`` and ``floor((n - k)/s) + 1`` with ``"valid"``;
``UpSampling2D(2)`` and ``Conv2DTranspose(strides=2, padding="same")`` double it,
``Conv2DTranspose`` with ``"valid"`` gives ``(n - 1) * s + k`` (``output_padding``
adds to it); the reconstruction must come back to the input's height, width and
channels, since the loss compares it element by element with the target;
``Reshape(target_shape)`` needs the product of ``target_shape`` to equal the incoming
feature count (the batch axis excluded); ``eps`` must follow the batch at run time
(``keras.ops.shape(z_mean)``), never a fixed batch size; in Keras 3 a TensorFlow op
cannot take a ``KerasTensor`` of the functional graph (only ``keras.ops`` and layers
can); ``fit(x, x)`` hands ``train_step`` the tuple ``(x, y)``; ``predict`` takes a
batch, so one image or one latent vector needs its batch axis; a VAE encoder with
three outputs returns a list ``[z_mean, z_log_var, z]``; arithmetic in a
``Dataset.map`` needs one dtype (images are often ``uint8``).  Evidence a diagnosis
can read at the failure: the model's layers with their ``strides``, ``padding``,
``pool_size``, ``filters``/``units``, ``target_shape`` and output shapes, the input
and target arrays (shape, dtype, value range), the op and its name scope (a layer of
the model, ``compile_loss``), the user's cell (the ``Sampling`` layer's source, the
``train_step`` source, the names of the arrays passed to ``fit``/``predict``), and the
dataset's element spec.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "autoencoders"

CASES = [
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(16, 28, 28, 1), output.shape=(16, 32, 32, 1)
    # (three "same" poolings take 28 -> 14 -> 7 -> 4, three upsamplings give 32)
    Case(
        "ae_pool_upsample_28_becomes_32",
        FAMILY,
        """
x_train = np.random.rand(32, 28, 28, 1).astype("float32")
inp = keras.Input((28, 28, 1))
x = keras.layers.Conv2D(16, 3, activation="relu", padding="same")(inp)
x = keras.layers.MaxPooling2D(2, padding="same")(x)
x = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(x)
x = keras.layers.MaxPooling2D(2, padding="same")(x)
x = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(x)
encoded = keras.layers.MaxPooling2D(2, padding="same")(x)
x = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(encoded)
x = keras.layers.UpSampling2D(2)(x)
x = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(x)
x = keras.layers.UpSampling2D(2)(x)
x = keras.layers.Conv2D(16, 3, activation="relu", padding="same")(x)
x = keras.layers.UpSampling2D(2)(x)
decoded = keras.layers.Conv2D(1, 3, activation="sigmoid", padding="same")(x)
autoencoder = keras.Model(inp, decoded)
autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
autoencoder.fit(x_train, x_train, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("28", "32"),
        must_not=("batch axis", "output_padding", "sparse"),
        fix="pool twice, or crop back to 28",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(8, 32, 32, 3), output.shape=(8, 32, 32, 1)
    # (RGB images, the last decoder conv has filters=1)
    Case(
        "ae_rgb_decoder_single_channel",
        FAMILY,
        """
images = np.random.rand(24, 32, 32, 3).astype("float32")  # CIFAR-like RGB
inp = keras.Input((32, 32, 3))
x = keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(inp)
x = keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(x)
x = keras.layers.Conv2DTranspose(64, 3, strides=2, padding="same", activation="relu")(x)
x = keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(x)
out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid", name="reconstruction")(x)
autoencoder = keras.Model(inp, out)
autoencoder.compile("adam", loss="binary_crossentropy")
autoencoder.fit(images, images, epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("reconstruction",),
        must_not=("strides", "output_padding", "batch axis"),
        fix="filters=3 in the last Conv2D",
    ),
    # ValueError: Exception encountered when calling Reshape.call().
    # The total size of the tensor must be unchanged. Received: input_shape=(1568,),
    # target_shape=(7, 7, 64)
    Case(
        "ae_dense_reshape_product_mismatch",
        FAMILY,
        """
latent_dim = 16
decoder = keras.Sequential([
    keras.Input((latent_dim,)),
    keras.layers.Dense(7 * 7 * 32, activation="relu"),
    keras.layers.Reshape((7, 7, 64)),
    keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid"),
], name="decoder")
""",
        "S01",
        must=("1568",),
        must_not=("padding", "strides"),
        fix="Dense(7 * 7 * 64) or Reshape((7, 7, 32))",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (28, 28, 1) and
    # (27, 27, 1)
    # (residual denoiser: valid strided convs 28 -> 13 -> 6, valid transposes 6 -> 13 -> 27)
    Case(
        "ae_residual_denoiser_transpose_27",
        FAMILY,
        """
inp = keras.Input((28, 28, 1), name="noisy")
x = keras.layers.Conv2D(32, 3, strides=2, activation="relu")(inp)
x = keras.layers.Conv2D(64, 3, strides=2, activation="relu")(x)
x = keras.layers.Conv2DTranspose(64, 3, strides=2, activation="relu")(x)
x = keras.layers.Conv2DTranspose(32, 3, strides=2, activation="relu")(x)
residual = keras.layers.Conv2D(1, 3, padding="same", name="residual")(x)
out = keras.layers.Add(name="denoised")([inp, residual])
denoiser = keras.Model(inp, out)
""",
        "S01",
        must=("denoised", "27"),
        must_not=("pool", "upsampling", "batch axis"),
        fix='padding="same" (or output_padding=1 on the last Conv2DTranspose)',
    ),
    # InvalidArgumentError: Graph execution error: ... Incompatible shapes: [18,2] vs.
    # [32,2] [[{{node gradient_tape/functional_1/sampling_1/mul_1/BroadcastGradientArgs}}]]
    # (50 rows, batch_size=32: the last batch has 18 rows, eps is always 32)
    Case(
        "ae_sampling_hardcoded_batch_size",
        FAMILY,
        """
latent_dim = 2
batch_size = 32
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = tf.random.normal(shape=(batch_size, latent_dim))
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon
inp = keras.Input((20,))
h = keras.layers.Dense(16, activation="relu")(inp)
z_mean = keras.layers.Dense(latent_dim)(h)
z_log_var = keras.layers.Dense(latent_dim)(h)
z = Sampling(name="sampling")([z_mean, z_log_var])
out = keras.layers.Dense(20)(keras.layers.Dense(16, activation="relu")(z))
vae = keras.Model(inp, out)
vae.compile("adam", "mse")
data = np.random.rand(50, 20).astype("float32")
vae.fit(data, data, epochs=1, batch_size=batch_size, verbose=0)
""",
        "S07",
        must=("sampling", "32"),
        must_not=("padding", "pool", "labels"),
        fix="eps shape from tf.shape(z_mean)",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A
    # KerasTensor is a symbolic placeholder for a shape and dtype, ...
    Case(
        "ae_kl_tf_ops_on_keras_tensors",
        FAMILY,
        """
latent_dim = 2
inputs = keras.Input((28, 28, 1))
h = keras.layers.Flatten()(inputs)
h = keras.layers.Dense(64, activation="relu")(h)
z_mean = keras.layers.Dense(latent_dim, name="z_mean")(h)
z_log_var = keras.layers.Dense(latent_dim, name="z_log_var")(h)
kl_loss = -0.5 * tf.reduce_mean(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
""",
        None,
        unexplained=(
            "Keras' message says a KerasTensor cannot go into a TensorFlow function and "
            "shows the fix: keras.ops or wrap the op in a layer"
        ),
        fix="compute the KL in a layer or in train_step",
    ),
    # ValueError: Layer "encoder" expects 1 named input(s) with keys ['input_layer'], but
    # it received 2 input tensors. Pass inputs as a dict, e.g. `layer({'input_layer': ...})`.
    # (fit(x_train, x_train) hands train_step the tuple (x, y) as `data`)
    Case(
        "ae_vae_train_step_fit_x_x",
        FAMILY,
        """
latent_dim = 2
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(keras.ops.shape(z_mean))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * eps
enc_in = keras.Input((28, 28, 1))
h = keras.layers.Dense(32, activation="relu")(keras.layers.Flatten()(enc_in))
z_mean = keras.layers.Dense(latent_dim)(h)
z_log_var = keras.layers.Dense(latent_dim)(h)
encoder = keras.Model(enc_in, [z_mean, z_log_var, Sampling()([z_mean, z_log_var])], name="encoder")
dec_in = keras.Input((latent_dim,))
h = keras.layers.Dense(28 * 28, activation="sigmoid")(dec_in)
decoder = keras.Model(dec_in, keras.layers.Reshape((28, 28, 1))(h), name="decoder")

class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder, self.decoder = encoder, decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker]

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            rec = tf.reduce_mean(tf.reduce_sum(
                keras.losses.binary_crossentropy(data, reconstruction), axis=(1, 2)))
            kl = -0.5 * tf.reduce_mean(tf.reduce_sum(
                1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var), axis=1))
            total = rec + kl
        grads = tape.gradient(total, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total)
        return {"loss": self.total_loss_tracker.result()}

x_train = np.random.rand(32, 28, 28, 1).astype("float32")
vae = VAE(encoder, decoder)
vae.compile(optimizer="adam")
vae.fit(x_train, x_train, epochs=1, batch_size=16, verbose=0)
""",
        "S12",
        must=("train_step",),
        must_not=("a dict",),
        fix="vae.fit(x_train), or unpack x, _ = data",
    ),
    # ValueError: Layer "decoder" expects 1 named input(s) with keys ['input_layer_1'], but
    # it received 3 input tensors. Pass inputs as a dict, e.g. `layer({'input_layer_1': ...})`.
    # (encoder.predict returns the list [z_mean, z_log_var, z])
    Case(
        "ae_decoder_predict_encoder_outputs",
        FAMILY,
        """
latent_dim = 2
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(keras.ops.shape(z_mean))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * eps
enc_in = keras.Input((784,))
h = keras.layers.Dense(32, activation="relu")(enc_in)
z_mean = keras.layers.Dense(latent_dim, name="z_mean")(h)
z_log_var = keras.layers.Dense(latent_dim, name="z_log_var")(h)
encoder = keras.Model(enc_in, [z_mean, z_log_var, Sampling()([z_mean, z_log_var])], name="encoder")
dec_in = keras.Input((latent_dim,))
h = keras.layers.Dense(32, activation="relu")(dec_in)
decoder = keras.Model(dec_in, keras.layers.Dense(784, activation="sigmoid")(h), name="decoder")
x_test = np.random.rand(16, 784).astype("float32")
reconstructed = decoder.predict(encoder.predict(x_test, verbose=0), verbose=0)
""",
        "S12",
        must=("encoder",),
        must_not=("a dict",),
        fix="take one output: encoder.predict(x)[2] (or z_mean)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Invalid input shape for input Tensor("data:0", shape=(2,), dtype=float32) with name
    # 'keras_tensor' and path ''. Expected shape (None, 2), but input has incompatible shape (2,)
    Case(
        "ae_latent_sample_without_batch_axis",
        FAMILY,
        """
latent_dim = 2
decoder = keras.Sequential([
    keras.Input((latent_dim,)),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(784, activation="sigmoid"),
    keras.layers.Reshape((28, 28)),
], name="decoder")
z_sample = np.array([0.5, -1.2], dtype="float32")
digit = decoder.predict(z_sample, verbose=0)
""",
        "S12",
        must=("z_sample",),
        must_not=("units", "flatten", "a dict"),
        fix="decoder.predict(z_sample[None])",
    ),
    # TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type uint8
    # of argument 'x'.
    # (denoising pairs built in a Dataset.map from uint8 images)
    Case(
        "ae_uint8_noise_in_map",
        FAMILY,
        """
clean = np.random.randint(0, 256, size=(40, 28, 28, 1), dtype=np.uint8)  # images as loaded
def add_noise(img):
    noisy = img + tf.random.normal(tf.shape(img), stddev=25.0)
    return noisy, img
train_ds = tf.data.Dataset.from_tensor_slices(clean).map(add_noise).batch(8)
denoiser = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    keras.layers.Conv2D(1, 3, padding="same"),
])
denoiser.compile("adam", "mse")
denoiser.fit(train_ds, epochs=1, verbose=0)
""",
        "S11",
        must=("add_noise", "uint8"),
        must_not=("float64",),
        fix="tf.cast(img, tf.float32) first in add_noise",
    ),
]
