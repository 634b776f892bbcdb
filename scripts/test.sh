#!/usr/bin/env bash
# Set up (or reuse) .venv, then lint, type-check and run the whole test suite, slow tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV=${VENV:-.venv}
export TF_CPP_MIN_LOG_LEVEL=3 TF_ENABLE_ONEDNN_OPTS=0 PYTHONDONTWRITEBYTECODE=1
echo "== ruff"
"$VENV/bin/ruff" check tfnb_debug tests benchmarks
echo "== mypy"
"$VENV/bin/mypy"
echo "== pytest"
workers=$(nproc 2>/dev/null || echo 2)
[ "$workers" -gt 2 ] && workers=2
"$VENV/bin/python" -m pytest -n "$workers" --dist loadfile -p no:cacheprovider "$@"
