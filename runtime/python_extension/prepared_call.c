/* cakeir._prepared_call: the native hot path of a kernel's prepared launch (docs/runtime.md, "Launch
 * overhead").  This file: the module and its PreparedCall type; kernel_call.c: KernelCall, the kernel's
 * __call__ in C, which launches through a PreparedCall (prepared_call.h is what they share).
 *
 * One PreparedCall object per cakeir.Kernel.  preparedCallTryLaunch(args, stream) - and calling the object
 * with (args, stream) - launches when every argument matches a signature it was told about (remember()):
 * each tensor's dtype, shape, strides and device index, each scalar's type and value, exactly what
 * Kernel._call_prepared keys its prepared launches on.  Every call reads every argument afresh: a tensor whose
 * type is exactly torch.Tensor (or torch.nn.Parameter) through torch's DLPack C exchange API
 * (torch.Tensor.__dlpack_c_exchange_api__: one C call fills a DLTensor, no Python code runs), any other tensor
 * through its Python methods (get_device, dtype, shape, stride, data_ptr), a DevicePtr through its
 * attributes.  A hit asks torch whether the tensors' device is current (torch._C._cuda_getDevice) and for its
 * current stream (the exchange API's current_work_stream, else torch._C._cuda_getCurrentRawStream), all
 * cached per torch module, and calls the runtime's cake_launch_prepared with the addresses, with the GIL
 * released.  Anything else - another signature, a tensor on a device that is not the current one or that the
 * API cannot describe (a CPU tensor), a stream other than None or an int, an argument whose reading raises -
 * declines having done nothing, and the caller takes the Python path, so semantics and error messages stay
 * those of the Python path.  A launch error raises the exception the package's error_for(status, message)
 * builds, as the Python path does.
 *
 * The module links neither libcake_runtime nor torch: the runtime's cake_launch_prepared comes as a function
 * address from the ctypes binding the package already loaded (so both paths use the same library), and
 * torch's functions from its capsule and module at run time.  Signatures are kept most recently used first,
 * at most kMaxSignatures per kernel; each keeps a reference to the Python object owning its
 * cake_prepared_launch.
 *
 * Written against CPython's stable ABI (Py_LIMITED_API 3.11): one abi3 binary, built with Python 3.11's
 * headers, loads into 3.11, 3.12 and later, so a build made on a 3.11 machine runs on a 3.12 one.  nanobind's
 * stable-ABI builds need 3.12+ headers, hence the plain C API. */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "cake/runtime.h"
#include "dlpack_exchange.h"
#include "prepared_call.h"

#include <stdint.h>
#include <string.h>

enum { kDLPackMajor = 1 }; /* the DLPack major version whose exchange API this file reads */

enum {
  kMaxRank = 8,         /* kMaxTensorRank in runtime/src/Manifest.h */
  kMaxParams = 64,      /* kernels with more params always take the Python path */
  kMaxSignatures = 8,   /* signatures kept per kernel */
  kErrorBufferSize = 4096
};

typedef cake_status (*LaunchPreparedFn)(cake_prepared_launch *, const uint64_t *, size_t, void *, char *, size_t);

/* What an argument's signature records. */
typedef enum ArgKind { kTorchTensor = 1, kExchangeTensor, kDevicePtr, kInt, kFloat, kBool } ArgKind;

typedef struct ArgSignature {
  ArgKind kind;
  int rank;            /* tensors: number of dims */
  int hasStrides;      /* DevicePtr: strides given (a torch tensor always has them) */
  PyObject *dtype;     /* torch tensors: the dtype object (compared by identity) */
  int64_t dtypeCode;   /* DevicePtr: its dtype code, -1 for None; exchange-read tensors: the DLDataType */
  int64_t device;      /* torch tensors: the device index */
  int64_t shape[kMaxRank];
  int64_t strides[kMaxRank];
  uint64_t bits;       /* scalars: the int64 value or the double's bits */
} ArgSignature;

typedef struct Signature {
  ArgSignature *args;          /* one per param */
  cake_prepared_launch *handle;
  PyObject *owner;             /* keeps `handle` alive */
} Signature;

