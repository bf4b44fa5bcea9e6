"""ctypes binding of libcake_runtime.so (runtime/include/cake/runtime.h).

The library is found, in order, at: $CAKE_RUNTIME_LIB (a file); cakeir/lib/ inside this package (where the
wheel puts it); next to this package (cakeir/ or its parent folder); <repo>/build*/lib/ of the source tree
this package lives in (newest first).  The binding is created on first use, so importing `cakeir` never
fails for want of the library."""

import ctypes
import glob
import os
import threading

ABI_VERSION = 1  # CAKE_RUNTIME_ABI_VERSION
LIBRARY_NAME = "libcake_runtime.so"

# cake_status
STATUS_NAMES = {
    0: "CAKE_OK", 1: "CAKE_ERROR_INVALID_ARGUMENT", 2: "CAKE_ERROR_IO", 3: "CAKE_ERROR_MANIFEST",
    4: "CAKE_ERROR_NOT_FOUND", 5: "CAKE_ERROR_ARGUMENT", 6: "CAKE_ERROR_REQUIREMENT",
    7: "CAKE_ERROR_LAUNCH_CONFIG", 8: "CAKE_ERROR_EXPRESSION", 9: "CAKE_ERROR_DRIVER_UNAVAILABLE",
    10: "CAKE_ERROR_CUDA",
}
OK = 0

ARG_TENSOR = 1
ARG_SCALAR = 2


class CakeArg(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("data", ctypes.c_uint64),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
    ]


class CakeNamedInt(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


class CakeLaunchOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("stream", ctypes.c_void_p),
        ("shape_vars", ctypes.POINTER(CakeNamedInt)),
        ("num_shape_vars", ctypes.c_size_t),
        ("num_sms", ctypes.c_int64),
    ]


class CakeLaunchPlan(ctypes.Structure):
    _fields_ = [
        ("grid", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("cluster", ctypes.c_uint32 * 3),
        ("dynamic_smem_bytes", ctypes.c_uint32),
        ("num_abi_params", ctypes.c_uint32),
        ("num_tensor_maps", ctypes.c_uint32),
    ]


_P = ctypes.c_void_p
_ERR = (ctypes.c_char_p, ctypes.c_size_t)
_SIGNATURES = {
    "cake_runtime_version": (ctypes.c_char_p, ()),
    "cake_runtime_abi_version": (ctypes.c_int, ()),
    "cake_status_name": (ctypes.c_char_p, (ctypes.c_int,)),
    "cake_module_load": (ctypes.c_int, (ctypes.c_char_p, ctypes.POINTER(_P)) + _ERR),
    "cake_module_load_data": (ctypes.c_int, (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                                             ctypes.POINTER(_P)) + _ERR),
    "cake_module_free": (None, (_P,)),
    "cake_module_num_kernels": (ctypes.c_size_t, (_P,)),
    "cake_module_kernel_at": (_P, (_P, ctypes.c_size_t)),
    "cake_module_arch": (ctypes.c_char_p, (_P,)),
    "cake_kernel_name": (ctypes.c_char_p, (_P,)),
    "cake_kernel_entry": (ctypes.c_char_p, (_P,)),
    "cake_kernel_num_params": (ctypes.c_size_t, (_P,)),
    "cake_kernel_param_name": (ctypes.c_char_p, (_P, ctypes.c_size_t)),
    "cake_kernel_param_kind": (ctypes.c_int, (_P, ctypes.c_size_t)),
    "cake_kernel_param_dtype": (ctypes.c_int, (_P, ctypes.c_size_t)),
    "cake_kernel_param_rank": (ctypes.c_int32, (_P, ctypes.c_size_t)),
    "cake_kernel_param_writes": (ctypes.c_int, (_P, ctypes.c_size_t)),
    "cake_kernel_num_shape_vars": (ctypes.c_size_t, (_P,)),
    "cake_kernel_shape_var_name": (ctypes.c_char_p, (_P, ctypes.c_size_t)),
    "cake_kernel_plan": (ctypes.c_int, (_P, ctypes.POINTER(CakeArg), ctypes.c_size_t,
                                        ctypes.POINTER(CakeLaunchOptions), ctypes.POINTER(CakeLaunchPlan)) + _ERR),
    "cake_kernel_occupancy": (ctypes.c_int, (_P, ctypes.POINTER(CakeArg), ctypes.c_size_t,
                                             ctypes.POINTER(CakeLaunchOptions), ctypes.POINTER(ctypes.c_int)) + _ERR),
    "cake_launch": (ctypes.c_int, (_P, ctypes.POINTER(CakeArg), ctypes.c_size_t,
                                   ctypes.POINTER(CakeLaunchOptions)) + _ERR),
    "cake_launch_prepare": (ctypes.c_int, (_P, ctypes.POINTER(CakeArg), ctypes.c_size_t,
                                           ctypes.POINTER(CakeLaunchOptions), ctypes.POINTER(_P)) + _ERR),
    "cake_launch_prepared": (ctypes.c_int, (_P, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t, _P) + _ERR),
    "cake_prepared_launch_tensor_map_encodes": (ctypes.c_uint64, (_P,)),
    "cake_prepared_launch_free": (None, (_P,)),
    "cake_eval_expression": (ctypes.c_int, (ctypes.c_char_p, ctypes.POINTER(CakeNamedInt), ctypes.c_size_t,
                                            ctypes.POINTER(ctypes.c_int64)) + _ERR),
    "cake_driver_check": (ctypes.c_int, _ERR),
    "cake_library_load": (ctypes.c_int, (ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)) + _ERR),
    "cake_library_free": (None, (_P,)),
    "cake_library_set_arch": (ctypes.c_int, (_P, ctypes.c_char_p) + _ERR),
    "cake_library_target": (ctypes.c_char_p, (_P,)),
    "cake_library_name": (ctypes.c_char_p, (_P,)),
    "cake_library_num_shape_vars": (ctypes.c_size_t, (_P,)),
    "cake_library_shape_var_name": (ctypes.c_char_p, (_P, ctypes.c_size_t)),
    "cake_library_num_variants": (ctypes.c_size_t, (_P,)),
    "cake_library_variant_name": (ctypes.c_char_p, (_P, ctypes.c_size_t)),
    "cake_library_variant_kernel": (_P, (_P, ctypes.c_size_t)),
    "cake_library_num_entries": (ctypes.c_size_t, (_P,)),
    "cake_library_entry_variant": (ctypes.c_size_t, (_P, ctypes.c_size_t)),
    "cake_library_entry_guard": (ctypes.c_char_p, (_P, ctypes.c_size_t)),
    "cake_library_select": (ctypes.c_int, (_P, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t)),
    "cake_library_explain": (ctypes.c_int, (_P, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                            ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t) + _ERR),
    "cake_library_launch": (ctypes.c_int, (_P, ctypes.POINTER(CakeArg), ctypes.c_size_t,
                                           ctypes.POINTER(CakeLaunchOptions), ctypes.POINTER(ctypes.c_int)) + _ERR),
    "cake_library_launch_workspace": (ctypes.c_int, (_P, ctypes.POINTER(CakeArg), ctypes.c_size_t,
                                                     ctypes.POINTER(CakeLaunchOptions), ctypes.c_uint64,
                                                     ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)) + _ERR),
    "cake_library_workspace_bytes": (ctypes.c_int, (_P, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                                    ctypes.POINTER(ctypes.c_size_t)) + _ERR),
    "cake_library_variant_num_kernels": (ctypes.c_size_t, (_P, ctypes.c_size_t)),
    "cake_library_variant_kernel_at": (_P, (_P, ctypes.c_size_t, ctypes.c_size_t)),
    "cake_library_variant_kernel_arg": (ctypes.c_int, (_P, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t)),
    "cake_library_variant_num_workspace": (ctypes.c_size_t, (_P, ctypes.c_size_t)),
    "cake_library_workspace_shape": (ctypes.c_int, (_P, ctypes.c_size_t, ctypes.c_size_t,
                                                    ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                                    ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32),
                                                    ctypes.POINTER(ctypes.c_int)) + _ERR),
}

