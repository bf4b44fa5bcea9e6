"""A kernel's __call__ in C (cakeir._prepared_call.KernelCall, runtime/python_extension/kernel_call.c): where the
extension loads, kernels are instances of a subclass of KernelCall and cakeir.Kernel, so a call that matches a
kept signature launches without running any Python code (the stand-in torch of runtime/testing/fake_torch.py
with C current-device and stream queries); `stream=` alone keeps that path; other keywords, a declined launch
and `native_launch = False` reach the Python implementation, whose behaviour and messages are unchanged."""

import sys

import pytest

import cakeir
from test_native_exchange import fake_dlpack, gemm_args, torch  # noqa: F401  (fixtures)
from test_native_launch import kernels, native, outcome, same_outcome  # noqa: F401  (native: a fixture)


def python_calls(call):
    """The Python functions that ran during call()."""
    seen = []

    def profile(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


def test_kernels_are_native_kernel_calls(fake_cuda, torch, native):
    fast, slow = kernels()
    assert isinstance(fast, cakeir.Kernel) and isinstance(fast, native.KernelCall)
    assert type(fast).__call__ is native.KernelCall.__call__ and type(fast).__name__ == "Kernel"
    torch._C._cuda_getDevice = int  # a C function answering 0, as torch's does on device 0
    args = gemm_args(torch)
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}
    assert python_calls(lambda: fast(*args, 1.0)) == ["<lambda>"]  # the test's own lambda only
    assert python_calls(lambda: fast(*args, 1.0, stream=0x1234)) == ["<lambda>"]
    assert fast.launch_counts() == {"native": 2, "prepared": 1, "general": 0} and fake_cuda.stream == 0x1234
    # a declined call (another shape) runs the Python prepared path, once
    assert "_call_python" in python_calls(lambda: fast(*gemm_args(torch, m=512), 1.0))
    assert fast.launch_counts()["prepared"] == 2


def test_keywords_and_errors_reach_the_python_path(fake_cuda, torch, native):
    fast, slow = kernels()
    args = gemm_args(torch)
    same_outcome(fake_cuda, torch, fast, slow, *args, 1.0)
    assert same_outcome(fake_cuda, torch, fast, slow, *args, alpha=1.0) == {"general": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0, num_sms=4) == {"general": 1}
    for bad in ((*args, 1.0, 2.0), args[:2]):
        assert same_outcome(fake_cuda, torch, fast, slow, *bad) == {"general": 1}
    error = outcome(fake_cuda, torch, lambda: fast(*args, 1.0, 2.0))
    assert error[:2] == ("error", "CakeArgumentError") and "takes 4 arguments" in error[2]
    error = outcome(fake_cuda, torch, lambda: fast(*args, 1.0, beta=2.0))
    assert error[:2] == ("error", "CakeArgumentError") and "no parameter or shape variable 'beta'" in error[2]
    assert outcome(fake_cuda, torch, lambda: fast(*args, 1.0, stream=-1)) == \
        outcome(fake_cuda, torch, lambda: slow(*args, 1.0, stream=-1))


def test_turning_native_launches_off_keeps_the_c_call(fake_cuda, torch, native):
    fast, _ = kernels()
    args = gemm_args(torch)
    fast(*args, 1.0)
    fast.native_launch = False
    fast(*args, 1.0)
    assert fast.launch_counts() == {"native": 0, "prepared": 2, "general": 0}
    fast.native_launch = True
    fast(*args, 1.0)
    fast(*args, 1.0)
    assert fast.launch_counts() == {"native": 1, "prepared": 3, "general": 0}


def test_an_unbound_kernel_call_says_so(native):
    with pytest.raises(TypeError, match="not bound to a kernel"):
        native.KernelCall()(1, 2)


def test_bind_takes_only_a_prepared_call_of_this_build(native):
    call = native.KernelCall()
    with pytest.raises(TypeError, match="PreparedCall or None"):
        call._bind(object(), print, print)
    call._bind(None, lambda *a, **k: ("python", a[1:], k), print)
    assert call(1, stream=2) == ("python", (1,), {"stream": 2})  # no PreparedCall: every call to `call`


def test_a_tensor_method_that_rebinds_the_kernel_mid_call(fake_cuda, torch, native):
    """Reading a subclass runs its methods; one that turns native launches off (dropping the PreparedCall being
    used) must not pull it from under the call."""
    fast, slow = kernels()
    args = gemm_args(torch)
    fast(*args, 1.0)

    class Rebinding(torch.Tensor):
        def stride(self):
            fast.native_launch = not fast.native_launch
            return super().stride()
    rebinding = (Rebinding(args[0].data_ptr(), args[0].shape, args[0].dtype),) + args[1:]
    for _ in range(4):
        fast(*rebinding, 1.0)
    assert sum(fast.launch_counts().values()) == 5
