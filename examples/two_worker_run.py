"""A two-worker MultiWorkerMirroredStrategy job on one machine, recorded for ``%tfrun``.

Run it without arguments to start both workers (two local processes with
``TF_CONFIG`` on free localhost ports) and wait for them::

    python examples/two_worker_run.py runs/demo

then, in a notebook: ``%load_ext tfnb_debug`` and ``%tfrun runs/demo/sharded``
(and ``runs/demo/unsharded``: D02).  Each worker trains a small Keras model in
a custom loop (``strategy.run`` on ``strategy.experimental_distribute_dataset``;
Keras 3.15's ``fit`` does not run under this strategy, see D07) twice, each
time inside ``tfnb_debug.record_gradients(save_to=...)`` and
``tfnb_debug.track_memory(save_to=...)``:

* ``RUN_DIR/unsharded``: the dataset's auto-shard policy is OFF, so both
  workers read the same batches (D02 unsharded-input);
* ``RUN_DIR/sharded``: auto-sharding by DATA, each worker reads its own half
  of every batch; ``--slow-ms`` makes worker 1 spend that long on the host
  before each step (a straggler);
* ``RUN_DIR/plain``: the loop iterates a dataset that was never distributed
  (each worker reads every batch itself: D02, with the other fix).

``--runs unsharded,sharded`` records only those.

``--worker I --ports P0,P1`` runs one worker (what the launcher does).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

RUNS = "unsharded,sharded,plain"


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def launch(
    run_dir: str, steps: int, slow_ms: float, runs: str = RUNS, timeout: float = 300
) -> list[str]:
    """Start both workers, wait for them, return their outputs (raises if one failed)."""
    ports = ",".join(str(p) for p in _free_ports(2))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0")
    env.pop("TF_CONFIG", None)
    args = [run_dir, "--ports", ports, "--steps", str(steps), "--slow-ms", str(slow_ms)]
    args += ["--runs", runs]
    procs = [
        subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), *args, "--worker", str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for i in range(2)
    ]
    outputs = []
    for proc in procs:
        out, _ = proc.communicate(timeout=timeout)
        outputs.append(out)
        if proc.returncode != 0:
            for other in procs:
                if other.poll() is None:
                    other.kill()
            raise RuntimeError(f"a worker failed:\n{out[-3000:]}")
    return outputs


def work(
    run_dir: str, index: int, ports: list[str], steps: int, slow_ms: float, runs: list[str]
) -> None:
    os.environ["TF_CONFIG"] = json.dumps(
        {
            "cluster": {"worker": [f"localhost:{p}" for p in ports]},
            "task": {"type": "worker", "index": index},
        }
    )
    import keras
    import numpy as np
    import tensorflow as tf

    import tfnb_debug

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    global_batch = 16
    rng = np.random.default_rng(0)  # the same data on every worker: sharding splits it
    x = rng.normal(size=(global_batch * steps, 8)).astype("float32")
    y = (x @ rng.normal(size=(8, 1))).astype("float32")

    def dataset(policy: object) -> object:
        if policy is None:  # not distributed: each worker iterates the whole dataset itself
            return tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch // 2)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch)
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = policy
        return strategy.experimental_distribute_dataset(ds.with_options(options))

    def train(name: str, policy: object, pause: float) -> None:
        with strategy.scope():
            model = keras.Sequential(
                [
                    keras.Input((8,)),
                    keras.layers.Dense(16, activation="relu"),
                    keras.layers.Dense(1),
                ],
                name="regressor",
            )
            optimizer = keras.optimizers.SGD(0.01)

        @tf.function
        def train_step(batch: object) -> object:
            def replica_step(inputs: object) -> object:
                features, labels = inputs
                with tf.GradientTape() as tape:
                    per_example = tf.square(model(features, training=True) - labels)[:, 0]
                    loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
                return loss

            losses = strategy.run(replica_step, args=(batch,))
            return strategy.reduce("SUM", losses, axis=None)

        folder = f"{run_dir}/{name}"
        with tfnb_debug.track_memory(save_to=folder), tfnb_debug.record_gradients(save_to=folder):
            for batch in dataset(policy):
                if pause:
                    time.sleep(pause)
                train_step(batch)

    auto = tf.data.experimental.AutoShardPolicy
    if "unsharded" in runs:
        train("unsharded", auto.OFF, 0.0)
    if "sharded" in runs:
        train("sharded", auto.DATA, slow_ms / 1000.0 if index == 1 else 0.0)
    if "plain" in runs:
        train("plain", None, 0.0)
    print(f"worker {index} done", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--steps", type=int, default=20, help="steps per run (default 20)")
    parser.add_argument("--slow-ms", type=float, default=0.0, help="worker 1's pause per step")
    parser.add_argument(
        "--runs", default=RUNS, help=f"which runs, comma-separated (default {RUNS})"
    )
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--ports", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is None:
        for out in launch(args.run_dir, args.steps, args.slow_ms, args.runs):
            print(out.strip().splitlines()[-1] if out.strip() else "")
        runs = args.runs.split(",")
        print("recorded: " + ", ".join(f"{args.run_dir}/{name}" for name in runs))
    else:
        runs = args.runs.split(",")
        work(args.run_dir, args.worker, args.ports.split(","), args.steps, args.slow_ms, runs)


if __name__ == "__main__":
    main()
