#!/usr/bin/env bash
# Set up (or reuse) .venv, then lint, type-check and run the whole test suite, slow tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The browser tests drive Debian's Chromium (Playwright's own browser download cannot work here).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing chromium for the browser tests"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "chromium could not be installed: the browser tests will fail"
fi
VENV=${VENV:-.venv}
export TF_CPP_MIN_LOG_LEVEL=3 TF_ENABLE_ONEDNN_OPTS=0 PYTHONDONTWRITEBYTECODE=1
echo "== ruff"
"$VENV/bin/ruff" check tfnb_debug tests $( [ -d benchmarks ] && echo benchmarks )
echo "== mypy"
"$VENV/bin/mypy"
echo "== pytest (-rs: each skipped test is listed with its reason at the end)"
workers=$(nproc 2>/dev/null || echo 2)
[ "$workers" -gt 2 ] && workers=2
"$VENV/bin/python" -m pytest -n "$workers" --dist loadfile -p no:cacheprovider -rs "$@"
