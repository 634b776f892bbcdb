"""Run folders (issue 30): ``record_gradients(save_to=...)`` in a script, ``%tfrun`` / ``open_run``.

The single-process tests record in this process and open the folder in a
real IPython shell; the two-worker test runs ``examples/two_worker_run.py``
(two real MultiWorkerMirroredStrategy workers on localhost ports) and opens
both runs it records: one unsharded (D02) and its clean twin, auto-sharded
by DATA, with a straggler.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import tfnb_debug
from tests._support import check_golden, run_magic
from tfnb_debug.collect.keras_access import private
from tfnb_debug.collect.run_writer import batch_digest, worker_identity
from tfnb_debug.diagnostics.runs import WorkerInput, WorkerTimes, stragglers, unsharded_input
from tfnb_debug.features.run_records import WorkerRecord
from tfnb_debug.features.runs import build_run_report
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.records.gradients import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "two_worker_run.py"


def _model() -> keras.Model:
    keras.utils.set_random_seed(0)
    return keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, activation="relu", name="dense"),
            keras.layers.Dense(1, name="dense_1"),
        ],
        name="single",  # the layers named: Keras' own counter depends on earlier tests
    )


def _custom_loop(run_dir: str, steps: int = 6, *, memory: bool = False) -> None:
    """A single-process script's loop: a compiled step over a tf.data dataset (its memory
    tracked too, with ``memory``)."""
    model = _model()
    optimizer = keras.optimizers.SGD(0.05)
    x = np.random.default_rng(0).normal(size=(8 * steps, 4)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    tracker = tfnb_debug.track_memory(save_to=run_dir if memory else None, enabled=memory)
    with tracker, tfnb_debug.record_gradients(save_to=run_dir):

        @tf.function
        def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        for xb, _ in dataset.map(lambda a, b: (a * 2, b)).take(2):  # an evaluation, no step
            model(xb)
        for xb, yb in dataset:
            train_step(xb, yb)


def test_single_process_script_opens_in_a_notebook(shell: InteractiveShell, tmp_path: Path) -> None:
    run_dir = str(tmp_path / "run")
    _custom_loop(run_dir, memory=True)
    files = sorted(p.name for p in (tmp_path / "run" / "worker-0").iterdir())
    assert files == ["gradients.npz", "memory.json", "memory.npz", "record.json", "steps.npz"]
    record = json.loads((tmp_path / "run" / "worker-0" / "record.json").read_text())
    assert record["format"] == 1 and record["worker"] == 0 and record["workers"] == 1
    assert record["batches"]["source"] == "dataset"
    x = np.random.default_rng(0).normal(size=(48, 4)).astype("float32")  # _custom_loop's data
    batches = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(8)
    trained = [batch_digest(batch) for batch in batches.take(4)]
    assert record["batches"]["hashes"] == trained  # the evaluation's batches are not among them
    with np.load(tmp_path / "run" / "worker-0" / "steps.npz", allow_pickle=False) as steps:
        assert steps["steps"].sum() == 6 and np.all(np.diff(steps["end"]) > 0)

    shown = run_magic(shell, f"%tfrun {run_dir}")
    assert "a single-process run: worker-0 6 optimizer step(s) and memory" in shown.text
    assert "worker-0" in shown.text and "single process" in shown.text
    assert "D02" not in shown.text  # one worker: nothing to compare
    assert "<svg" in shown.html and "step time per worker" in shown.html

    run = run_magic(shell, f"%tfrun -q -o {run_dir}").result
    assert isinstance(run, tfnb_debug.RunReport)
    workers = run.to_dataframe("workers")
    assert list(workers["worker"]) == ["worker-0"] and workers["timed steps"][0] == 6
    assert workers["peak host MiB"][0] > 100  # this process's RSS, TensorFlow loaded
    assert "host memory per worker" in shown.html
    norms = run.to_dataframe("gradient norms")
    assert list(norms["layer"]) == ["single/dense", "single/dense_1"]
    assert (norms["worker-0 median"] > 0).all()
    own = run.worker(0)  # the worker's own gradient report, rebuilt from its records
    assert isinstance(own, tfnb_debug.GradientReport) and own.recorded_steps == 6
    np.testing.assert_allclose(
        own.history.layer_grad_norms()[:, 0], run.workers[0].history.layer_grad_norms()[:, 0]
    )
    with pytest.raises(TfnbDebugError, match="no worker 3"):
        run.worker(3)


OPEN_WITHOUT_TENSORFLOW = """
import sys
class HideTensorFlow:
    # what an environment without TensorFlow answers: no module of that name
    def find_spec(self, name, path=None, target=None):
        if name == "tensorflow" or name.startswith("tensorflow."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, HideTensorFlow())
