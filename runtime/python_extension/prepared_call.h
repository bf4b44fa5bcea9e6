/* What the two halves of cakeir._prepared_call share: the prepared-launch state (PreparedCall, prepared_call.c)
 * and the kernel's call (KernelCall, kernel_call.c), which launches through it. */
#ifndef CAKEIR_PREPARED_CALL_H
#define CAKEIR_PREPARED_CALL_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Launches `args` (a tuple of the kernel's arguments) on `stream` (None or an int handle) through the
 * PreparedCall `preparedCall` when they match a signature it keeps: 1 when launched, 0 when it declined (nothing
 * done, no error set: the Python path takes the call), -1 with the launch's error set. */
int preparedCallTryLaunch(PyObject *preparedCall, PyObject *args, PyObject *stream);

/* 1 when `object` is a PreparedCall of this build of the module (not of another build loaded beside it, whose
 * layout may differ), else 0. */
int isPreparedCall(PyObject *object);

/* Adds the KernelCall type to `module`. */
int addKernelCallType(PyObject *module);

#endif
