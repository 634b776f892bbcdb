# The two commands the README documents: `make lab` and `make test`.
.PHONY: setup lab test

setup:
	bash scripts/setup.sh

# Set up, then open the workshop notebooks in JupyterLab.
lab: setup
	.venv/bin/jupyter lab --notebook-dir=notebooks $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# Set up, then run ruff, mypy and the whole test suite (slow tests included).
test: setup
	bash scripts/test.sh
