/* cakeir._prepared_call.KernelCall: a kernel's __call__ in C (docs/runtime.md, "Launch overhead").
 *
 * cakeir.Kernel is a Python class; where this module loads, the package makes its kernels instances of a
 * subclass of both KernelCall and Kernel (cakeir._NativeKernel), so `kernel(a, b, c)` runs this type's tp_call
 * without entering Python: a call with positional arguments only, or with `stream=` as its one keyword, goes to
 * the kernel's PreparedCall (preparedCallTryLaunch: each tensor read, its signature matched, the launch made);
 * when that declines, or for any other keywords, the call goes to the Python implementation - the methods
 * handed to _bind: `rest(self, args, stream, num_sms, kwargs)` (the Python prepared path, then the general one)
 * after a decline, `call(self, *args, **kwargs)` (Kernel.__call__) otherwise - so that every behaviour and
 * message is the Python path's.  Without a PreparedCall bound (`kernel.native_launch = False`) every call goes
 * to `call`.  The state lives in C slots, so the subclass keeps Kernel's __dict__ for everything else. */
#include "prepared_call.h"

typedef struct KernelCall {
  PyObject_HEAD
  PyObject *prepared; /* the kernel's PreparedCall, or NULL */
  PyObject *call;     /* Kernel.__call__ */
  PyObject *rest;     /* Kernel._call_python */
} KernelCall;

static PyObject *gNameStream; /* "stream" */

/* Kernel.__call__(self, *args, **kwargs). */
static PyObject *callPython(KernelCall *self, PyObject *args, PyObject *kwargs) {
  if (!self->call) {
    PyErr_SetString(PyExc_TypeError, "cakeir KernelCall: not bound to a kernel (_bind was not called)");
    return NULL;
  }
  Py_ssize_t count = PyTuple_Size(args);
  PyObject *full = PyTuple_New(count + 1);
  if (!full)
    return NULL;
  PyObject *call = self->call;
  Py_INCREF(call);
  Py_INCREF((PyObject *)self);
  PyTuple_SetItem(full, 0, (PyObject *)self);
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject *item = PyTuple_GetItem(args, i);
    Py_INCREF(item);
    PyTuple_SetItem(full, i + 1, item);
  }
  PyObject *result = PyObject_Call(call, full, kwargs);
  Py_DECREF(full);
  Py_DECREF(call);
  return result;
}

static PyObject *KernelCall_call(KernelCall *self, PyObject *args, PyObject *kwargs) {
  PyObject *stream = Py_None;
  if (kwargs && PyDict_Size(kwargs) != 0) {
    /* stream= alone keeps the native path; anything else is the Python path's to parse */
    PyObject *given = PyDict_Size(kwargs) == 1 ? PyDict_GetItemWithError(kwargs, gNameStream) : NULL;
    if (!given) {
      if (PyErr_Occurred())
        return NULL;
      return callPython(self, args, kwargs);
    }
    stream = given;
  }
  if (!self->prepared || !self->rest)
    return callPython(self, args, kwargs);
  /* Held for the call: reading a tensor may run Python code (a subclass's methods) that rebinds this kernel. */
  PyObject *prepared = self->prepared, *rest = self->rest;
  Py_INCREF(prepared);
  Py_INCREF(rest);
  int launched = preparedCallTryLaunch(prepared, args, stream);
  Py_DECREF(prepared);
  PyObject *result = NULL;
  if (launched > 0) {
    Py_INCREF(Py_None);
    result = Py_None;
  } else if (launched == 0) {
    PyObject *noKeywords = PyDict_New();
    if (noKeywords)
      result = PyObject_CallFunctionObjArgs(rest, (PyObject *)self, args, stream, Py_None, noKeywords, NULL);
    Py_XDECREF(noKeywords);
  }
  Py_DECREF(rest);
  return result;
}

/* _bind(prepared, call, rest): prepared is the kernel's PreparedCall or None (native launches off). */
static PyObject *KernelCall_bind(KernelCall *self, PyObject *args) {
  PyObject *prepared, *call, *rest;
  if (!PyArg_ParseTuple(args, "OOO:_bind", &prepared, &call, &rest))
    return NULL;
  if ((prepared != Py_None && !isPreparedCall(prepared)) ||
      !PyCallable_Check(call) || !PyCallable_Check(rest)) {
    PyErr_SetString(PyExc_TypeError, "_bind(prepared: PreparedCall or None, call: callable, rest: callable)");
    return NULL;
  }
  /* the new references are in place before the old ones go (their release may run Python code) */
  PyObject *oldPrepared = self->prepared, *oldCall = self->call, *oldRest = self->rest;
  if (prepared != Py_None)
    Py_INCREF(prepared);
  self->prepared = prepared != Py_None ? prepared : NULL;
  Py_INCREF(call);
  self->call = call;
  Py_INCREF(rest);
  self->rest = rest;
  Py_XDECREF(oldPrepared);
  Py_XDECREF(oldCall);
  Py_XDECREF(oldRest);
  Py_RETURN_NONE;
}

static int KernelCall_traverse(KernelCall *self, visitproc visit, void *arg) {
  Py_VISIT(self->prepared);
  Py_VISIT(self->call);
  Py_VISIT(self->rest);
  Py_VISIT((PyObject *)Py_TYPE((PyObject *)self)); /* heap type */
  return 0;
}

static int KernelCall_clear(KernelCall *self) {
  Py_CLEAR(self->prepared);
  Py_CLEAR(self->call);
  Py_CLEAR(self->rest);
  return 0;
}

static void KernelCall_dealloc(KernelCall *self) {
  PyTypeObject *type = Py_TYPE((PyObject *)self);
  PyObject_GC_UnTrack(self);
  KernelCall_clear(self);
  freefunc free = (freefunc)PyType_GetSlot(type, Py_tp_free);
  free(self);
  Py_DECREF(type);
}

static PyMethodDef kKernelCallMethods[] = {
    {"_bind", (PyCFunction)KernelCall_bind, METH_VARARGS,
     "_bind(prepared, call, rest): launch through the PreparedCall `prepared` (None: never), else call "
     "call(self, *args, **kwargs) or, after a declined launch, rest(self, args, stream, None, {})"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot kKernelCallSlots[] = {
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_dealloc, (void *)KernelCall_dealloc},
    {Py_tp_traverse, (void *)KernelCall_traverse},
    {Py_tp_clear, (void *)KernelCall_clear},
    {Py_tp_call, (void *)KernelCall_call},
    {Py_tp_methods, (void *)kKernelCallMethods},
    {Py_tp_doc, (void *)"A kernel's __call__ in C: the base cakeir's native kernels derive from with Kernel."},
    {0, NULL}};

static PyType_Spec kKernelCallSpec = {"cakeir._prepared_call.KernelCall", sizeof(KernelCall), 0,
                                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                      kKernelCallSlots};

int addKernelCallType(PyObject *module) {
  if (!gNameStream && !(gNameStream = PyUnicode_InternFromString("stream")))
    return -1;
  PyObject *type = PyType_FromSpec(&kKernelCallSpec);
  if (!type)
    return -1;
  if (PyModule_AddObject(module, "KernelCall", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}
