/* DLPack's C exchange API (dlpack.h 1.2+, a type's "__dlpack_c_exchange_api__" capsule named
 * "dlpack_exchange_api"): the parts cakeir._prepared_call reads and the tests' stand-in (runtime/testing/
 * fake_dlpack_tensor.c) provides, laid out as dlpack.h lays them out.  torch 2.10+ sets the capsule on
 * torch.Tensor; dltensor_from_py_object_no_sync fills a DLTensor from a tensor object and current_work_stream
 * gives a device's current stream, both without a Python call. */
#ifndef CAKEIR_DLPACK_EXCHANGE_H
#define CAKEIR_DLPACK_EXCHANGE_H

#include <stdint.h>

typedef struct DLDevice {
  int32_t device_type; /* DLDeviceType */
  int32_t device_id;
} DLDevice;
typedef struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;
typedef struct DLPackExchangeAPIHeader {
  uint32_t major, minor;
  struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;
typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  void *managed_tensor_allocator;
  void *managed_tensor_from_py_object_no_sync;
  void *managed_tensor_to_py_object_no_sync;
  int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_stream);
} DLPackExchangeAPI;

enum { kDLCUDA = 2 };

#endif