/* The Python-visible state of one kernel's native path. */
typedef struct PreparedCall {
  PyObject_HEAD
  LaunchPreparedFn launch;
  PyObject *errorFor;          /* error_for(status, message) -> exception */
  PyObject *devicePtrType;     /* cakeir.DevicePtr */
  Py_ssize_t numParams;
  unsigned char isTensor[kMaxParams];
  /* torch, as last seen in sys.modules: the module and what is read from it */
  PyObject *torch;
  PyObject *tensorType;
  PyObject *getDevice;         /* torch._C._cuda_getDevice */
  PyObject *rawStream;         /* torch._C._cuda_getCurrentRawStream */
  PyObject *parameterType;     /* torch.nn.Parameter, when there is one */
  PyObject *exchangeCapsule;   /* torch.Tensor.__dlpack_c_exchange_api__, when usable */
  const DLPackExchangeAPI *exchange; /* its table, or NULL: tensors are read through their methods */
  Signature signatures[kMaxSignatures];
  int numSignatures;
  unsigned long long launches; /* launches made here */
  unsigned long long exchangeReads; /* tensors read through the exchange API */
} PreparedCall;

/* Interned attribute names, made once at module init and never changed. */
static PyObject *kNameDtype, *kNameShape, *kNameStride, *kNameGetDevice, *kNameDataPtr, *kNameTensor, *kNameC,
    *kNameCudaGetDevice, *kNameRawStream, *kNamePtr, *kNameStrides, *kNameTorch, *kNameExchangeApi, *kNameNn,
    *kNameParameter;

/* ---- reading arguments */

/* 1 and *out for an exact int in int64 range; 0 otherwise (no Python error left set). */
static int exactInt64(PyObject *value, int64_t *out) {
  if (!PyLong_CheckExact(value))
    return 0;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return 0;
  }
  *out = v;
  return 1;
}

/* 1 and *out for an int in 0..2^64-1 (a device address or stream handle); 0 otherwise (no error left set).
 * Tries the int64 conversion first: CPython's unsigned one takes a slower, general path. */
static int readUint64(PyObject *value, uint64_t *out) {
  if (!PyLong_Check(value))
    return 0;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (!overflow && !(v == -1 && PyErr_Occurred())) {
    *out = (uint64_t)v;
    return v >= 0;
  }
  PyErr_Clear();
  if (overflow < 0)
    return 0;
  unsigned long long u = PyLong_AsUnsignedLongLong(value);
  if (u == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_Clear();
    return 0;
  }
  *out = u;
  return 1;
}

/* A tuple of at most kMaxRank exact ints into dims[]; returns the count or -1. */
static int readDims(PyObject *tuple, int64_t *dims) {
  if (!PyTuple_Check(tuple))
    return -1;
  Py_ssize_t n = PyTuple_Size(tuple);
  if (n < 0 || n > kMaxRank) {
    PyErr_Clear();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!exactInt64(PyTuple_GetItem(tuple, i), &dims[i]))
      return -1;
  return (int)n;
}

static PyObject *callMethod(PyObject *object, PyObject *name) {
  return PyObject_CallMethodObjArgs(object, name, NULL);
}

/* The exchange API table in `capsule` when this file can use it: a "dlpack_exchange_api" capsule of DLPack
 * major version 1 with both functions read here; else NULL (no error left set). */
static const DLPackExchangeAPI *exchangeApiOf(PyObject *capsule) {
  if (!capsule || !PyCapsule_IsValid(capsule, "dlpack_exchange_api"))
    return NULL;
  const DLPackExchangeAPI *api = PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
  if (!api) {
    PyErr_Clear();
    return NULL;
  }
  if (api->header.major != kDLPackMajor || !api->dltensor_from_py_object_no_sync || !api->current_work_stream)
    return NULL;
  return api;
}

