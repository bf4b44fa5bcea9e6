"""Finding the compiler and ptxas, and their identities for the compile cache (no subprocess on a warm cache).

cakec is looked for, in order: an explicit path; $CAKE_CAKEC; cakeir/bin/cakec inside this package (where
the wheel puts it); <repo>/build*/cakec of the source tree this package lives in (newest first); `cakec` on
PATH.  ptxas the way cakec itself looks for it (src/codegen/Ptxas.cpp findPtxas): an explicit path;
$CUDA_HOME/bin/ptxas; PATH; /usr/local/cuda/bin/ptxas.

A tool's identity is its real path, size and modification time plus what `TOOL --version` prints.  The
version is run once per (path, size, mtime, inode) and remembered in <cache>/tools/, so a warm cache
identifies both tools with two stat calls."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
from typing import Dict, List, Optional

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(PACKAGE_DIR)))  # runtime/python/cakeir -> repo


def packaged_cakec() -> str:
    return os.path.join(PACKAGE_DIR, "bin", "cakec")


def packaged_machines_dir() -> str:
    return os.path.join(PACKAGE_DIR, "share", "cake", "machines")


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def cakec_candidates(explicit: Optional[str] = None, use_path: bool = True) -> List[str]:
    """Where cakec is looked for, in order (see the module's docstring)."""
    paths: List[str] = []
    if explicit:
        return [os.fspath(explicit)]
    env = os.environ.get("CAKE_CAKEC")
    if env:
        paths.append(env)
    paths.append(packaged_cakec())
    built = glob.glob(os.path.join(REPO_DIR, "build*", "cakec"))
    built.sort(key=os.path.getmtime, reverse=True)
    paths.extend(built)
    if use_path:
        found = shutil.which("cakec")
        if found:
            paths.append(found)
    return paths


def find_cakec(explicit: Optional[str] = None, use_path: bool = True) -> str:
    """The cakec executable's absolute path; FileNotFoundError naming every place that was tried."""
    tried = []
    for path in cakec_candidates(explicit, use_path):
        if _executable(path):
            return os.path.abspath(path)
        tried.append(path)
    raise FileNotFoundError("cakec not found (install the package with `pip install .`, build it with "
                            "`ninja -C build cakec`, or set CAKE_CAKEC); tried: %s" % "; ".join(tried))


def find_ptxas(explicit: Optional[str] = None) -> Optional[str]:
    """The ptxas cakec would use, or None when there is none."""
    if explicit:
        return os.path.abspath(explicit) if _executable(explicit) else None
    home = os.environ.get("CUDA_HOME", "")
    if home.startswith("/") and _executable(os.path.join(home, "bin", "ptxas")):
        return os.path.join(home, "bin", "ptxas")
    for folder in os.environ.get("PATH", "").split(":"):
        if folder.startswith("/") and _executable(os.path.join(folder, "ptxas")):
            return os.path.join(folder, "ptxas")
    if _executable("/usr/local/cuda/bin/ptxas"):
        return "/usr/local/cuda/bin/ptxas"
    return None


def tool_environment() -> Dict[str, str]:
    """The environment cakec runs in: $CAKE_MACHINES_DIR defaults to the package's machine files."""
    env = dict(os.environ)
    if not env.get("CAKE_MACHINES_DIR") and os.path.isdir(packaged_machines_dir()):
        env["CAKE_MACHINES_DIR"] = packaged_machines_dir()
    return env


def tool_identity(path: str, memo_dir: Optional[str]) -> Dict[str, object]:
    """{"path", "size", "mtime_ns", "version"} of an executable; `version` is its --version output
    (lines joined by " | ") (memoised in memo_dir per stat identity when memo_dir is given)."""
    real = os.path.realpath(path)
    st = os.stat(real)
    identity: Dict[str, object] = {"path": real, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    stamp = hashlib.sha256(json.dumps([real, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]).encode())
    memo = os.path.join(memo_dir, stamp.hexdigest()[:32] + ".json") if memo_dir else None
    if memo:
        try:
            with open(memo, encoding="utf-8") as handle:
                identity["version"] = json.load(handle)["version"]
                return identity
        except (OSError, ValueError, KeyError, TypeError):
            pass
    try:
        out = subprocess.run([real, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                             env=tool_environment(), check=False).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired) as error:
        out = "unknown (%s)" % error
    identity["version"] = " | ".join(line.strip() for line in out.strip().splitlines() if line.strip())
    if memo:
        atomic_write(memo, json.dumps({"tool": real, "version": identity["version"]}).encode())
    return identity


def atomic_write(path: str, data: bytes) -> None:
    """Writes `data` to `path` through a temporary file and a rename (readers see all or nothing)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    temp = "%s.tmp.%d.%s" % (path, os.getpid(), os.urandom(4).hex())
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
