/* _cake_fake_dlpack: a stand-in for torch's tensors as the native launch path reads them, for the tests and the
 * CPU run of bench/launch_overhead.py (no GPU, no CUDA torch here).
 *
 * Tensor is a base type whose instances hold what DLPack describes (address, device, dtype, shape, strides),
 * set with _set(); the type carries a "dlpack_exchange_api" capsule as its __dlpack_c_exchange_api__, laid out
 * as dlpack.h 1.3 lays DLPackExchangeAPI out and filled as torch's is: dltensor_from_py_object_no_sync fills a
 * DLTensor from the instance (shape and strides point into it), current_work_stream gives the stream set with
 * set_stream() for CUDA and NULL for anything else.  A Python subclass adds the methods torch's Python path
 * reads (tests/python/test_native_launch.py).  counts() says how often each function ran, so that a test can
 * tell the exchange path from the method path; _set(..., fail=True) makes the fill fail (a RuntimeError, as
 * torch's does for a tensor without storage).
 *
 * time_exchange(obj, n) calls the exchange API of type(obj) - torch's own for a torch tensor - n times on obj
 * and returns nanoseconds of the thread's CPU time per call: how the launch-overhead bench measures what
 * reading a real torch tensor costs on a machine without a GPU (a CPU tensor reads as a CUDA one does).
 *
 * CPython's stable ABI (3.11), like cakeir._prepared_call; built only with the tests (runtime/CMakeLists.txt). */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <time.h>

#include "dlpack_exchange.h"

enum { kMaxRank = 8 };

typedef struct FakeTensor {
  PyObject_HEAD
  uint64_t data;
  uint64_t byteOffset;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int fail;
  int64_t shape[kMaxRank];
  int64_t strides[kMaxRank];
} FakeTensor;

static PyObject *gTensorType;
static uint64_t gStream;
static unsigned long long gFills, gStreamQueries;

static int fill(void *object, DLTensor *out) {
  ++gFills;
  if (!gTensorType || !PyObject_TypeCheck((PyObject *)object, (PyTypeObject *)gTensorType)) {
    PyErr_SetString(PyExc_TypeError, "not a _cake_fake_dlpack.Tensor");
    return -1;
  }
  FakeTensor *tensor = object;
  if (tensor->fail) {
    PyErr_SetString(PyExc_RuntimeError, "Cannot access data pointer of Tensor that doesn't have storage");
    return -1;
  }
  out->data = (void *)(uintptr_t)tensor->data;
  out->device = tensor->device;
  out->ndim = tensor->ndim;
  out->dtype = tensor->dtype;
  out->shape = tensor->shape;
  out->strides = tensor->strides;
  out->byte_offset = tensor->byteOffset;
  return 0;
}

static int currentStream(int32_t deviceType, int32_t deviceId, void **out) {
  ++gStreamQueries;
  *out = deviceType == kDLCUDA ? (void *)(uintptr_t)(gStream + (uint64_t)deviceId) : NULL;
  return 0;
}

static DLPackExchangeAPI gApi = {{1, 3, NULL}, NULL, NULL, NULL, fill, currentStream};

/* _set(data, shape, strides, dtype=(code, bits, lanes), device=(type, id), byte_offset=0, fail=False) */
static PyObject *Tensor_set(FakeTensor *self, PyObject *args, PyObject *kwargs) {
  unsigned long long data, byteOffset = 0;
  PyObject *shape, *strides;
  int code, bits, lanes, deviceType, deviceId, fail = 0;
  static char *keywords[] = {"data", "shape", "strides", "dtype", "device", "byte_offset", "fail", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KOO(iii)(ii)|Kp:_set", keywords, &data, &shape, &strides, &code,
                                   &bits, &lanes, &deviceType, &deviceId, &byteOffset, &fail))
    return NULL;
  if (!PyTuple_Check(shape) || !PyTuple_Check(strides) || PyTuple_Size(shape) != PyTuple_Size(strides) ||
      PyTuple_Size(shape) > kMaxRank) {
    PyErr_SetString(PyExc_ValueError, "_set: shape and strides are tuples of one length, at most 8");
    return NULL;
  }
  Py_ssize_t rank = PyTuple_Size(shape);
  for (Py_ssize_t d = 0; d < rank; ++d) {
    self->shape[d] = PyLong_AsLongLong(PyTuple_GetItem(shape, d));
    self->strides[d] = PyLong_AsLongLong(PyTuple_GetItem(strides, d));
  }
  if (PyErr_Occurred())
    return NULL;
  self->data = data;
  self->byteOffset = byteOffset;
  self->ndim = (int32_t)rank;
  self->dtype.code = (uint8_t)code;
  self->dtype.bits = (uint8_t)bits;
  self->dtype.lanes = (uint16_t)lanes;
  self->device.device_type = deviceType;
  self->device.device_id = deviceId;
  self->fail = fail;
  Py_RETURN_NONE;
}

