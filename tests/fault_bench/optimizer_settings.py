"""An optimizer hyperparameter other than the learning rate is far outside its working range.

The learning rate is an ordinary one in every case; what breaks training is another
argument of the optimizer (Keras 3, ``keras.optimizers``): a clipping threshold so small
that every step is a few millionths of what it should be (``clipvalue``,
``global_clipnorm``), an adaptive optimizer's denominator pinned far above the gradients
(Adagrad's ``initial_accumulator_value``, RMSprop's ``epsilon`` copied from the Inception
recipe) or far below them (Adadelta's ``epsilon``, whose square root sets Adadelta's
first step), a second-moment decay ``beta_2`` so short that ``m / sqrt(v)`` is unbounded
(Nadam, Adamax), AdamW's decoupled ``weight_decay`` large enough to pull every weight to
zero, ``gradient_accumulation_steps`` larger than the whole run (no update is ever
applied), and a fixed ``loss_scale_factor`` that overflows float16 gradients.

User reports: "I added gradient clipping and now the loss does not move"; "Adadelta /
Adagrad does not learn"; "Adam (Nadam, Adamax) loss explodes after I changed beta_2";
"AdamW: the model predicts the same value for every input"; "with gradient accumulation
the weights never change"; "NaN loss with mixed precision and loss_scale_factor".
Each correct version changes only that one argument back to a sensible value.
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    ConstantOutput,
    LossFalls,
    LossNonFinite,
    LossStays,
    Mse,
)
from tests.fault_bench._data import BINARY, BLOBS, IMAGES, REGRESSION, cell

FAMILY = "optimizer_settings"

_SEED = "keras.utils.set_random_seed(0)\n"

#: three classes of noisy sine waves (2, 5 or 9 cycles over 32 samples, random phase):
#: ``x`` (600, 32, 1), integer ``y`` (600,); a small Conv1D separates them in a few epochs
_WAVES = """\
import numpy as np
import keras
rng = np.random.default_rng(5)
t = np.linspace(0.0, 1.0, 32)
y = rng.integers(0, 3, 600)
freq = np.array([2.0, 5.0, 9.0])[y]
phase = rng.uniform(0.0, 2 * np.pi, 600)
x = np.sin(2 * np.pi * freq[:, None] * t + phase[:, None]) + 0.3 * rng.normal(0.0, 1.0, (600, 32))
x = x[..., None].astype("float32")
"""

_MLP_BLOBS = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

#: the same classifier with its hidden layers in mixed precision (float16 compute,
#: float32 weights) and a float32 output, as the Keras mixed precision guide recommends
_MLP_BLOBS_FP16 = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", dtype="mixed_float16", name="hidden"),
    keras.layers.Dense(64, activation="relu", dtype="mixed_float16", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", dtype="float32", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_MLP_BINARY = """\
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(32, activation="relu", name="hidden2"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(optimizer=optimizer, loss="binary_crossentropy", metrics=["accuracy"])
"""

_MLP_REGRESSION = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(64, activation="tanh", name="hidden"),
    keras.layers.Dense(64, activation="tanh", name="hidden2"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer=optimizer, loss="mse")
"""

_CNN_IMAGES = """\
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Rescaling(1.0 / 255, name="scale"),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="conv"),
    keras.layers.MaxPooling2D(2, name="pool"),
    keras.layers.Flatten(name="flat"),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(4, activation="softmax", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_CONV1D_WAVES = """\
model = keras.Sequential([
    keras.Input((32, 1)),
    keras.layers.Conv1D(16, 5, activation="relu", name="conv"),
    keras.layers.GlobalMaxPooling1D(name="pool"),
    keras.layers.Dense(16, activation="relu", name="hidden"),
    keras.layers.Dense(3, activation="softmax", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"


def _setup(data: str, optimizer: str, model: str) -> str:
    return cell(data, _SEED, f"optimizer = {optimizer}\n", model)


CASES = [
    Case(
        name="sgd_clipvalue_tiny",
        family=FAMILY,
        bug_summary="SGD(learning_rate=0.05, momentum=0.9, clipvalue=1e-6) on a regression MLP: "
        "every gradient component is clipped to [-1e-6, 1e-6] before the step, so each weight "
        "moves at most 0.05 x 1e-6 / (1 - 0.9) = 5e-7 per step; the MSE stays where the "
        "initialization put it",
        source="Stack Overflow / Cross Validated: 'I added clipvalue to stop exploding gradients "
        "and now my loss does not decrease' (a clip threshold far below the gradients' size "
        "makes training too slow; start near 1.0); keras.io/api/optimizers (clipvalue)",
        setup=_setup(
            REGRESSION,
            "keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, clipvalue=1e-6)",
            _MLP_REGRESSION,
        ),
        fixed_setup=_setup(
            REGRESSION,
            "keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, clipvalue=1.0)",
            _MLP_REGRESSION,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("clipvalue",),
        fixes=("clipvalue",),
        bug=AllOf((LossStays(0.95), Mse(low=0.8))),
        learns=AllOf((LossFalls(0.3), Mse(high=0.2))),
    ),
    Case(
        name="sgd_global_clipnorm_tiny",
        family=FAMILY,
        bug_summary="SGD(learning_rate=0.05, momentum=0.9, global_clipnorm=1e-5) on a small CNN: "
        "the gradient of all weights together is rescaled to norm 1e-5 at every step, so the "
        "whole model moves by at most 5e-6 per step and the loss stays at its initial value",
        source="keras.io/api/optimizers (global_clipnorm: 'the gradient of all weights is "
        "clipped so that their global norm is no higher than this value'); user reports of "
        "'loss stuck after adding gradient clipping' (a threshold below the gradient's norm "
        "throttles every step)",
        setup=_setup(
            IMAGES,
            "keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, global_clipnorm=1e-5)",
            _CNN_IMAGES,
        ),
        fixed_setup=_setup(
            IMAGES,
            "keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, global_clipnorm=1.0)",
            _CNN_IMAGES,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("global_clipnorm", "clipnorm"),
        fixes=("global_clipnorm", "clipnorm"),
        bug=AllOf((LossStays(0.95), Accuracy(high=0.6))),
        learns=AllOf((LossFalls(0.1), Accuracy(low=0.95))),
    ),
    Case(
        name="adagrad_initial_accumulator_huge",
        family=FAMILY,
        bug_summary="Adagrad(learning_rate=0.05, initial_accumulator_value=1e4): the squared-"
        "gradient accumulator starts at 1e4, so the denominator sqrt(accumulator) is ~100 "
        "instead of ~|g| and every step is learning_rate x g / 100; the binary classifier "
        "stays at chance",
        source="keras.io/api/optimizers/adagrad (initial_accumulator_value, default 0.1: "
        "'starting value for the accumulators'); user reports 'Adagrad does not learn' after "
        "raising it to 'stabilize' the first steps",
        setup=_setup(
            BINARY,
            "keras.optimizers.Adagrad(learning_rate=0.05, initial_accumulator_value=1e4)",
            _MLP_BINARY,
        ),
        fixed_setup=_setup(
            BINARY,
            "keras.optimizers.Adagrad(learning_rate=0.05, initial_accumulator_value=0.1)",
            _MLP_BINARY,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("initial_accumulator_value", "accumulator"),
        fixes=("initial_accumulator_value",),
        bug=AllOf((LossStays(0.95), Accuracy(high=0.65))),
        learns=AllOf((LossFalls(0.4), Accuracy(low=0.9))),
    ),
    Case(
        name="adadelta_epsilon_tiny",
        family=FAMILY,
        bug_summary="Adadelta(learning_rate=1.0, epsilon=1e-12): Adadelta's step is "
        "sqrt(E[dx^2] + epsilon) / sqrt(E[g^2] + epsilon) x g and E[dx^2] starts at 0, so "
        "epsilon sets the size of the first steps; with 1e-12 they are ~1e-6 and grow only "
        "from themselves, and the classifier stays at chance for the whole run",
        source="Zeiler 2012, 'ADADELTA' (epsilon 1e-6 'to start off the first iteration'); "
        "keras.io/api/optimizers/adadelta (epsilon default 1e-7, learning_rate 1.0 as in the "
        "paper); user reports 'Adadelta is extremely slow / does not learn'",
        setup=_setup(
            BINARY,
            "keras.optimizers.Adadelta(learning_rate=1.0, epsilon=1e-12)",
            _MLP_BINARY,
        ),
        fixed_setup=_setup(
            BINARY,
            "keras.optimizers.Adadelta(learning_rate=1.0, epsilon=1e-7)",
            _MLP_BINARY,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("epsilon",),
        fixes=("epsilon",),
        bug=AllOf((LossStays(0.97), Accuracy(high=0.65))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.85))),
    ),
    Case(
        name="rmsprop_epsilon_inception_recipe",
        family=FAMILY,
        bug_summary="RMSprop(learning_rate=0.001, epsilon=1.0), epsilon copied from the "
        "Inception training recipe: Keras' RMSprop divides by sqrt(v + epsilon), and with "
        "v ~ g^2 ~ 1e-3 the denominator is ~1, so RMSprop becomes plain SGD at 0.001 and the "
        "Conv1D classifier barely moves from chance",
        source="Szegedy et al. 2016 (Inception v3: 'RMSProp with decay 0.9 and epsilon = 1.0', "
        "with learning rate 0.045) and the tf.keras Adam docstring's note that 'a current good "
        "choice is 1.0 or 0.1' for Inception; user reports 'RMSprop does not learn after "
        "setting epsilon=1.0'",
        setup=_setup(
            _WAVES,
            "keras.optimizers.RMSprop(learning_rate=0.001, epsilon=1.0)",
            _CONV1D_WAVES,
        ),
        fixed_setup=_setup(
            _WAVES,
            "keras.optimizers.RMSprop(learning_rate=0.001, epsilon=1e-7)",
            _CONV1D_WAVES,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("epsilon",),
        fixes=("epsilon",),
        bug=AllOf((LossStays(0.85), Accuracy(high=0.75))),
        learns=AllOf((LossFalls(0.6), Accuracy(low=0.9))),
    ),
    Case(
        name="adamw_weight_decay_huge",
        family=FAMILY,
        bug_summary="AdamW(learning_rate=0.001, weight_decay=100): the decoupled decay "
        "subtracts learning_rate x weight_decay = 10% of every weight at every step, far more "
        "than Adam's step can restore, so all weights collapse towards zero and the regression "
        "model predicts one constant (MSE = the variance of y)",
        source="keras.io/api/optimizers/adamw (weight_decay default 0.004; the decay is "
        "multiplied by the learning rate); Loshchilov & Hutter, 'Decoupled Weight Decay "
        "Regularization'; user reports 'AdamW: the model outputs the same value for every "
        "input' after a weight decay meant as an L2 coefficient",
        setup=_setup(
            REGRESSION,
            "keras.optimizers.AdamW(learning_rate=0.001, weight_decay=100.0)",
            _MLP_REGRESSION,
        ),
        fixed_setup=_setup(
            REGRESSION,
            "keras.optimizers.AdamW(learning_rate=0.001, weight_decay=0.004)",
            _MLP_REGRESSION,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("weight_decay", "weight decay"),
        fixes=("weight_decay", "weight decay"),
        bug=AllOf((LossStays(0.95), Mse(low=0.9), ConstantOutput(tol=0.05))),
        learns=AllOf((LossFalls(0.5), Mse(high=0.35))),
    ),
    Case(
        name="gradient_accumulation_exceeds_run",
        family=FAMILY,
        bug_summary="Adam(learning_rate=0.001, gradient_accumulation_steps=256) meant as 'an "
        "effective batch of 256': the argument counts batches, not examples, so the first "
        "update would come after 256 batches (8192 examples), but 10 epochs of 19 batches are "
        "only 190 steps; the weights never change and the loss is the same in every epoch",
        source="keras.io/api/optimizers (gradient_accumulation_steps: 'model & optimizer "
        "variables will not be updated at every step; instead they will be updated every "
        "gradient_accumulation_steps steps'); keras-team/keras#19990 and PR #19998 (gradient "
        "accumulation in Keras 3)",
        setup=_setup(
            _WAVES,
            "keras.optimizers.Adam(learning_rate=0.001, gradient_accumulation_steps=256)",
            _CONV1D_WAVES,
        ),
        fixed_setup=_setup(
            _WAVES,
            "keras.optimizers.Adam(learning_rate=0.001, gradient_accumulation_steps=None)",
            _CONV1D_WAVES,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("gradient_accumulation_steps", "gradient accumulation"),
        fixes=("gradient_accumulation_steps", "gradient accumulation"),
        bug=AllOf((LossStays(0.99), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.9))),
    ),
    Case(
        name="nadam_beta_2_as_complement",
        family=FAMILY,
        bug_summary="Nadam(learning_rate=0.001, beta_2=0.001), the complement 1 - 0.999 "
        "written instead of 0.999: the second-moment estimate v forgets everything but the "
        "current gradient, so m / sqrt(v) is unbounded whenever the current gradient is small "
        "and the momentum is not; steps of thousands of learning rates follow and the loss "
        "explodes",
        source="keras.io/api/optimizers/nadam (beta_2 default 0.999, 'exponential decay rate "
        "for the 2nd moment estimates'); Reddi et al., 'On the Convergence of Adam and Beyond' "
        "and Zhang et al. 2022, 'Adam can converge without any modification' (Adam-type "
        "methods diverge when beta_2 is small relative to beta_1)",
        setup=_setup(
            BLOBS,
            "keras.optimizers.Nadam(learning_rate=0.001, beta_2=0.001)",
            _MLP_BLOBS,
        ),
        fixed_setup=_setup(
            BLOBS,
            "keras.optimizers.Nadam(learning_rate=0.001, beta_2=0.999)",
            _MLP_BLOBS,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G02", "G06"}),
        places=("beta_2",),
        fixes=("beta_2",),
        bug=AllOf((LossNonFinite(limit=1e3), Accuracy(high=0.3))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="adamax_beta_2_tiny",
        family=FAMILY,
        bug_summary="Adamax(learning_rate=0.002, beta_2=0.1) on a small CNN: the infinity-norm "
        "estimate u = max(beta_2 x u, |g|) decays by 90% per step, so it is just the current "
        "|g| and the step m / u is huge whenever the current gradient is small; the loss "
        "climbs to 1e3..1e5 within a few epochs and accuracy ends at or below chance",
        source="Kingma & Ba, 'Adam' section 7.1 (AdaMax, beta_2 = 0.999, alpha = 0.002); "
        "keras.io/api/optimizers/adamax (beta_2 'exponential decay rate for the exponentially "
        "weighted infinity norm'); user reports 'loss explodes after tuning beta_2'",
        setup=_setup(
            IMAGES,
            "keras.optimizers.Adamax(learning_rate=0.002, beta_2=0.1)",
            _CNN_IMAGES,
        ),
        fixed_setup=_setup(
            IMAGES,
            "keras.optimizers.Adamax(learning_rate=0.002, beta_2=0.999)",
            _CNN_IMAGES,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G02", "G06"}),
        places=("beta_2",),
        fixes=("beta_2",),
        bug=AllOf((LossNonFinite(limit=1e3), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.1), Accuracy(low=0.95))),
    ),
    Case(
        name="loss_scale_factor_overflows_float16",
        family=FAMILY,
        bug_summary="Adam(learning_rate=0.001, loss_scale_factor=2**24) with mixed_float16 "
        "hidden layers, chosen to 'lift the smallest float16 subnormal to 1': the loss is "
        "multiplied by 1.7e7 before backpropagation, the gradients of the float16 activations "
        "overflow float16's maximum (65504) to Inf, the unscaled gradients are NaN and the "
        "first update makes every weight NaN (a fixed factor, unlike LossScaleOptimizer, is "
        "never lowered)",
        source="keras.io/api/optimizers (loss_scale_factor: 'Useful for preventing underflow "
        "during mixed precision training. Alternately, keras.optimizers.LossScaleOptimizer "
        "will automatically set a loss scale factor'); keras.io mixed precision guide "
        "(float16 overflows above 65504; dynamic loss scaling lowers a scale that overflows); "
        "keras-team/keras#16552 'Mix precision leads to nan loss'",
        setup=_setup(
            BLOBS,
            "keras.optimizers.Adam(learning_rate=0.001, loss_scale_factor=2.0**24)",
            _MLP_BLOBS_FP16,
        ),
        fixed_setup=_setup(
            BLOBS,
            "keras.optimizers.Adam(learning_rate=0.001, loss_scale_factor=1024.0)",
            _MLP_BLOBS_FP16,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G03"}),
        symptom_codes=frozenset({"G03", "G05"}),
        places=("loss_scale_factor", "loss scale"),
        fixes=("loss_scale_factor", "lossscaleoptimizer", "loss scale"),
        bug=AllOf((LossNonFinite(), Accuracy(high=0.3))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
]
