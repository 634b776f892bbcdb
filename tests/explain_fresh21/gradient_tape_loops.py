"""Family: custom training loops with ``tf.GradientTape`` and ``train_step`` overrides.

The APIs and their documented contract:

- ``tf.GradientTape(persistent=False, watch_accessed_variables=True)`` records the operations
  run INSIDE its ``with`` block on watched sources.  Trainable ``tf.Variable``s (a model's
  ``trainable_variables``) are watched automatically; a plain tensor (``tf.constant``, an
  input image for an adversarial example or a saliency map) only after ``tape.watch(t)``.
  ``tape.gradient(target, sources)`` returns, in the structure of ``sources``, one gradient
  per source, or ``None`` for a source the target does not depend on through recorded,
  differentiable TensorFlow ops: a loss computed after the block closed, computed from
  NumPy values (``model.predict`` returns a NumPy array, ``.numpy()``, ``np.mean``), or
  through ``argmax``/``round``/integer casts gets ``None`` everywhere.  A non-persistent tape
  releases its resources at the first ``gradient`` call; a second call raises "A
  non-persistent GradientTape can only be used to compute one set of gradients"
  (``persistent=True``, then ``del tape``, or one tape per loss, as in GAN loops).
- ``optimizer.apply_gradients(zip(grads, vars))`` drops ``None`` gradients with a warning,
  and raises "No gradients provided for any variable." when every one is ``None``; an empty
  variable list leaves nothing to unpack.
- ``model.trainable_variables`` is the list of the model's trainable variables at the time
  it is read: empty for a subclassed (or ``Input``-less) model that has not been built
  (called once, or ``model.build(input_shape)``); a list captured before the first call
  stays empty.
- Dtypes: a variable's dtype is fixed at creation; ``tf.Variable(np.random.randn(...))`` is
  float64 (NumPy's default) and cannot be multiplied with float32 inputs (``MatMul``
  "expected to be a float tensor but is a double tensor").
- ``tf.function`` traces Python code into a graph: tensors inside are symbolic, so
  ``.numpy()``, ``float(t)`` and Python ``if t:`` on tensors are not available (AutoGraph
  converts ``if``/``for`` on tensors); variables may only be created on the first trace.
- Keras 3 ``Model.train_step(self, data)``: ``data`` is what ``fit`` yields, ``(x, y)`` or
  ``(x, y, sample_weight)`` (``keras.utils.unpack_x_y_sample_weight``); the loss comes from
  ``self.compute_loss(x=None, y=None, y_pred=None, sample_weight=None, training=True)`` --
  its FIRST positional argument is ``x``, so ``self.compute_loss(y, y_pred)`` passes
  ``y_pred=None``; the step applies ``self.optimizer.apply(grads, self.trainable_variables)``
  (or ``apply_gradients``), updates ``self.metrics`` and returns a dict of their results.
- ``tf.data`` loops: ``for x, y in dataset`` yields whatever the dataset's elements are
  (batched only after ``.batch()``).

Evidence a diagnosis needs: which sources got ``None`` gradients and why (the line that
computed the loss relative to the ``with`` block, a NumPy round trip such as
``model.predict``, a non-differentiable op, an unwatched tensor), how many times the tape's
``gradient`` was called and whether it was persistent, the length of the variable list when
it was captured and whether the model was built then, the dtypes of the variables against
the data, the user's line inside the ``tf.function`` that asked for a concrete value, and
the arguments given to ``compute_loss``.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="f21_loss_computed_after_tape_block",
        family="gradient_tape_loops",
        code="""
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
opt = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.MeanSquaredError()
x = tf.random.normal((32, 10))
y = tf.random.normal((32, 1))
for step in range(3):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
    loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="T03",
        must=("with",),
        must_not=("numpy", "watch"),
        fix="compute the loss inside the with tf.GradientTape() block",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f21_model_predict_inside_tape",
        family="gradient_tape_loops",
        code="""
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
opt = keras.optimizers.Adam(1e-3)
bce = keras.losses.BinaryCrossentropy()
x = np.random.rand(64, 6).astype("float32")
y = np.random.randint(0, 2, (64, 1)).astype("float32")
for step in range(3):
    with tf.GradientTape() as tape:
        pred = model.predict(x, verbose=0)
        loss = bce(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="G04",
        must=("predict",),
        must_not=("closed",),
        fix="call the model, pred = model(x, training=True), instead of model.predict inside the tape",
    ),
    # RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
    Case(
        name="f21_gan_one_tape_two_gradients",
        family="gradient_tape_loops",
        code="""