/* Refreshes the torch entries from sys.modules["torch"] when it is not the module last seen. */
static void refreshTorch(PreparedCall *self, PyObject *torch) {
  Py_CLEAR(self->tensorType);
  Py_CLEAR(self->getDevice);
  Py_CLEAR(self->rawStream);
  Py_CLEAR(self->exchangeCapsule);
  Py_CLEAR(self->parameterType);
  self->exchange = NULL;
  Py_XINCREF(torch);
  Py_XDECREF(self->torch);
  self->torch = torch;
  if (!torch)
    return;
  PyObject *tensorType = PyObject_GetAttr(torch, kNameTensor);
  PyObject *c = PyObject_GetAttr(torch, kNameC);
  PyObject *getDevice = c ? PyObject_GetAttr(c, kNameCudaGetDevice) : NULL;
  PyObject *rawStream = c ? PyObject_GetAttr(c, kNameRawStream) : NULL;
  PyErr_Clear();
  Py_XDECREF(c);
  if (tensorType && PyType_Check(tensorType) && getDevice && rawStream) {
    self->tensorType = tensorType;
    self->getDevice = getDevice;
    self->rawStream = rawStream;
    PyObject *capsule = PyObject_GetAttr(tensorType, kNameExchangeApi); /* a class attribute (dlpack.h) */
    PyErr_Clear();
    self->exchange = exchangeApiOf(capsule);
    if (self->exchange)
      self->exchangeCapsule = capsule;
    else
      Py_XDECREF(capsule);
    /* torch.nn.Parameter changes none of what the API reads (nor the methods the Python path calls) */
    PyObject *nn = PyObject_GetAttr(torch, kNameNn);
    PyObject *parameterType = nn ? PyObject_GetAttr(nn, kNameParameter) : NULL;
    PyErr_Clear();
    Py_XDECREF(nn);
    if (parameterType && PyType_Check(parameterType) &&
        PyType_IsSubtype((PyTypeObject *)parameterType, (PyTypeObject *)tensorType))
      self->parameterType = parameterType;
    else
      Py_XDECREF(parameterType);
    return;
  }
  Py_XDECREF(tensorType);
  Py_XDECREF(getDevice);
  Py_XDECREF(rawStream);
}

/* The torch tensor type of sys.modules["torch"] with its hooks, or NULL (no torch, or one without them). */
static PyObject *currentTensorType(PreparedCall *self) {
  PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
  PyObject *torch = modules ? PyDict_GetItemWithError(modules, kNameTorch) : NULL; /* borrowed */
  if (!torch)
    PyErr_Clear();
  if (torch != self->torch)
    refreshTorch(self, torch);
  return self->tensorType;
}

/* torch.Tensor for a tensor of type `type`: the one of the torch module last seen when `type` is it or a
 * subclass of it (so that sys.modules is not looked at on every call), else the one of sys.modules["torch"]
 * now (NULL when there is none). */
static PyObject *tensorTypeFor(PreparedCall *self, PyTypeObject *type) {
  PyObject *cached = self->tensorType;
  if (cached && ((PyObject *)type == cached || (PyObject *)type == self->parameterType ||
                 PyType_IsSubtype(type, (PyTypeObject *)cached)))
    return cached;
  return currentTensorType(self);
}

/* Reads a tensor of exactly torch.Tensor's type (or torch.nn.Parameter's) through the exchange API: no Python
 * call, no object made.
 * 1 for a CUDA tensor of at most kMaxRank dims (its device, DLPack dtype, shape, strides and address), else 0
 * with no error left set (a CPU tensor, a tensor without storage, ...: the Python path reads it and reports). */
static int readExchangeTensor(PreparedCall *self, PyObject *value, ArgSignature *sig, uint64_t *address) {
  DLTensor tensor;
  if (self->exchange->dltensor_from_py_object_no_sync(value, &tensor) != 0) {
    PyErr_Clear();
    return 0;
  }
  if (tensor.device.device_type != kDLCUDA || tensor.device.device_id < 0 || tensor.ndim < 0 ||
      tensor.ndim > kMaxRank || (tensor.ndim > 0 && (!tensor.shape || !tensor.strides)))
    return 0;
  sig->kind = kExchangeTensor;
  sig->hasStrides = 1;
  sig->dtype = NULL;
  sig->device = tensor.device.device_id;
  /* torch maps each of its dtypes to its own (code, bits, lanes), so this identifies the dtype as the dtype
   * object does on the method-read path */
  sig->dtypeCode = (int64_t)tensor.dtype.code | (int64_t)tensor.dtype.bits << 8 | (int64_t)tensor.dtype.lanes << 16;
  sig->rank = tensor.ndim;
  for (int d = 0; d < tensor.ndim; ++d) {
    sig->shape[d] = tensor.shape[d];
    sig->strides[d] = tensor.strides[d];
  }
  *address = (uint64_t)(uintptr_t)tensor.data + tensor.byte_offset;
  ++self->exchangeReads;
  return 1;
}

