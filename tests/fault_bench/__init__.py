"""A held-out benchmark of *training faults*: programs that run but train badly.

What it is
    Programs in the style of the research benchmarks of DeepDiagnosis, UMLAUT,
    DeepLocalize and AUTOTRAINER (real Keras programs from Stack Overflow and GitHub
    whose model trains badly), each in two versions: the **buggy** one a user
    reported and the **correct** one, which differs from it only by the fix.  The
    families are one module each (``learning_rate``, ``activations``, ``inputs``,
    ``outputs``, ``losses``, ``init``, ``labels``, ``metrics``, and four written
    later, also blind: ``optimizers``, ``regularization``, ``architecture``,
    ``data_order``), each exporting
    ``CASES``, a list of :class:`~tests.fault_bench._case.Case`.

How the cases were made
    Each case is our own reduction of a kind of user report ("loss is NaN",
    "accuracy stuck at 10%", "loss does not decrease", "predicts the same class",
    ...) ported to Keras 3: one setup cell (numpy data with a fixed seed, a few
    hundred examples, and the model built and compiled) and one training cell
    (``history = model.fit(...)``, a handful of epochs, a few seconds on a CPU).
    The cases, and every scoring expectation (``codes``, ``symptom_codes``,
    ``places``, ``fixes``), were written from the Keras/TensorFlow documentation,
    the user reports and the catalog (``DIAGNOSTICS.md``), *without* reading
    tfnb_debug's rules or looking at what it reports for a case: the benchmark is
    blind to the rules.  What was checked while writing them is only plain Keras
    behaviour: ``tests/test_fault_bench.py`` fits both versions without tfnb_debug
    and asserts that the buggy one fails as described (``Case.bug``) and the
    correct one learns (``Case.learns``).  Two reports turned out to be masked by
    Keras 3 itself and were left out: a softmax output with
    ``from_logits=True`` and a sigmoid output under ``categorical_crossentropy``
    (Keras takes the logits behind a softmax/sigmoid output and trains exactly as
    the correct version), and a hand-written loss given ``(B,)`` targets against
    ``(B, 1)`` predictions (Keras aligns the ranks before calling it).

How it is scored
    ``python -m tests.fault_bench`` runs both versions of every case in one real
    IPython shell with ``%load_ext tfnb_debug``: the setup cell plainly, the
    training cell under ``%%tfgrad -q -o --control``, then ``%tflint -q -o model
    --data (x, y)``.  Per program, strictly, as in the research benchmark:

    * **IB** (identified): a finding whose code is in ``codes`` fires on the buggy
      version and that code does not fire on the correct version;
    * **FL** (localized): IB, and that finding's place, message or target names
      one of ``places`` (a layer name set with ``name=...``, or a hyperparameter
      word such as "learning rate");
    * **FS** (symptom): a finding with a code in ``symptom_codes`` fires on the
      buggy version and that code does not fire on the correct version;
    * **LF** (fix): IB, and that finding's hint contains one of ``fixes``, and the
      hint is not a fixed checklist (the same hint text on the buggy versions of two
      cases whose ``fixes`` do not overlap);
    * **false alarm**: any finding of severity warning or error on a correct version.

    A version that raises makes its case a failure (the error is printed).
"""

from __future__ import annotations

import importlib

from tests.fault_bench._case import Case

__all__ = ["FAMILIES", "Case", "all_cases"]

#: the family modules, in the order the scorer runs them
FAMILIES = (
    "learning_rate",
    "activations",
    "inputs",
    "outputs",
    "losses",
    "init",
    "labels",
    "metrics",
    "optimizers",
    "regularization",
    "architecture",
    "data_order",
    "optimizer_settings",
    "lr_schedules",
    "depth_flow",
)


def all_cases() -> list[Case]:
    """Every case of every family, in a stable order; names are unique."""
    cases: list[Case] = []
    for family in FAMILIES:
        module = importlib.import_module(f"{__name__}.{family}")
        for case in module.CASES:
            assert case.family == family, (case.name, case.family, family)
            cases.append(case)
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return cases