gen = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                        keras.layers.Dense(4)])
disc = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                         keras.layers.Dense(1)])
g_opt, d_opt = keras.optimizers.Adam(1e-4), keras.optimizers.Adam(1e-4)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = tf.random.normal((16, 4))
with tf.GradientTape() as tape:
    fake = gen(tf.random.normal((16, 8)), training=True)
    real_out, fake_out = disc(real, training=True), disc(fake, training=True)
    g_loss = bce(tf.ones_like(fake_out), fake_out)
    d_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
g_grads = tape.gradient(g_loss, gen.trainable_variables)
d_grads = tape.gradient(d_loss, disc.trainable_variables)
g_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
d_opt.apply_gradients(zip(d_grads, disc.trainable_variables))
""",
        expect="T03",
        must=("persistent",),
        must_not=("watch",),
        fix="two tapes (gen_tape, disc_tape) or tf.GradientTape(persistent=True)",
    ),
    # ValueError: Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.
    Case(
        name="f21_fgsm_gradient_of_unwatched_image",
        family="gradient_tape_loops",
        code="""
model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Flatten(),
                          keras.layers.Dense(10, activation="softmax")])
image = tf.random.uniform((1, 28, 28, 1))
label = tf.one_hot([3], 10)
loss_object = keras.losses.CategoricalCrossentropy()
with tf.GradientTape() as tape:
    prediction = model(image)
    loss = loss_object(label, prediction)
gradient = tape.gradient(loss, image)
perturbation = tf.sign(gradient)
adv_image = tf.clip_by_value(image + 0.01 * perturbation, 0, 1)
""",
        expect="G04",
        must=("watch",),
        must_not=("persistent",),
        fix="tape.watch(image) at the start of the with block",
    ),
    # AttributeError: in user code: (... return loss.numpy() ... AttributeError: 'SymbolicTensor' object has no attribute 'numpy')
    Case(
        name="f21_numpy_call_in_tf_function_step",
        family="gradient_tape_loops",
        code="""
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
opt = keras.optimizers.SGD(0.01)

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss.numpy()

ds = tf.data.Dataset.from_tensor_slices((np.random.rand(32, 5).astype("float32"),
                                         np.random.rand(32, 1).astype("float32"))).batch(8)
losses = [train_step(xb, yb) for xb, yb in ds]
""",
        expect="T02",
        must=("numpy",),
        must_not=("persistent",),
        fix="return the tensor from the tf.function and call .numpy() on the result outside",
    ),
    # ValueError: not enough values to unpack (expected 2, got 0)
    Case(
        name="f21_trainable_variables_read_before_build",
        family="gradient_tape_loops",
        code="""
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = keras.layers.Dense(8, activation="relu")
        self.d2 = keras.layers.Dense(1)

    def call(self, x):
        return self.d2(self.d1(x))

model = Net()
opt = keras.optimizers.Adam(1e-3)
params = model.trainable_variables
x, y = tf.random.normal((16, 4)), tf.random.normal((16, 1))
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, params)
    opt.apply_gradients(zip(grads, params))
""",
        expect="S04",
        must=("trainable_variables",),
        must_not=("closed", "numpy"),
        fix="read model.trainable_variables after the first call (or model.build((None, 4)) first)",
    ),
    # ValueError: None values not supported.
    Case(
        name="f21_train_step_compute_loss_positional",
        family="gradient_tape_loops",
        code="""
class MyModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y, y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}

inputs = keras.Input((4,))
model = MyModel(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32"),
          epochs=1, verbose=0)
""",
        expect="S12",
        must=("compute_loss",),
        must_not=("nan", "missing values"),
        fix="self.compute_loss(x=x, y=y, y_pred=y_pred)",
    ),
    # InvalidArgumentError: cannot compute _MklMatMul as input #1(zero-based) was expected to be a float tensor but is a double tensor [Op:MatMul] name:
    Case(
        name="f21_numpy_initialized_variable_is_float64",
        family="gradient_tape_loops",
        code="""
x = np.random.rand(100, 3).astype("float32")
y = x @ np.array([[2.0], [-1.0], [0.5]], dtype="float32") + 1.0
W = tf.Variable(np.random.randn(3, 1), name="W")
b = tf.Variable(0.0, name="b")
opt = keras.optimizers.SGD(0.1)
for epoch in range(5):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
    grads = tape.gradient(loss, [W, b])
    opt.apply_gradients(zip(grads, [W, b]))
""",
        expect="S11",
        must=("float64",),
        must_not=("reshape",),
        fix="tf.Variable(np.random.randn(3, 1).astype('float32')) or dtype=tf.float32",
    ),
]