/* Reads argument `value` of a tensor param into *sig and its address into *address.  Returns 1, or 0 when the
 * argument is not one the native path takes or reading it raised (the error is cleared: the Python path reads
 * it again and reports).  A torch tensor's dtype reference is stored in sig->dtype (released by the caller). */
static int readTensor(PreparedCall *self, PyObject *value, ArgSignature *sig, uint64_t *address) {
  PyTypeObject *type = Py_TYPE(value);
  if ((PyObject *)type == self->devicePtrType) {
    sig->kind = kDevicePtr;
    sig->dtype = NULL;
    PyObject *shape = PyObject_GetAttr(value, kNameShape);
    PyObject *dtype = shape ? PyObject_GetAttr(value, kNameDtype) : NULL;
    PyObject *strides = dtype ? PyObject_GetAttr(value, kNameStrides) : NULL;
    PyObject *ptr = strides ? PyObject_GetAttr(value, kNamePtr) : NULL;
    int ok = ptr != NULL && shape != Py_None;
    if (ok)
      ok = (sig->rank = readDims(shape, sig->shape)) >= 0;
    if (ok) {
      sig->dtypeCode = -1;
      ok = dtype == Py_None || exactInt64(dtype, &sig->dtypeCode);
    }
    if (ok) {
      sig->hasStrides = strides != Py_None;
      ok = !sig->hasStrides || readDims(strides, sig->strides) == sig->rank;
    }
    if (ok)
      ok = readUint64(ptr, address);
    Py_XDECREF(shape);
    Py_XDECREF(dtype);
    Py_XDECREF(strides);
    Py_XDECREF(ptr);
    PyErr_Clear();
    return ok;
  }
  PyObject *tensorType = tensorTypeFor(self, type);
  if (!tensorType || !PyType_IsSubtype(type, (PyTypeObject *)tensorType))
    return 0;
  /* another subclass may override what its methods say (or hold no data itself): read through them */
  if (self->exchange && ((PyObject *)type == tensorType || (PyObject *)type == self->parameterType))
    return readExchangeTensor(self, value, sig, address);
  sig->kind = kTorchTensor;
  sig->hasStrides = 1;
  PyObject *device = callMethod(value, kNameGetDevice);
  if (!device || !exactInt64(device, &sig->device) || sig->device < 0) { /* -1: not a CUDA tensor */
    Py_XDECREF(device);
    PyErr_Clear();
    return 0;
  }
  Py_DECREF(device);
  PyObject *dtype = PyObject_GetAttr(value, kNameDtype);
  PyObject *shape = dtype ? PyObject_GetAttr(value, kNameShape) : NULL;
  PyObject *strides = shape ? callMethod(value, kNameStride) : NULL;
  PyObject *ptr = strides ? callMethod(value, kNameDataPtr) : NULL;
  int ok = ptr != NULL && (sig->rank = readDims(shape, sig->shape)) >= 0 &&
           readDims(strides, sig->strides) == sig->rank;
  if (ok)
    ok = readUint64(ptr, address);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(ptr);
  PyErr_Clear();
  if (!ok) {
    Py_XDECREF(dtype);
    return 0;
  }
  sig->dtype = dtype; /* owned until the caller releases it */
  return 1;
}

static int readScalar(PyObject *value, ArgSignature *sig) {
  sig->dtype = NULL;
  if (PyBool_Check(value)) {
    sig->kind = kBool;
    sig->bits = value == Py_True;
    return 1;
  }
  if (PyLong_CheckExact(value)) {
    int64_t v;
    sig->kind = kInt;
    if (!exactInt64(value, &v))
      return 0;
    memcpy(&sig->bits, &v, sizeof v);
    return 1;
  }
  if (PyFloat_CheckExact(value)) {
    double v = PyFloat_AsDouble(value);
    sig->kind = kFloat;
    memcpy(&sig->bits, &v, sizeof v);
    return 1;
  }
  return 0;
}

