"""Autoencoders and variational autoencoders.

The family
----------
An autoencoder is a model trained with its own input as the target, ``fit(x, x)``: an
encoder maps ``x`` to a bottleneck (a ``Dense(k)`` code or a small feature map) and a
decoder maps the code back to a tensor that the loss compares with ``x`` element by
element.  The contract that matters is therefore that the decoder's output has exactly the
shape of ``x`` (without the batch axis) and a value range the loss and the data agree on.

* ``Conv2D`` / ``MaxPooling2D`` shrink the spatial size: with ``padding="same"`` and stride
  ``s`` the size becomes ``ceil(n / s)`` (28 -> 14 -> 7 -> 4), with ``padding="valid"``
  ``floor((n - k) / s) + 1`` (``MaxPooling2D()`` of 7 is 3).
* ``UpSampling2D(size)`` multiplies the size by ``size`` exactly; ``Conv2DTranspose(k,
  strides=s)`` gives ``n * s`` with ``padding="same"`` and ``(n - 1) * s + k`` with
  ``padding="valid"`` (the default).  Odd sizes therefore do not come back: 28 -> 4 after three
  ``same`` poolings and 4 -> 32 after three upsamplings.
* ``Concatenate(axis=-1)`` (a U-Net skip connection) requires every other axis to match.
* Losses (``mse``, ``binary_crossentropy``) compare ``y_true = x`` with ``y_pred``; a
  decoder output of another shape fails inside the loss ("Arguments `target` and `output`
  must have the same shape", "Dimensions must be equal").
* A decoder reused as its own model: ``keras.Model(latent_input, ...)`` must re-apply every
  decoder layer in order; a ``Dense`` layer checks ``input_spec`` (its input's last axis
  equals the size it was built for).  A ``keras.Sequential`` without ``keras.Input`` has no
  inputs, outputs nor ``output_shape`` until it is built or called.
* Variational autoencoders: a sampling layer draws ``epsilon`` with
  ``keras.random.normal(shape)`` where ``shape`` must be concrete at run time, so the batch
  size comes from ``keras.ops.shape(z_mean)`` (dynamic), never ``z_mean.shape[0]``
  (``None`` while the functional graph is built).  The KL term joins the loss either through
  ``self.add_loss`` in a layer's ``call`` or in a custom ``train_step`` /
  ``compute_loss``.
* A custom ``train_step(self, data)`` receives what ``fit`` was given: ``fit(x)`` gives
  ``data = x`` (one tensor), ``fit(x, y)`` gives ``(x, y)``.  It runs inside a
  ``tf.function``; everything the gradient must flow through has to be computed inside the
  ``with tf.GradientTape()`` block.
* Saving: a ``.keras`` file stores the class name of a custom layer (``Sampling``);
  ``keras.models.load_model`` needs the class registered
  (``@keras.saving.register_keras_serializable()``) or passed in ``custom_objects``.

Evidence a diagnosis needs
--------------------------
The output shape of the decoder against the target shape (and the layers that produced the
difference: poolings with ``same`` padding on odd sizes, ``valid`` transposed convolutions);
for a failing layer, its name, what it received and which layer produced it; for a
``train_step``, which line touched ``data`` or where the loss was computed relative to the
tape; for ``load_model``, the class that could not be located.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "autoencoders_and_vaes"

CASES = [
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(8, 28, 28, 1), output.shape=(8, 32, 32, 1)
    Case(
        name="f25_conv_autoencoder_three_poolings_32_vs_28",
        family=FAMILY,
        code="""