import tfnb_debug
run = tfnb_debug.open_run(sys.argv[1])
print("TYPE:", type(run).__name__, isinstance(run, tfnb_debug.RunReport))
print("SUMMARY:", run.summary[0])
print("TEXT:", "worker-0" in run.to_text(), "<svg" in run.to_html())
print("WORKER:", run.worker(0).recorded_steps)
try:
    tfnb_debug.open_run("gs://bucket/runs/exp1")
except tfnb_debug.TfnbDebugError as error:
    print("URL:", str(error))
print("LOADED:", "tensorflow" in sys.modules, "keras" in sys.modules)
"""


@pytest.mark.slow
def test_a_local_run_opens_without_tensorflow(tmp_path: Path) -> None:
    """Run folders are JSON and npz: a Python without TensorFlow opens a local one; a URL
    (read through tf.io.gfile) gets one line saying what to do."""
    run_dir = str(tmp_path / "run")
    _custom_loop(run_dir)
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", OPEN_WITHOUT_TENSORFLOW, run_dir],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
    assert lines["TYPE"] == "RunReport True"
    assert lines["SUMMARY"] == "a single-process run: worker-0 6 optimizer step(s)"
    assert lines["TEXT"] == "True True" and lines["WORKER"] == "6"
    url = lines["URL"]
    assert url.startswith("gs://bucket/runs/exp1 is read through tf.io.gfile, which needs")
    assert "pip install tensorflow-cpu" in url and "\n" not in url
    assert lines["LOADED"] == "False False"  # nothing imported TensorFlow or Keras


def test_a_memory_only_run_opens(tmp_path: Path) -> None:
    with tfnb_debug.track_memory(save_to=tmp_path / "mem"):
        np.ones((1024, 1024)).sum()
    run = tfnb_debug.open_run(tmp_path / "mem")
    assert run.summary[0] == "a single-process run: worker-0 memory"
    assert run.to_dataframe("workers")["peak host MiB"][0] > 0
    assert run.to_dataframe("gradient norms").empty


def test_the_hooks_are_restored_after_an_error_and_the_error_reaches_the_user(
    tmp_path: Path,
) -> None:
    function_call = private("PolymorphicFunction").__dict__["__call__"]
    owned_next = private("OwnedIterator").__dict__["__next__"]
    distributed_next = private("DistributedIteratorBase").__dict__["__next__"]
    model = _model()
    model.compile("sgd", "mse")
    x = np.zeros((8, 4), "float32")
    for error in (ValueError, KeyboardInterrupt):
        recording = tfnb_debug.record_gradients(save_to=str(tmp_path / "run"))
        with pytest.raises(error, match="from the user"), recording:
            model.fit(x, x[:, :1], batch_size=4, verbose=0)
            raise error("from the user")
        assert private("PolymorphicFunction").__dict__["__call__"] is function_call
        assert private("OwnedIterator").__dict__["__next__"] is owned_next
        assert private("DistributedIteratorBase").__dict__["__next__"] is distributed_next
    # the partial record was written: fit's two steps, timed through its train function
    run = tfnb_debug.open_run(tmp_path / "run")
    assert run.workers[0].history.total_steps == 2
    assert int(run.workers[0].call_steps.sum()) == 2


def test_a_url_folder_goes_through_tf_io_gfile() -> None:
    run_dir = "ram://tfnb_runs/gfile"
    _custom_loop(run_dir, steps=3)
    assert tf.io.gfile.exists(f"{run_dir}/worker-0/record.json")
    run = tfnb_debug.open_run(run_dir)
    assert run.workers[0].history.total_steps == 3


def test_bad_folders_are_one_line(shell: InteractiveShell, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no run folder .*record_gradients") as missing:
        run_magic(shell, f"%tfrun {tmp_path / 'nowhere'}")
    (tmp_path / "empty" / "logs").mkdir(parents=True)
    with pytest.raises(UsageError, match="holds no worker-N/record.json or memory.json") as empty:
        run_magic(shell, f"%tfrun {tmp_path / 'empty'}")
    newer = tmp_path / "newer" / "worker-0"
    newer.mkdir(parents=True)
    (newer / "record.json").write_text(json.dumps({"format": 99, "tfnb_debug": "9.0"}))
    with pytest.raises(UsageError, match="newer tfnb_debug .*format 99.*upgrade") as new:
        run_magic(shell, f"%tfrun {tmp_path / 'newer'}")
    for err in (missing, empty, new):
        assert "\n" not in str(err.value)
    with pytest.raises(UsageError, match="missing RUN_DIR"):
        run_magic(shell, "%tfrun")
    with pytest.raises(TfnbDebugError, match="save_to must be a folder path"):
        tfnb_debug.record_gradients(save_to=3)  # type: ignore[arg-type]


def test_worker_index_from_tf_config() -> None:
    cluster = {"chief": ["h:1"], "worker": ["h:2", "h:3"]}

    def config(kind: str, index: int) -> dict[str, str]:
        return {
            "TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": kind, "index": index}})
        }

    assert worker_identity({}).folder == "worker-0" and worker_identity({}).workers == 1
    assert worker_identity(config("chief", 0)).index == 0
    assert worker_identity(config("worker", 1)).folder == "worker-2"
    assert worker_identity(config("worker", 1)).workers == 3
    with pytest.raises(TfnbDebugError, match="'evaluator' task"):
        worker_identity(config("evaluator", 0))


def test_d02_fires_on_identical_batches_only() -> None:
    a, b, c = ("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3")
    same = unsharded_input(
        [WorkerInput("worker-0", a, "distributed"), WorkerInput("worker-1", a, "distributed")]
    )
    assert [f.code for f in same] == ["D02"]
    assert "2 of 2 workers" in same[0].message and "AutoShardPolicy.DATA" in same[0].hint
    assert "experimental_distribute_dataset(...)" not in same[0].hint  # it was distributed
    plain = unsharded_input(
        [WorkerInput(f"worker-{i}", a, "dataset") for i in range(2)]
        + [WorkerInput("worker-2", b, "dataset")]
    )
    assert "2 of 3 workers" in plain[0].message and "worker-2" not in plain[0].place
    assert "was not distributed" in plain[0].hint and "AutoShardPolicy" not in plain[0].hint
    differ = [WorkerInput("worker-0", a, "distributed"), WorkerInput("worker-1", b, "distributed")]
    assert unsharded_input(differ) == []
    assert unsharded_input([*differ, WorkerInput("worker-2", c, "distributed")]) == []
    constant = ("k", "k", "k")  # every batch alike: identical hashes say nothing about sharding
    assert (
        unsharded_input([WorkerInput(f"worker-{i}", constant, "dataset") for i in range(2)]) == []
    )
    assert unsharded_input([WorkerInput("worker-0", a, "dataset")]) == []


def test_stragglers_are_named_by_step_time_or_by_time_outside_the_step() -> None:
    even = [WorkerTimes(f"worker-{i}", 0.020, 0.002, 50) for i in range(3)]
    assert stragglers(even) == {}
    slow = [*even[:2], WorkerTimes("worker-2", 0.040, 0.002, 50)]
    assert list(stragglers(slow)) == ["worker-2"] and "40 ms a step" in stragglers(slow)["worker-2"]
    late = [*even[:2], WorkerTimes("worker-2", 0.021, 0.015, 50)]
    assert "outside the compiled step" in stragglers(late)["worker-2"]
    assert stragglers([even[0], WorkerTimes("worker-1", 0.5, 0.0, 2)]) == {}  # too few steps


@pytest.mark.slow
def test_two_worker_job_records_and_opens_with_d02_and_its_clean_twin(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    run_dir = tmp_path / "job"
    subprocess.run(
        [sys.executable, str(EXAMPLE), str(run_dir), "--steps", "10", "--slow-ms", "60"],
        check=True,
        timeout=240,
        capture_output=True,
    )
    unsharded = run_magic(shell, f"%tfrun -o {run_dir / 'unsharded'}")
    assert "2 of 2 worker(s) recorded" in unsharded.text
    assert "worker-0" in unsharded.text and "worker-1" in unsharded.text
    assert unsharded.result.codes().count("D02") == 1  # (R01 may come from a worker's memory)
    d02 = next(f for f in unsharded.result.findings if f.code == "D02")
    assert "2 of 2 workers read identical input batches" in d02.message
    assert "through a distributed dataset" in d02.evidence and "AutoShardPolicy.DATA" in d02.hint

    sharded = run_magic(shell, f"%tfrun -o {run_dir / 'sharded'}")
    report = sharded.result
    assert "D02" not in report.codes()  # auto-sharded by DATA: the workers' batches differ
    assert [w.name for w in report.workers] == ["worker-0", "worker-1"]
    assert all(w.history.total_steps == 10 and len(w.hashes) == 4 for w in report.workers)
    assert list(report.stragglers) == ["worker-1"]  # it pauses 60 ms before each step
    assert (report.to_dataframe("workers")["peak host MiB"] > 100).all()  # memory recorded too
    assert "straggler worker-1" in sharded.text
    replicas = report.to_dataframe("worker-1 replicas")  # each worker's per-replica table
    assert list(replicas.columns[1:3]) == ["replica 0", "replica 1"]
    assert "replicas" in [t.name for t in report.worker(1).tables]
    norms = report.to_dataframe("gradient norms")  # all-reduced: the same on both workers
    np.testing.assert_allclose(norms["worker-0 median"], norms["worker-1 median"], rtol=1e-5)

    plain = run_magic(shell, f"%tfrun -o {run_dir / 'plain'}").result  # never distributed
    d02 = next(f for f in plain.findings if f.code == "D02")
    assert "from a plain tf.data iterator, not a distributed dataset" in d02.evidence
    assert "experimental_distribute_dataset(...)" in d02.hint and "AutoShard" not in d02.hint


def _hand_made_worker(index: int, *, hashes: tuple[str, ...], pause: float) -> WorkerRecord:
    """A worker's records as open_run reads them, made by hand (no TensorFlow)."""
    variables = tuple(
        VariableMeta(f"m/{layer}/{part}", f"m/{layer}", part, (2, 2), "float32", "sgd")
        for layer in ("dense", "out")
        for part in ("kernel", "bias")
    )
    steps = 6
    stats = np.zeros((steps, 4, len(STAT_COLUMNS)), np.float32)
    stats[:, :, 0] = np.linspace(2.0, 1.0, steps)[:, None]  # grad norms
    ends = np.cumsum(np.full(steps, 0.020 + pause))
    history = GradientHistory(
        variables=variables,
        steps=np.arange(steps),
        loss=np.linspace(1.0, 0.5, steps),
        loss_known=np.ones(steps, bool),
        stats=stats,
        hist=np.zeros((steps, 4, HIST_BINS), np.float32),
        total_steps=steps,
    )
    return WorkerRecord(
        name=f"worker-{index}",
        index=index,
        workers=2,
        task=f"worker {index}",
        title="Gradients of model 'm'",
        summary=(),
        notes=(),
        model_name="m",
        source="custom loop",
        findings=(),
        history=history,
        call_start=ends - 0.015,
        call_end=ends,
        call_steps=np.ones(steps, np.int64),
        hashes=hashes,
        batch_source="distributed",
        other_calls=0,
        size_bytes=10_240,
    )