static void releaseDtypes(ArgSignature *args, Py_ssize_t count) {
  for (Py_ssize_t i = 0; i < count; ++i)
    if (args[i].kind == kTorchTensor)
      Py_CLEAR(args[i].dtype);
}

/* Reads every argument; 1 when all are of kinds the native path takes (then the caller releases the dtypes),
 * else 0 with nothing held.  *device: the first torch tensor's device index, or -1 when there is none. */
static int readArgs(PreparedCall *self, PyObject *args, ArgSignature *sigs, uint64_t *addresses, int64_t *device) {
  if (!PyTuple_Check(args) || PyTuple_Size(args) != self->numParams) {
    PyErr_Clear();
    return 0;
  }
  *device = -1;
  for (Py_ssize_t i = 0; i < self->numParams; ++i) {
    PyObject *value = PyTuple_GetItem(args, i);
    int ok;
    addresses[i] = 0;
    if (self->isTensor[i]) {
      ok = readTensor(self, value, &sigs[i], &addresses[i]);
      if (ok && (sigs[i].kind == kTorchTensor || sigs[i].kind == kExchangeTensor) && *device < 0)
        *device = sigs[i].device;
    } else {
      ok = readScalar(value, &sigs[i]);
    }
    if (!ok) {
      releaseDtypes(sigs, i);
      return 0;
    }
  }
  return 1;
}

static int sameArg(const ArgSignature *a, const ArgSignature *b) {
  if (a->kind != b->kind)
    return 0;
  switch (a->kind) {
  case kTorchTensor:
    if (a->dtype != b->dtype || a->device != b->device)
      return 0;
    break;
  case kExchangeTensor:
    if (a->dtypeCode != b->dtypeCode || a->device != b->device)
      return 0;
    break;
  case kDevicePtr:
    if (a->dtypeCode != b->dtypeCode || a->hasStrides != b->hasStrides)
      return 0;
    break;
  default:
    return a->bits == b->bits;
  }
  if (a->rank != b->rank)
    return 0;
  for (int d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d] || (a->hasStrides && a->strides[d] != b->strides[d]))
      return 0;
  return 1;
}

/* The index of the kept signature equal to sigs, or -1. */
static int findSignature(const PreparedCall *self, const ArgSignature *sigs) {
  for (int s = 0; s < self->numSignatures; ++s) {
    const ArgSignature *kept = self->signatures[s].args;
    Py_ssize_t i = 0;
    while (i < self->numParams && sameArg(&kept[i], &sigs[i]))
      ++i;
    if (i == self->numParams)
      return s;
  }
  return -1;
}

static void freeSignature(PreparedCall *self, Signature *signature) {
  if (signature->args) {
    releaseDtypes(signature->args, self->numParams);
    PyMem_Free(signature->args);
  }
  Py_CLEAR(signature->owner);
  signature->args = NULL;
  signature->handle = NULL;
}

/* Moves signature `index` to the front (most recently used first). */
static void moveToFront(PreparedCall *self, int index) {
  if (index <= 0)
    return;
  Signature hit = self->signatures[index];
  memmove(&self->signatures[1], &self->signatures[0], (size_t)index * sizeof(Signature));
  self->signatures[0] = hit;
}

/* ---- the type */

static PyObject *PreparedCall_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  unsigned long long launchAddress = 0;
  PyObject *isTensor = NULL, *devicePtrType = NULL, *errorFor = NULL;
  static char *keywords[] = {"launch_address", "is_tensor", "device_ptr_type", "error_for", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KO!OO:PreparedCall", keywords, &launchAddress, &PyTuple_Type,
                                   &isTensor, &devicePtrType, &errorFor))
    return NULL;
  Py_ssize_t count = PyTuple_Size(isTensor);
  if (launchAddress == 0 || count > kMaxParams || !PyType_Check(devicePtrType) || !PyCallable_Check(errorFor)) {
    PyErr_Format(PyExc_ValueError,
                 "PreparedCall: needs cake_launch_prepared's address, at most %d params, the DevicePtr type "
                 "and a callable error_for", (int)kMaxParams);
    return NULL;
  }
  PreparedCall *self = (PreparedCall *)PyType_GenericAlloc(type, 0);
  if (!self)
    return NULL;
  self->launch = (LaunchPreparedFn)(uintptr_t)launchAddress;
  self->numParams = count;
  for (Py_ssize_t i = 0; i < count; ++i) {
    int truth = PyObject_IsTrue(PyTuple_GetItem(isTensor, i));
    if (truth < 0) {
      Py_DECREF(self);
      return NULL;
    }
    self->isTensor[i] = (unsigned char)truth;
  }
  Py_INCREF(devicePtrType);
  self->devicePtrType = devicePtrType;
  Py_INCREF(errorFor);
  self->errorFor = errorFor;
  return (PyObject *)self;
}

