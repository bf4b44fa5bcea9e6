"""cakeir.compile: CAKE source -> cakec -> cubin + manifest -> loaded Module, through an on-disk cache.

The cache is a folder (argument cache_dir=, else $CAKEIR_CACHE_DIR, else $XDG_CACHE_HOME/cakeir, else
~/.cache/cakeir).  An entry is <cache>/<k[:2]>/<k>/ holding kernel.cubin, kernel.cubin.json and key.json
(what the key was computed from), where k is the SHA-256 of: the source bytes, the defines, the arch, the
extra cakec options, cakec's identity and ptxas's identity (path, size, mtime and --version output, see
_tools.py).  A hit loads the entry and runs no process at all.  A miss compiles into a fresh folder under
<cache>/tmp/ and renames it into place: a rename is atomic, so concurrent processes that miss on the same key
each compile, one rename wins, the others discard their folder and load the winner's entry; a reader never
sees a half-written entry.  Failed compilations are not cached."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _tools
from ._errors import CakeArgumentError, CakeError

if TYPE_CHECKING:
    from . import Module

KEY_FORMAT = 1
_DEFINE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DEFINE_VALUE = re.compile(r"[A-Za-z0-9_.+-]+\Z")
_ARCH = re.compile(r"sm_[0-9]+a?\Z")

SourceLike = Union[str, bytes, "os.PathLike[str]"]
DefineValue = Union[int, str]


class CakeCompileError(CakeError):
    """cakec refused the source: `diagnostics` is what it printed, `returncode` its exit status and
    `command` the command line that ran."""

    def __init__(self, message: str, diagnostics: str = "", returncode: int = 1,
                 command: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
        self.returncode = returncode
        self.command = list(command)


def default_cache_dir() -> str:
    """$CAKEIR_CACHE_DIR, else $XDG_CACHE_HOME/cakeir, else ~/.cache/cakeir."""
    env = os.environ.get("CAKEIR_CACHE_DIR")
    if env:
        return os.path.abspath(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cakeir")


def _read_source(source: SourceLike) -> Tuple[bytes, Optional[str]]:
    """(source bytes, path or None).  bytes and a str with a newline are source text; any other str or
    os.PathLike is a path."""
    if isinstance(source, bytes):
        return source, None
    if isinstance(source, str) and "\n" in source:
        return source.encode("utf-8"), None
    try:
        path = os.fspath(source)
    except TypeError:
        raise CakeArgumentError("cakeir.compile: expected a path or CAKE source text (str, bytes or os.PathLike), "
                                "got %s" % type(source).__name__) from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    try:
        with open(path, "rb") as handle:
            return handle.read(), os.path.abspath(path)
    except OSError as error:
        raise FileNotFoundError("cakeir.compile: cannot read %s: %s (source text must contain a newline)"
                                % (path, error.strerror or error)) from None


def _define_args(defines: Optional[Mapping[str, DefineValue]]) -> List[str]:
    args: List[str] = []
    for name, value in sorted((defines or {}).items()):
        if not isinstance(name, str) or not _DEFINE_NAME.match(name):
            raise CakeArgumentError("cakeir.compile: define name %r is not an identifier" % (name,))
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise CakeArgumentError("cakeir.compile: define %s: expected an int or a name such as 'bf16', got %s"
                                    % (name, type(value).__name__))
        text = str(value)
        if not _DEFINE_VALUE.match(text):
            raise CakeArgumentError("cakeir.compile: define %s=%r is not a number or a name" % (name, text))
        args += ["-D", "%s=%s" % (name, text)]
    return args


def cache_key(material: Mapping[str, object]) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def compile(source: SourceLike, arch: Optional[str] = None, defines: Optional[Mapping[str, DefineValue]] = None, *,
            options: Sequence[str] = (), cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
            cache: bool = True, cakec: Optional[str] = None, ptxas: Optional[str] = None,
            name: str = "kernel") -> "Module":
    """Compiles CAKE source (a path, or text containing a newline) with cakec and returns the loaded Module.

    arch: "sm_90a" etc. (default: the source's `target`); defines: compile-time parameters ({"BN": 128}, cakec
    -D); options: further cakec arguments (part of the cache key); cache_dir / cache=False: where the cache is,
    or no cache at all; cakec / ptxas: explicit executables; name: the file name used for source text in
    cakec's diagnostics.  The module's `cache_entry` is its cache folder (None without a cache) and
    `from_cache` says whether it was a hit.  Raises CakeCompileError with cakec's diagnostics when it refuses
    the source."""
    from . import load  # the package's loader; imported here to avoid an import cycle

    data, path = _read_source(source)
    if arch is not None and (not isinstance(arch, str) or not _ARCH.match(arch)):
        raise CakeArgumentError("cakeir.compile: arch must look like 'sm_90a', got %r" % (arch,))
    if isinstance(options, str) or not all(isinstance(o, str) for o in options):
        raise CakeArgumentError("cakeir.compile: options must be a sequence of strings")
    if not re.match(r"[A-Za-z0-9_.-]+\Z", name):
        raise CakeArgumentError("cakeir.compile: name %r must be a plain file name" % (name,))
    define_args = _define_args(defines)
    root = os.path.abspath(os.fspath(cache_dir)) if cache_dir is not None else default_cache_dir()
    memo = os.path.join(root, "tools") if cache else None

    cakec_path = _tools.find_cakec(cakec)
    ptxas_path = _tools.find_ptxas(ptxas)
    if ptxas is not None and ptxas_path is None:
        raise FileNotFoundError("cakeir.compile: ptxas %s is not an executable file" % ptxas)
    material: Dict[str, object] = {
        "format": KEY_FORMAT,
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "defines": define_args,
        "arch": arch,
        "options": list(options),
        "cakec": _tools.tool_identity(cakec_path, memo),
        "ptxas": _tools.tool_identity(ptxas_path, memo) if ptxas_path else None,
    }
    key = cache_key(material)

    if cache:
        entry = os.path.join(root, key[:2], key)
        cubin = os.path.join(entry, "kernel.cubin")
        if os.path.isfile(cubin) and os.path.isfile(cubin + ".json"):
            try:
                return _tag(load(cubin), entry, True)
            except CakeError:
                shutil.rmtree(entry, ignore_errors=True)  # a damaged entry: compile it again
        os.makedirs(os.path.join(root, "tmp"), exist_ok=True)
        work = tempfile.mkdtemp(prefix=key[:16] + ".", dir=os.path.join(root, "tmp"))
    else:
        entry = None
        work = tempfile.mkdtemp(prefix="cakeir.")
    try:
        _run_cakec(cakec_path, ptxas_path, data, path, name, work, arch, define_args, options)
        if entry is None:
            return _tag(load(os.path.join(work, "kernel.cubin")), None, False)
        _tools.atomic_write(os.path.join(work, "key.json"), json.dumps(material, indent=1, sort_keys=True).encode())
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        try:
            os.rename(work, entry)
        except OSError:
            if not os.path.isfile(os.path.join(entry, "kernel.cubin.json")):
                raise
            # another process finished the same key first: use its entry
        return _tag(load(os.path.join(entry, "kernel.cubin")), entry, False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_cakec(cakec_path: str, ptxas_path: Optional[str], data: bytes, path: Optional[str], name: str, work: str,
               arch: Optional[str], define_args: List[str], options: Sequence[str]) -> None:
    if path is None:
        path = os.path.join(work, name + ".cake")
        with open(path, "wb") as handle:
            handle.write(data)
    command = [cakec_path, path, "-o", os.path.join(work, "kernel.cubin")]
    if arch:
        command += ["--arch", arch]
    command += define_args
    if ptxas_path:
        command += ["--ptxas", ptxas_path]
    command += list(options)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_tools.tool_environment(),
                            check=False)
    if result.returncode != 0:
        diagnostics = (result.stderr + result.stdout).decode("utf-8", "replace")
        raise CakeCompileError("cakec failed (exit status %d) on %s:\n%s" % (result.returncode, path, diagnostics),
                               diagnostics, result.returncode, command)


def _tag(module: "Module", entry: Optional[str], hit: bool) -> "Module":
    module.cache_entry = entry
    module.from_cache = hit
    return module