static PyMethodDef kTensorMethods[] = {
    {"_set", (PyCFunction)(void (*)(void))Tensor_set, METH_VARARGS | METH_KEYWORDS,
     "_set(data, shape, strides, dtype=(code, bits, lanes), device=(type, id), byte_offset=0, fail=False)"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot kTensorSlots[] = {{Py_tp_methods, kTensorMethods},
                                     {Py_tp_doc, (void *)"A tensor as DLPack's exchange API describes it."},
                                     {0, NULL}};

static PyType_Spec kTensorSpec = {"_cake_fake_dlpack.Tensor", sizeof(FakeTensor), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, kTensorSlots};

static PyObject *setStream(PyObject *module, PyObject *value) {
  (void)module;
  gStream = PyLong_AsUnsignedLongLong(value);
  if (PyErr_Occurred())
    return NULL;
  Py_RETURN_NONE;
}

static PyObject *counts(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  return Py_BuildValue("(KK)", gFills, gStreamQueries);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: a shared machine's descheduling is not counted */
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* time_exchange(obj, n): CPU ns per dltensor_from_py_object_no_sync call of type(obj)'s exchange API on obj. */
static PyObject *timeExchange(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *object;
  long long count;
  if (!PyArg_ParseTuple(args, "OL:time_exchange", &object, &count) || count <= 0) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "time_exchange: n must be positive");
    return NULL;
  }
  PyObject *capsule = PyObject_GetAttrString((PyObject *)Py_TYPE(object), "__dlpack_c_exchange_api__");
  if (!capsule)
    return NULL;
  const DLPackExchangeAPI *api = PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
  Py_DECREF(capsule); /* the table outlives the capsule (dlpack.h: it lives as long as the process) */
  if (!api)
    return NULL;
  DLTensor tensor;
  double start = now();
  for (long long i = 0; i < count; ++i)
    if (api->dltensor_from_py_object_no_sync(object, &tensor) != 0)
      return NULL;
  return PyFloat_FromDouble((now() - start) / (double)count);
}

static PyMethodDef kModuleMethods[] = {
    {"set_stream", setStream, METH_O, "set_stream(handle): what current_work_stream gives for CUDA device 0"},
    {"counts", counts, METH_NOARGS, "counts() -> (DLTensor fills, current-stream queries) so far"},
    {"time_exchange", timeExchange, METH_VARARGS, "time_exchange(obj, n) -> CPU ns per exchange-API read of obj"},
    {NULL, NULL, 0, NULL}};

static int moduleExec(PyObject *module) {
  PyObject *type = PyType_FromSpec(&kTensorSpec);
  if (!type)
    return -1;
  PyObject *capsule = PyCapsule_New(&gApi, "dlpack_exchange_api", NULL);
  if (!capsule || PyObject_SetAttrString(type, "__dlpack_c_exchange_api__", capsule) < 0) {
    Py_XDECREF(capsule);
    Py_DECREF(type);
    return -1;
  }
  Py_DECREF(capsule);
  Py_XDECREF(gTensorType);
  Py_INCREF(type);
  gTensorType = type;
  if (PyModule_AddObject(module, "Tensor", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}

static PyModuleDef_Slot kModuleSlots[] = {{Py_mod_exec, (void *)moduleExec}, {0, NULL}};

static struct PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_cake_fake_dlpack",
                                     "A stand-in for torch tensors read through DLPack's C exchange API.", 0,
                                     kModuleMethods, kModuleSlots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cake_fake_dlpack(void) { return PyModuleDef_Init(&kModule); }