static void clearSignatures(PreparedCall *self) {
  for (int s = 0; s < self->numSignatures; ++s)
    freeSignature(self, &self->signatures[s]);
  self->numSignatures = 0;
}

static int PreparedCall_traverse(PreparedCall *self, visitproc visit, void *arg) {
  Py_VISIT(self->errorFor);
  Py_VISIT(self->devicePtrType);
  Py_VISIT(self->torch);
  Py_VISIT(self->tensorType);
  Py_VISIT(self->getDevice);
  Py_VISIT(self->rawStream);
  Py_VISIT(self->exchangeCapsule);
  Py_VISIT(self->parameterType);
  for (int s = 0; s < self->numSignatures; ++s)
    Py_VISIT(self->signatures[s].owner);
  Py_VISIT((PyObject *)Py_TYPE((PyObject *)self)); /* heap type */
  return 0;
}

static int PreparedCall_clear(PreparedCall *self) {
  clearSignatures(self);
  Py_CLEAR(self->errorFor);
  Py_CLEAR(self->devicePtrType);
  Py_CLEAR(self->torch);
  Py_CLEAR(self->tensorType);
  Py_CLEAR(self->getDevice);
  Py_CLEAR(self->rawStream);
  Py_CLEAR(self->exchangeCapsule);
  Py_CLEAR(self->parameterType);
  self->exchange = NULL;
  return 0;
}

static void PreparedCall_dealloc(PreparedCall *self) {
  PyTypeObject *type = Py_TYPE((PyObject *)self);
  PyObject_GC_UnTrack(self);
  PreparedCall_clear(self);
  PyObject_GC_Del(self);
  Py_DECREF(type);
}

/* The launch stream for `stream` (None or an int) and the tensors' device (-1: no torch tensor); 1 on success,
 * 0 to decline.  With torch tensors their device must be the current one, whatever the stream (else the
 * Python path enters torch's device guard). */
static int launchStream(PreparedCall *self, PyObject *stream, int64_t device, void **out) {
  PyObject *deviceIndex = NULL;
  if (device >= 0) {
    PyObject *current = PyObject_CallNoArgs(self->getDevice);
    int64_t index;
    int isCurrent = current && exactInt64(current, &index) && index == device;
    if (isCurrent) {
      deviceIndex = current; /* reused as the argument of the raw-stream query */
    } else {
      Py_XDECREF(current);
      PyErr_Clear();
      return 0;
    }
  }
  PyObject *handle;
  if (stream != Py_None) {
    Py_XDECREF(deviceIndex);
    if (!PyLong_CheckExact(stream))
      return 0;
    handle = stream;
    Py_INCREF(handle);
  } else if (!deviceIndex) {
    *out = NULL;
    return 1;
  } else if (self->exchange) { /* torch's current stream of that device, without a Python call */
    Py_DECREF(deviceIndex);
    void *current = NULL;
    if (self->exchange->current_work_stream(kDLCUDA, (int32_t)device, &current) != 0) {
      PyErr_Clear();
      return 0;
    }
    *out = current;
    return 1;
  } else {
    handle = PyObject_CallFunctionObjArgs(self->rawStream, deviceIndex, NULL);
    Py_DECREF(deviceIndex);
    if (!handle) {
      PyErr_Clear();
      return 0;
    }
  }
  uint64_t value;
  int ok = readUint64(handle, &value);
  Py_DECREF(handle);
  if (ok)
    *out = (void *)(uintptr_t)value;
  return ok;
}