def test_run_report_text_is_stable_and_consistent() -> None:
    """The merged report of two hand-made workers: golden text, and its tables agree with the
    records (a straggler marked, D02 on the identical hashes)."""
    same = ("h1", "h2", "h3")
    workers = (
        _hand_made_worker(0, hashes=same, pause=0.0),
        _hand_made_worker(1, hashes=same, pause=0.010),
    )
    report = build_run_report("runs/hand", workers)
    check_golden("run_report.txt", report.to_text(width=120))
    assert report.codes() == ["D02"] and list(report.stragglers) == ["worker-1"]
    table = report.table("workers")
    assert table.row_marks == ("", "warning")
    assert [row[2] for row in table.rows] == [6, 6]
    html = report.to_html()
    assert html.count("<svg") == 2  # step times and loss, no memory records


def test_records_left_by_another_run_are_pointed_out() -> None:
    from dataclasses import replace

    same = ("h1", "h2", "h3")
    stale = replace(_hand_made_worker(2, hashes=("x1", "x2", "x3"), pause=0.0), workers=3)
    report = build_run_report("runs/mixed", (_hand_made_worker(0, hashes=same, pause=0.0), stale))
    assert report.summary[0].startswith("2 of 3 worker(s) recorded (no records from worker-1)")
    assert "disagree on the number of workers (worker-0 2, worker-2 3)" in report.summary[1]


def test_a_workers_own_gradient_report_leaves_its_memory_findings_out() -> None:
    from dataclasses import replace

    from tfnb_debug.features.run_records import SeriesRecord, WorkerMemory
    from tfnb_debug.ground.reports import finding

    grew = finding("R01", "host memory grew", place="host")
    rss = SeriesRecord("host RSS", "host", None, None, np.array([0.0, 1.0]), np.array([1, 2**21]))
    memory = WorkerMemory("memory", (), (rss,), np.zeros(0), findings=(grew,))
    base = _hand_made_worker(0, hashes=(), pause=0.0)
    worker = replace(base, memory=memory, findings=(*base.findings, grew))
    run = build_run_report("runs/mem", (worker,))
    assert "R01" in run.codes() and run.findings[0].place == "worker-0: host"
    assert run.to_dataframe("workers")["peak host MiB"][0] == 2.0
    assert "R01" not in run.worker(0).codes()
