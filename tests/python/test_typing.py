"""The package's type hints check with mypy (skipped when mypy is not installed; utils/pytest.sh's virtual
environment installs it when it can)."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(REPO, "runtime", "python", "cakeir")


def test_py_typed_marker():
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed"))


def test_mypy_accepts_the_package(tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed")
    result = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental",
                             "--cache-dir", str(tmp_path), "cakeir"], cwd=os.path.dirname(PACKAGE),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0, result.stdout.decode()