int preparedCallTryLaunch(PyObject *object, PyObject *args, PyObject *stream) {
  PreparedCall *self = (PreparedCall *)object;
  if (self->numSignatures == 0)
    return 0;
  ArgSignature sigs[kMaxParams];
  uint64_t addresses[kMaxParams];
  int64_t device;
  if (!readArgs(self, args, sigs, addresses, &device))
    return 0;
  int found = findSignature(self, sigs);
  releaseDtypes(sigs, self->numParams);
  void *streamHandle = NULL;
  if (found < 0 || !launchStream(self, stream, device, &streamHandle))
    return 0;
  moveToFront(self, found);
  Signature *signature = &self->signatures[0];
  PyObject *owner = signature->owner;
  cake_prepared_launch *handle = signature->handle;
  char err[kErrorBufferSize];
  cake_status status;
  Py_INCREF(owner); /* the handle stays alive while the GIL is released */
  Py_BEGIN_ALLOW_THREADS
  status = self->launch(handle, addresses, (size_t)self->numParams, streamHandle, err, sizeof err);
  Py_END_ALLOW_THREADS
  Py_DECREF(owner);
  if (status != CAKE_OK) {
    PyObject *message = PyUnicode_DecodeUTF8(err, (Py_ssize_t)strnlen(err, sizeof err), "replace");
    PyObject *error = message ? PyObject_CallFunction(self->errorFor, "iO", (int)status, message) : NULL;
    Py_XDECREF(message);
    if (error) {
      PyErr_SetObject((PyObject *)Py_TYPE(error), error);
      Py_DECREF(error);
    }
    return -1;
  }
  ++self->launches;
  return 1;
}

/* __call__(args, stream): True when launched here, False when the Python path must take the call. */
static PyObject *PreparedCall_call(PreparedCall *self, PyObject *callArgs, PyObject *kwargs) {
  if (kwargs || PyTuple_Size(callArgs) != 2) {
    PyErr_SetString(PyExc_TypeError, "PreparedCall(args, stream)");
    return NULL;
  }
  int launched = preparedCallTryLaunch((PyObject *)self, PyTuple_GetItem(callArgs, 0), PyTuple_GetItem(callArgs, 1));
  if (launched < 0)
    return NULL;
  return PyBool_FromLong(launched);
}

int isPreparedCall(PyObject *object) {
  return PyType_GetSlot(Py_TYPE(object), Py_tp_call) == (void *)PreparedCall_call;
}

/* remember(args, handle, owner): keeps the signature of `args` (already prepared by the Python path) for the
 * cake_prepared_launch at address `handle`, which `owner` keeps alive.  True when kept (or already kept). */
static PyObject *PreparedCall_rememberArgs(PreparedCall *self, PyObject *callArgs) {
  PyObject *args, *owner;
  unsigned long long handle;
  if (!PyArg_ParseTuple(callArgs, "OKO:remember", &args, &handle, &owner))
    return NULL;
  ArgSignature sigs[kMaxParams];
  uint64_t addresses[kMaxParams];
  int64_t device;
  if (handle == 0 || !readArgs(self, args, sigs, addresses, &device))
    Py_RETURN_FALSE;
  int found = findSignature(self, sigs);
  if (found >= 0) {
    releaseDtypes(sigs, self->numParams);
    moveToFront(self, found);
    Py_RETURN_TRUE;
  }
  ArgSignature *kept = PyMem_Malloc((size_t)(self->numParams ? self->numParams : 1) * sizeof(ArgSignature));
  if (!kept) {
    releaseDtypes(sigs, self->numParams);
    return PyErr_NoMemory();
  }
  memcpy(kept, sigs, (size_t)self->numParams * sizeof(ArgSignature)); /* takes over the dtype references */
  if (self->numSignatures == kMaxSignatures)
    freeSignature(self, &self->signatures[--self->numSignatures]);
  Signature *slot = &self->signatures[self->numSignatures++];
  slot->args = kept;
  slot->handle = (cake_prepared_launch *)(uintptr_t)handle;
  Py_INCREF(owner);
  slot->owner = owner;
  moveToFront(self, self->numSignatures - 1);
  Py_RETURN_TRUE;
}

