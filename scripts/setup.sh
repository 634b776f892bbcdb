#!/usr/bin/env bash
# Create or reuse the project's virtual environment (.venv) and install tfnb_debug into it.
#
# A second run installs nothing when pyproject.toml and the pinned versions have
# not changed, so TensorFlow is not downloaded again; that check imports nothing
# and takes well under a second.  A TensorFlow that is
# already in the environment (tensorflow or tensorflow-cpu) is kept; otherwise
# tensorflow-cpu is installed (the `cpu` extra).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
EXTRAS=${EXTRAS:-dev,lab}
CONSTRAINTS=requirements/constraints.txt

if [ ! -x "$VENV/bin/python" ]; then
    # The Python versions the pinned packages have wheels for: pyproject.toml's classifiers.
    supported=$(sed -n 's/.*"Programming Language :: Python :: \(3\.[0-9][0-9]*\)".*/\1/p' pyproject.toml | tr '\n' ' ')
    version=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    case " $supported" in
        *" $version "*) ;;
        *) echo "setup: $PYTHON is Python $version, but the pinned versions ($CONSTRAINTS) install on Python ${supported% } only; name another interpreter, e.g. make test PYTHON=python3.12" >&2
           exit 1 ;;
    esac
    echo "setup: creating $VENV with $($PYTHON --version)"
    "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.tfnb_debug-setup"
want=$(cat pyproject.toml "$CONSTRAINTS" | sha256sum | cut -d' ' -f1)-$EXTRAS
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && "$VENV/bin/python" -c "import importlib.metadata as md, importlib.util as u, sys; md.version('tfnb_debug'); sys.exit(any(u.find_spec(m) is None for m in ('tensorflow', 'keras', 'IPython')))" >/dev/null 2>&1; then
    echo "setup: reusing $VENV (dependencies already satisfied)"
    exit 0
fi

if "$VENV/bin/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec('tensorflow') is None)" >/dev/null 2>&1; then
    extras=$EXTRAS
    echo "setup: keeping the TensorFlow already in $VENV"
else
    extras=cpu,$EXTRAS
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -c "$CONSTRAINTS" -e ".[$extras]"
echo "$want" > "$stamp"
echo "setup: $VENV is ready"
