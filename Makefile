# The two commands the README documents: `make lab` and `make test`.
.PHONY: setup lab test

setup:
	bash scripts/setup.sh

# Set up, then open the workshop notebooks in JupyterLab.  The kernels inherit the same
# quiet TensorFlow log settings as the tests, so no C++ start-up warnings land in the notebooks.
# LAB_ARGS passes options to JupyterLab, e.g. on a remote machine:
#   make lab LAB_ARGS="--no-browser --port=8888"
LAB_ARGS ?=
lab: setup
	TF_CPP_MIN_LOG_LEVEL=3 TF_ENABLE_ONEDNN_OPTS=0 .venv/bin/jupyter lab --notebook-dir=notebooks $$( [ "$$(id -u)" = 0 ] && echo --allow-root ) $(LAB_ARGS)

# Set up, then run ruff, mypy and the whole test suite (slow tests included).
# scripts/test.sh does the setup itself, so the setup check runs once.
test:
	bash scripts/test.sh