static PyObject *PreparedCall_forget(PreparedCall *self, PyObject *unused) {
  (void)unused;
  clearSignatures(self);
  Py_RETURN_NONE;
}

static PyObject *PreparedCall_getLaunches(PreparedCall *self, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLongLong(self->launches);
}

static PyObject *PreparedCall_getExchangeReads(PreparedCall *self, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLongLong(self->exchangeReads);
}

static PyObject *PreparedCall_getSignatures(PreparedCall *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(self->numSignatures);
}

static PyMethodDef kPreparedCallMethods[] = {
    {"remember", (PyCFunction)PreparedCall_rememberArgs, METH_VARARGS,
     "remember(args, handle, owner): launch calls with the signature of args through handle (a "
     "cake_prepared_launch address owned by owner)"},
    {"forget", (PyCFunction)PreparedCall_forget, METH_NOARGS, "forget(): drop every kept signature"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef kPreparedCallGetters[] = {
    {"launches", (getter)PreparedCall_getLaunches, NULL, "launches made by the native path", NULL},
    {"signatures", (getter)PreparedCall_getSignatures, NULL, "signatures kept", NULL},
    {"exchange_reads", (getter)PreparedCall_getExchangeReads, NULL,
     "tensors read through torch.Tensor.__dlpack_c_exchange_api__ (calls and remember() alike)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot kPreparedCallSlots[] = {
    {Py_tp_new, (void *)PreparedCall_new},
    {Py_tp_dealloc, (void *)PreparedCall_dealloc},
    {Py_tp_traverse, (void *)PreparedCall_traverse},
    {Py_tp_clear, (void *)PreparedCall_clear},
    {Py_tp_call, (void *)PreparedCall_call},
    {Py_tp_methods, (void *)kPreparedCallMethods},
    {Py_tp_getset, (void *)kPreparedCallGetters},
    {Py_tp_doc, (void *)"PreparedCall(launch_address, is_tensor, device_ptr_type, error_for): one kernel's "
                        "native prepared-launch path; call it as (args, stream) -> launched?"},
    {0, NULL}};

static PyType_Spec kPreparedCallSpec = {"cakeir._prepared_call.PreparedCall", sizeof(PreparedCall), 0,
                                        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, kPreparedCallSlots};

/* ---- the module */

static int internNames(void) {
  struct {
    PyObject **slot;
    const char *text;
  } names[] = {{&kNameDtype, "dtype"},          {&kNameShape, "shape"},
               {&kNameStride, "stride"},        {&kNameGetDevice, "get_device"},
               {&kNameDataPtr, "data_ptr"},     {&kNameTensor, "Tensor"},
               {&kNameC, "_C"},                 {&kNameCudaGetDevice, "_cuda_getDevice"},
               {&kNameRawStream, "_cuda_getCurrentRawStream"},
               {&kNamePtr, "ptr"},              {&kNameStrides, "strides"},
               {&kNameTorch, "torch"},          {&kNameExchangeApi, "__dlpack_c_exchange_api__"},
               {&kNameNn, "nn"},                {&kNameParameter, "Parameter"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (!*names[i].slot && !(*names[i].slot = PyUnicode_InternFromString(names[i].text)))
      return -1;
  return 0;
}

static int moduleExec(PyObject *module) {
  if (internNames() < 0)
    return -1;
  PyObject *type = PyType_FromSpec(&kPreparedCallSpec);
  if (!type)
    return -1;
  if (PyModule_AddObject(module, "PreparedCall", type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  if (addKernelCallType(module) < 0)
    return -1;
  return PyModule_AddIntConstant(module, "RUNTIME_ABI_VERSION", CAKE_RUNTIME_ABI_VERSION);
}

static PyModuleDef_Slot kModuleSlots[] = {{Py_mod_exec, (void *)moduleExec}, {0, NULL}};

static struct PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_prepared_call",
                                     "The native hot path of cakeir's launches (KernelCall, PreparedCall).", 0, NULL,
                                     kModuleSlots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__prepared_call(void) { return PyModuleDef_Init(&kModule); }