_lock = threading.Lock()
_library = None


def candidate_paths():
    """Where the library is looked for, in order."""
    paths = []
    env = os.environ.get("CAKE_RUNTIME_LIB")
    if env:
        paths.append(env)
    here = os.path.dirname(os.path.abspath(__file__))
    paths.append(os.path.join(here, "lib", LIBRARY_NAME))
    paths.append(os.path.join(here, LIBRARY_NAME))
    paths.append(os.path.join(os.path.dirname(here), LIBRARY_NAME))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # runtime/python/cakeir -> repo root
    built = glob.glob(os.path.join(repo, "build*", "lib", LIBRARY_NAME))
    built.sort(key=lambda p: os.path.getmtime(p), reverse=True)
    paths.extend(built)
    return paths


def load_library():
    """Returns the configured ctypes.CDLL; raises OSError naming every place that was tried."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        tried = []
        for path in candidate_paths():
            if not os.path.isfile(path):
                tried.append(path + " (absent)")
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as error:
                tried.append("%s (%s)" % (path, error))
                continue
            for fname, (restype, argtypes) in _SIGNATURES.items():
                function = getattr(lib, fname)
                function.restype = restype
                function.argtypes = list(argtypes)
            version = lib.cake_runtime_abi_version()
            if version != ABI_VERSION:
                tried.append("%s (ABI version %d, this package needs %d)" % (path, version, ABI_VERSION))
                continue
            lib.cake_library_path = path
            _library = lib
            return lib
        raise OSError("cannot load %s; set CAKE_RUNTIME_LIB to its path or build it (ninja cake_runtime). "
                      "Tried: %s" % (LIBRARY_NAME, "; ".join(tried) or "nothing"))


def error_buffer():
    return ctypes.create_string_buffer(4096)


_buffers = threading.local()


def thread_error_buffer():
    """This thread's error buffer (the prepared-launch path reuses it instead of allocating one per call)."""
    buffer = getattr(_buffers, "buffer", None)
    if buffer is None:
        buffer = _buffers.buffer = ctypes.create_string_buffer(4096)
    return buffer
