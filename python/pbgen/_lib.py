"""Loading libpbgen (the C ABI, cmd/libpbgen) with ctypes.

The library is looked for at $PBGEN_LIB, then beside this file (where
`make python` and `pip install ./python` put it).
"""

import ctypes
import os

ABI_VERSION = 1

_c_double_p = ctypes.c_void_p  # pointers are passed as addresses (ints)
_handle = ctypes.c_size_t


class PbgenError(RuntimeError):
    """An error reported by pbgen: bad input, a failed solve, a bad handle."""


def _path():
    env = os.environ.get("PBGEN_LIB")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libpbgen.so")


def _declare(lib):
    err = ctypes.c_void_p  # char* we free ourselves
    lib.pbgen_abi_version.restype = ctypes.c_int
    lib.pbgen_abi_version.argtypes = []
    lib.pbgen_free.restype = None
    lib.pbgen_free.argtypes = [ctypes.c_void_p]
    lib.pbgen_close.restype = err
    lib.pbgen_close.argtypes = [_handle]
    for name in ("pbgen_problem_load", "pbgen_problem_compiled"):
        f = getattr(lib, name)
        f.restype = err
        f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_double, ctypes.c_double,
                      ctypes.c_int, ctypes.POINTER(_handle)]
    for name in ("pbgen_problem_info", "pbgen_model_info"):
        f = getattr(lib, name)
        f.restype = err
        f.argtypes = [_handle, ctypes.POINTER(ctypes.c_void_p)]
    lib.pbgen_problem_eval.restype = err
    lib.pbgen_problem_eval.argtypes = [_handle, _c_double_p, ctypes.c_int64, ctypes.c_int64] + [_c_double_p] * 10
    lib.pbgen_problem_time_eval.restype = err
    lib.pbgen_problem_time_eval.argtypes = [_handle, _c_double_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int,
                                            ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    lib.pbgen_problem_sample.restype = err
    lib.pbgen_problem_sample.argtypes = [_handle, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                         ctypes.c_uint64, ctypes.c_char_p, _c_double_p, ctypes.c_int64,
                                         _c_double_p, ctypes.c_int64, _c_double_p]
    for name in ("pbgen_model_load", "pbgen_model_compiled"):
        f = getattr(lib, name)
        f.restype = err
        f.argtypes = [ctypes.c_char_p, ctypes.POINTER(_handle)]
    lib.pbgen_model_simulate.restype = err
    lib.pbgen_model_simulate.argtypes = [
        _handle, _c_double_p, ctypes.c_int64, _c_double_p, ctypes.c_int64, _c_double_p, ctypes.c_int64,
        ctypes.c_char_p, ctypes.c_double, ctypes.c_double, ctypes.c_double,
        _c_double_p, ctypes.c_int64, _c_double_p, ctypes.c_int64]


_lib = None


def lib():
    """The loaded library (loaded on first use)."""
    global _lib
    if _lib is None:
        path = _path()
        if not os.path.exists(path):
            raise PbgenError(
                f"pbgen: no shared library at {path}: run `make python` in the repository "
                "(or set PBGEN_LIB to a libpbgen.so built with "
                "`go build -buildmode=c-shared -o libpbgen.so ./cmd/libpbgen`)")
        l = ctypes.CDLL(path)
        _declare(l)
        v = l.pbgen_abi_version()
        if v != ABI_VERSION:
            raise PbgenError(f"pbgen: {path} has ABI version {v}, this package wants {ABI_VERSION}: rebuild it")
        _lib = l
    return _lib


def take_string(ptr):
    """The C string at ptr as str, freed."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        _lib.pbgen_free(ptr)


def check(ret):
    """Raises PbgenError with the message of an error return."""
    if ret:
        raise PbgenError(take_string(ret))
