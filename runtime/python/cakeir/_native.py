"""Finds and loads the native prepared-launch path, the extension module cakeir._prepared_call
(runtime/python_extension/prepared_call.c; docs/runtime.md, "Launch overhead").

The module is `_prepared_call.abi3.so` (CPython's stable ABI, so one build serves Python 3.11 and later).  It is
looked for, in order, at $CAKE_PREPARED_CALL_MODULE (a file), then in the folder of the libcake_runtime.so the
package loaded (cakeir/lib/ in the wheel, build*/lib/ in the source tree, or wherever $CAKE_RUNTIME_LIB
points), so that the extension and the library come from the same build.  With CAKE_NO_NATIVE=1 in the
environment it is not loaded at all.  Loading never raises: `module()` is None when the module is absent or
does not load, and `reason()` says why."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import threading
from typing import Any, List, Optional

MODULE_FILE = "_prepared_call.abi3.so"
MODULE_NAME = "cakeir._prepared_call"

_lock = threading.Lock()
_loaded = False
_module: Any = None
_reason = "not loaded yet"


def candidate_paths(runtime_library: Optional[str]) -> List[str]:
    """Where the extension is looked for, in order."""
    paths = []
    env = os.environ.get("CAKE_PREPARED_CALL_MODULE")
    if env:
        paths.append(env)
    if runtime_library:
        paths.append(os.path.join(os.path.dirname(os.path.abspath(runtime_library)), MODULE_FILE))
    return paths


def _load_from(path: str) -> Any:
    loader = importlib.machinery.ExtensionFileLoader(MODULE_NAME, path)
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path, loader=loader)
    if spec is None:
        raise ImportError("no module spec for %s" % path)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def module(runtime_library: Optional[str] = None) -> Any:
    """The loaded extension module, or None (see reason()).  The first call looks for it, beside
    `runtime_library` (the path of the libcake_runtime.so in use) among other places."""
    global _loaded, _module, _reason
    if _loaded:
        return _module
    with _lock:
        if _loaded:
            return _module
        if os.environ.get("CAKE_NO_NATIVE", "") not in ("", "0"):
            _reason = "CAKE_NO_NATIVE is set"
        else:
            tried = []
            for path in candidate_paths(runtime_library):
                if not os.path.isfile(path):
                    tried.append(path + " (absent)")
                    continue
                try:
                    _module = _load_from(path)
                    _reason = "loaded from " + path
                    break
                except Exception as error:  # noqa: BLE001 - an unloadable module means the Python path
                    tried.append("%s (%s: %s)" % (path, type(error).__name__, error))
            else:
                _reason = "%s not found or not loadable; tried: %s" % (MODULE_FILE, "; ".join(tried) or "nothing")
        _loaded = True
        return _module


def reason() -> str:
    """Why the extension is or is not in use ("loaded from PATH", "CAKE_NO_NATIVE is set", ...)."""
    return _reason
