/* A fake CUDA driver (libcake_fake_cuda.so) for testing the runtime's launch path on machines without a GPU.
 *
 * It exports the driver entry points the runtime resolves, records what they were asked to do, and lets a
 * test choose the device's properties and inject failures through the state returned by
 * cake_fake_cuda_state().  It never touches memory behind the device addresses it is given. */
#ifndef CAKE_FAKE_CUDA_H
#define CAKE_FAKE_CUDA_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cake_fake_cuda_state {
  /* device properties (set by tests) */
  int sm_count;
  int cc_major, cc_minor;
  int max_smem_optin;
  int fail_module_load;   /* non-zero: cuModuleLoadData returns this error code */
  int no_context;         /* non-zero: cuCtxGetCurrent reports no current context */
  /* records */
  int init_calls;
  int module_loads;
  int module_unloads;
  int primary_ctx_retains;
  char last_function_name[256];
  int set_attribute_calls;
  int last_attribute, last_attribute_value;
  int launches;
  unsigned grid[3], block[3], cluster[3];
  unsigned shared_mem_bytes;
  void *stream;
  unsigned num_attrs;
  unsigned num_params;          /* kernel params recorded, up to 16 */
  unsigned char params[16][128]; /* first bytes of each kernel param (tensor maps: the fake encoding) */
  int tensor_map_encodes;
  int tm_data_type, tm_rank, tm_swizzle, tm_interleave, tm_l2, tm_oob;
  uint64_t tm_address;
  uint64_t tm_dims[5], tm_strides[4];
  uint32_t tm_box[5], tm_elem_strides[5];
  /* occupancy queries: blocks per SM = min(2048 / threads, 32, max_smem_per_sm / (dynamic smem + 1 KiB)) */
  int max_smem_per_sm;          /* set by tests; default 233472 (228 KiB) */
  int occupancy_calls;
  int occupancy_block_size;
  uint64_t occupancy_dynamic_smem;
} cake_fake_cuda_state;

cake_fake_cuda_state *cake_fake_cuda_state_get(void);
/* Restores the defaults (132 SMs, cc 9.0, 227 KiB opt-in, 228 KiB per SM) and clears the records. */
void cake_fake_cuda_reset(void);

#ifdef __cplusplus
}
#endif
#endif