x = np.random.rand(16, 28, 28, 1).astype("float32")
inp = keras.Input(shape=(28, 28, 1))
h = keras.layers.Conv2D(16, 3, activation="relu", padding="same")(inp)
h = keras.layers.MaxPooling2D(2, padding="same")(h)
h = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(h)
h = keras.layers.MaxPooling2D(2, padding="same")(h)
h = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(h)
encoded = keras.layers.MaxPooling2D(2, padding="same")(h)
h = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(encoded)
h = keras.layers.UpSampling2D(2)(h)
h = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(h)
h = keras.layers.UpSampling2D(2)(h)
h = keras.layers.Conv2D(16, 3, activation="relu", padding="same")(h)
h = keras.layers.UpSampling2D(2)(h)
decoded = keras.layers.Conv2D(1, 3, activation="sigmoid", padding="same")(h)
autoencoder = keras.Model(inp, decoded)
autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
autoencoder.fit(x, x, epochs=1, batch_size=8, verbose=0)
""",
        expect="S07",
        must=("32",),
        must_not=("sparse", "one-hot"),
        fix="crop 32 back to 28 (Cropping2D(2)) or two poolings only / 32x32 inputs",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 6, 6, 32), (None, 7, 7, 32)]
    Case(
        name="f25_unet_autoencoder_skip_7_vs_upsampled_6",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(28, 28, 1))
c1 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
p1 = keras.layers.MaxPooling2D()(c1)
c2 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(p1)
p2 = keras.layers.MaxPooling2D()(c2)
c3 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p2)
p3 = keras.layers.MaxPooling2D()(c3)
b = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p3)
u3 = keras.layers.UpSampling2D()(b)
u3 = keras.layers.Concatenate()([u3, c3])
d3 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(u3)
""",
        expect="S01",
        must=("concatenate",),
        must_not=("strides=2",),
        fix="pad 28 to 32 (divisible by 8) or crop/pad the upsampled 6x6 map to the skip's 7x7",
    ),
    # ValueError: Input 0 with name 'None' of layer 'dense_3' is incompatible with the layer: expected axis -1 of input shape to have value 128, but received input with shape (None, 32)
    Case(
        name="f25_decoder_model_from_last_layer_only",
        family=FAMILY,
        code="""
encoding_dim = 32
inp = keras.Input(shape=(784,))
h = keras.layers.Dense(128, activation="relu")(inp)
encoded = keras.layers.Dense(encoding_dim, activation="relu")(h)
h = keras.layers.Dense(128, activation="relu")(encoded)
decoded = keras.layers.Dense(784, activation="sigmoid")(h)
autoencoder = keras.Model(inp, decoded)
encoded_input = keras.Input(shape=(encoding_dim,))
decoder_layer = autoencoder.layers[-1]
decoder = keras.Model(encoded_input, decoder_layer(encoded_input))
""",
        expect="S01",
        must=("128",),
        must_not=("flatten",),
        fix="apply both decoder layers: autoencoder.layers[-1](autoencoder.layers[-2](encoded_input))",
    ),
    # TypeError: Exception encountered when calling Sampling.call().  (... Failed to convert elements of (None, 2) to Tensor ...)
    Case(
        name="f25_vae_sampling_static_batch_none",
        family=FAMILY,
        code="""
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = z_mean.shape[0]
        dim = z_mean.shape[1]
        epsilon = keras.random.normal(shape=(batch, dim))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * epsilon

enc_in = keras.Input(shape=(784,))
h = keras.layers.Dense(64, activation="relu")(enc_in)
z_mean = keras.layers.Dense(2, name="z_mean")(h)
z_log_var = keras.layers.Dense(2, name="z_log_var")(h)
z = Sampling()([z_mean, z_log_var])
""",
        expect="S01",
        must=("sampling",),
        must_not=("compute_output_spec",),
        fix="batch = keras.ops.shape(z_mean)[0] (dynamic shape), or keras.random.normal(keras.ops.shape(z_mean))",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f25_vae_train_step_loss_after_tape_block",
        family=FAMILY,
        code="""
class VAE(keras.Model):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var = self.encoder(data)
            z = z_mean + tf.exp(0.5 * z_log_var) * tf.random.normal(tf.shape(z_mean))
            recon = self.decoder(z)
        recon_loss = tf.reduce_mean(keras.losses.binary_crossentropy(data, recon))
        kl = -0.5 * tf.reduce_mean(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
        loss = recon_loss + kl
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": loss}

e_in = keras.Input(shape=(20,))
h = keras.layers.Dense(8, activation="relu")(e_in)
encoder = keras.Model(e_in, [keras.layers.Dense(2)(h), keras.layers.Dense(2)(h)])
decoder = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(20, activation="sigmoid")])
vae = VAE(encoder, decoder)
vae.compile(optimizer="adam")
vae.fit(np.random.rand(32, 20).astype("float32"), epochs=1, batch_size=8, verbose=0)
""",
        expect="T03",
        must=("tape",),
        must_not=("argmax", "learning rate"),
        fix="compute recon_loss, kl and loss inside the `with tf.GradientTape()` block",
    ),
    # OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed. ...
    Case(
        name="f25_vae_train_step_unpacks_x_only_data",
        family=FAMILY,
        code="""
class VAE(keras.Model):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
    def train_step(self, data):
        x, _ = data
        with tf.GradientTape() as tape:
            z_mean, z_log_var = self.encoder(x)
            z = z_mean + tf.exp(0.5 * z_log_var) * tf.random.normal(tf.shape(z_mean))
            recon = self.decoder(z)
            loss = tf.reduce_mean(keras.losses.binary_crossentropy(x, recon))
            loss += -0.5 * tf.reduce_mean(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": loss}

e_in = keras.Input(shape=(20,))
h = keras.layers.Dense(8, activation="relu")(e_in)
encoder = keras.Model(e_in, [keras.layers.Dense(2)(h), keras.layers.Dense(2)(h)])
decoder = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(20, activation="sigmoid")])
vae = VAE(encoder, decoder)
vae.compile(optimizer="adam")
vae.fit(np.random.rand(32, 20).astype("float32"), epochs=1, batch_size=8, verbose=0)
""",
        expect="T02",
        must=("data",),
        must_not=("tf.cond", "run_eagerly"),
        fix="fit(x) passes data = x alone: use `x = data` (or call fit(x, x))",
    ),
    # AttributeError: Sequential model 'decoder' has no defined output shape yet.
    Case(
        name="f25_decoder_sequential_without_input_output_shape",
        family=FAMILY,
        code="""
latent_dim = 2
decoder = keras.Sequential([
    keras.layers.Dense(7 * 7 * 16, activation="relu"),
    keras.layers.Reshape((7, 7, 16)),
    keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid"),
], name="decoder")
assert decoder.output_shape[1:] == (28, 28, 1), decoder.output_shape
""",
        expect="S04",
        must=("input(",),
        must_not=("fit the model",),
        fix="start the decoder with keras.Input(shape=(latent_dim,)) (or decoder.build((None, latent_dim)))",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. ... Could not locate class 'Sampling' ...
    Case(
        name="f25_vae_load_model_sampling_not_registered",
        family=FAMILY,
        code="""
import os, tempfile
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(keras.ops.shape(z_mean))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * eps

inp = keras.Input(shape=(16,))
h = keras.layers.Dense(8, activation="relu")(inp)
z = Sampling()([keras.layers.Dense(2)(h), keras.layers.Dense(2)(h)])
vae = keras.Model(inp, keras.layers.Dense(16, activation="sigmoid")(z))
path = os.path.join(tempfile.mkdtemp(), "vae.keras")
vae.save(path)
del Sampling
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("sampling",),
        must_not=("compile=false",),
        fix="@keras.saving.register_keras_serializable() on Sampling, or custom_objects={'Sampling': Sampling}",
    ),
]
