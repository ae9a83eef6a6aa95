#!/bin/bash
# Runs one file of the Python package's tests (python/tests/test_*.py) with
# pytest, against this build's shared libraries (ctest sets
# OSSA_LIBRARY_PATH to the build directory). The Python is the first of
# $OSSA_PYTHON, python3 and /usr/bin/python3 that has numpy and pytest
# (Debian's python3-numpy and python3-pytest); without one the test is
# skipped (exit 77) and the reason kept for the summary of `make test`.
# Usage: run_pytest.sh FILE
set -u
file=$1
name=python_$(basename "$file" .py)
py=
for c in ${OSSA_PYTHON:-} python3 /usr/bin/python3; do
    command -v "$c" >/dev/null 2>&1 || continue
    if "$c" -c 'import numpy, pytest' >/dev/null 2>&1; then
        py=$c
        break
    fi
done
if [ -z "$py" ]; then
    reason="python3 with numpy and pytest not found (Debian: python3-numpy python3-pytest)"
    echo "SKIP: $reason"
    if [ -n "${OSSA_TEST_TMP:-}" ]; then
        mkdir -p "$OSSA_TEST_TMP/skipped"
        echo "$reason" >"$OSSA_TEST_TMP/skipped/$name"
    fi
    exit 77
fi
# No __pycache__ or .pytest_cache in the source tree; pytest's temporary
# files under the build's test-tmp.
export PYTHONDONTWRITEBYTECODE=1 OSSA_PYTEST_NAME=$name OSSA_PYTHON=$py
exec "$py" -m pytest -q -p no:cacheprovider --basetemp="${OSSA_TEST_TMP:-/tmp}/$name" "$file"
