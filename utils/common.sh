# Shared helpers for utils/setup-and-run.sh and utils/setup-and-test.sh (sourced, not run).
#
#   cake_install_deps            installs the Debian packages the build needs, only those missing
#   cake_build DIR [CMAKE_ARGS]  configures (once) and builds DIR with Ninja; output goes to DIR/*.log
#
# Environment: CAKE_JOBS (parallel build jobs, default: number of cores), CAKE_WERROR=ON|OFF.

CAKE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CAKE_PACKAGES=(cmake ninja-build g++ libcli11-dev doctest-dev re2c libz3-dev llvm-14-tools clang-14
               libclang-rt-14-dev python3 python3-venv libssl-dev nlohmann-json3-dev ccache)
CAKE_JOBS="${CAKE_JOBS:-$(nproc 2>/dev/null || echo 2)}"

cake_say() { printf '== %s\n' "$*"; }

cake_install_deps() {
  local missing=() pkg
  for pkg in "${CAKE_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    cake_say "Debian packages: all present"
    return 0
  fi
  cake_say "installing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root (or sudo) to install: ${missing[*]}" >&2; return 3; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null || { echo "error: apt-get update failed" >&2; return 3; }
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    { echo "error: apt-get install failed for: ${missing[*]}" >&2; return 3; }
}

# cake_build DIR [extra cmake arguments...]
cake_build() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  # Through ccache when it is installed, with paths relative to the repository, so that the wheel build of
  # the test suite (tests/python/test_wheel.py, <repo>/build-wheel) is served this build's objects.
  local launcher=()
  if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$CAKE_ROOT}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  fi
  if ! cmake -S "$CAKE_ROOT" -B "$dir" -G Ninja -DCAKE_WERROR="${CAKE_WERROR:-OFF}" "${launcher[@]}" "$@" \
      >"$dir/configure.log" 2>&1; then
    echo "error: cmake configure of $dir failed; last lines of $dir/configure.log:" >&2
    tail -n 40 "$dir/configure.log" >&2
    return 1
  fi
  if ! ninja -C "$dir" -j "$CAKE_JOBS" >"$dir/build.log" 2>&1; then
    echo "error: build of $dir failed; errors from $dir/build.log:" >&2
    grep -E -A5 'error|FAILED' "$dir/build.log" | head -n 80 >&2
    return 1
  fi
}

# cake_nvdisasm DIR: nvdisasm from PyPI (nvidia-cuda-nvdisasm) installed into DIR once, for the test that reads
# cubins' line information back (tests/python/test_lineinfo.py).  Prints its path; fails when it cannot install.
cake_nvdisasm() {
  local dir="$1" found
  found=$(compgen -G "$dir/nvidia/cu*/bin/nvdisasm" | head -n 1)
  if [ -z "$found" ]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$dir" nvidia-cuda-nvdisasm \
      >/dev/null 2>&1 || return 1
    found=$(compgen -G "$dir/nvidia/cu*/bin/nvdisasm" | head -n 1)
  fi
  [ -n "$found" ] && echo "$found"
}

# cake_python_venv DIR: a Python virtual environment in DIR with pytest (the runtime's Python tests run under
# it) and, when they install, mypy, numpy, mcp, pygls, onigurumacffi and ray; created once; reuses the system's
# site packages.  Prints the venv's python on success.
cake_python_venv() {
  local dir="$1"
  if [ ! -x "$dir/bin/python" ]; then
    python3 -m venv --system-site-packages "$dir" >/dev/null 2>&1 || { rm -rf "$dir"; return 1; }
  fi
  if ! "$dir/bin/python" -c 'import pytest' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'pytest>=7' >/dev/null 2>&1 || return 1
  fi
  # mypy checks the Python package's type hints (tests/python/test_typing.py); optional: skipped without it.
  if ! "$dir/bin/python" -c 'import mypy' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'mypy>=1' >/dev/null 2>&1 || true
  fi
  # numpy: the harness's run tool exchanges the interpreter's .npy arrays through it.
  if ! "$dir/bin/python" -c 'import numpy' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'numpy>=1.24' >/dev/null 2>&1 || true
  fi
  # mcp (the Model Context Protocol SDK) for the harness's MCP server (tests/python/test_harness_mcp.py);
  # optional: it needs Python 3.10 or later, and the test is skipped without it.
  if ! "$dir/bin/python" -c 'import mcp' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'mcp>=2.3,<3' >/dev/null 2>&1 || true
  fi
  # pygls (the Python LSP framework) for the language server cakeir.lsp (tests/python/test_lsp.py); optional:
  # the test is skipped without it.
  if ! "$dir/bin/python" -c 'import pygls' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'pygls>=2,<3' >/dev/null 2>&1 || true
  fi
  # onigurumacffi (Oniguruma, TextMate's regex engine) to tokenize with the TextMate grammar as editors do
  # (tests/python/test_editors.py); optional: that check is skipped without it.
  if ! "$dir/bin/python" -c 'import onigurumacffi' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'onigurumacffi>=1,<2' >/dev/null 2>&1 || true
  fi
  # ray: the harness's distributed engine (--ray; tests/python/test_harness_scale.py starts a local instance).
  if ! "$dir/bin/python" -c 'import ray' >/dev/null 2>&1; then
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check 'ray>=2.9,<3' >/dev/null 2>&1 || true
  fi
  echo "$dir/bin/python"
}
