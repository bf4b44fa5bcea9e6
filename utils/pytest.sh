#!/usr/bin/env bash
# Runs the runtime's Python tests under pytest:   utils/pytest.sh VENV_DIR [pytest arguments...]
#
# Uses a python that has pytest: the current python3 when it has it, else a virtual environment in VENV_DIR
# (created once, pytest installed from PyPI; cake_python_venv in utils/common.sh).  When neither is
# possible it prints one "SKIP: ..." line saying why and exits 0 without running anything.
# ctest runs it for the test runtime/python (runtime/CMakeLists.txt) with the library paths in the environment.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
venv="${1:?usage: pytest.sh VENV_DIR [pytest arguments...]}"
shift
# The sanitizer build preloads ASan into the tests' python (runtime/CMakeLists.txt); finding or installing
# pytest does not need it.
if env -u LD_PRELOAD python3 -c 'import pytest' >/dev/null 2>&1; then
  python=python3
elif ! python=$(LD_PRELOAD= ASAN_OPTIONS= cake_python_venv "$venv"); then
  echo "SKIP: pytest is not installed and could not be installed into $venv (pip install pytest); the runtime's" \
       "Python tests did not run"
  exit 0
fi
# nvdisasm for tests/python/test_lineinfo.py (skipped there when it could not be installed).
if [ -z "${CAKE_NVDISASM:-}" ] && nvdisasm=$(LD_PRELOAD= ASAN_OPTIONS= cake_nvdisasm "$venv-nvdisasm"); then
  export CAKE_NVDISASM="$nvdisasm"
fi
cd "$CAKE_ROOT"
exec "$python" -m pytest -q -p no:cacheprovider "$@"
