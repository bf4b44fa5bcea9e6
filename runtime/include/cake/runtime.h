/* CAKE runtime - C API.
 *
 * Loads a cubin produced by `cakec -o k.cubin` together with its launch manifest (`k.cubin.json`, see
 * docs/manifest.md), checks launch arguments against the kernel's signature and `requires` clauses,
 * evaluates grid / cluster / shared-memory sizes, builds TMA tensor maps and launches through the CUDA
 * driver API.  libcuda is opened with dlopen("libcuda.so.1") on first use, so this library links no CUDA
 * library and everything up to the launch itself works on machines without a GPU.
 *
 * Errors: every fallible call returns a cake_status and, when `err` is not NULL, writes a NUL-terminated
 * human-readable message into err[0 .. err_size-1] (truncated if needed).  Nothing aborts.  The library keeps
 * no global mutable state apart from the lazily opened driver (shared, guarded by a mutex).
 *
 * Threading: a cake_module may be used from several threads at once (launching is thread-safe);
 * cake_module_free must not race with other calls on the same module.
 */
#ifndef CAKE_RUNTIME_H
#define CAKE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CAKE_API __attribute__((visibility("default")))
#else
#define CAKE_API
#endif

/* Bumped when a struct below changes layout. */
#define CAKE_RUNTIME_ABI_VERSION 1

typedef enum cake_status {
  CAKE_OK = 0,
  CAKE_ERROR_INVALID_ARGUMENT = 1, /* NULL handle, bad enum value, wrong struct size ... (API misuse) */
  CAKE_ERROR_IO = 2,               /* manifest or cubin file cannot be read */
  CAKE_ERROR_MANIFEST = 3,         /* manifest is malformed or inconsistent */
  CAKE_ERROR_NOT_FOUND = 4,        /* no kernel of that name */
  CAKE_ERROR_ARGUMENT = 5,         /* launch arguments do not match the signature (dtype, rank, shape ...) */
  CAKE_ERROR_REQUIREMENT = 6,      /* a `requires` clause is false for these arguments */
  CAKE_ERROR_LAUNCH_CONFIG = 7,    /* grid / block / cluster / shared memory out of range */
  CAKE_ERROR_EXPRESSION = 8,       /* an expression could not be evaluated (division by zero, overflow) */
  CAKE_ERROR_DRIVER_UNAVAILABLE = 9, /* libcuda.so.1 missing or lacks a needed entry point */
  CAKE_ERROR_CUDA = 10             /* a CUDA driver call failed; the message names the call and error */
} cake_status;

/* Element types (the scalar types of CAKE IR). */
typedef enum cake_dtype {
  CAKE_DTYPE_INVALID = 0,
  CAKE_DTYPE_PRED = 1,
  CAKE_DTYPE_I32 = 2,
  CAKE_DTYPE_U32 = 3,
  CAKE_DTYPE_I64 = 4,
  CAKE_DTYPE_F16 = 5,
  CAKE_DTYPE_BF16 = 6,
  CAKE_DTYPE_F32 = 7,
  CAKE_DTYPE_F8E4M3 = 8,
  CAKE_DTYPE_F8E5M2 = 9,
  CAKE_DTYPE_F64 = 10 /* only as the type of a host scalar value handed in (a double) */
} cake_dtype;

typedef enum cake_arg_kind {
  CAKE_ARG_TENSOR = 1, /* a global-memory tensor: device address, shape, strides */
  CAKE_ARG_SCALAR = 2  /* a scalar value */
} cake_arg_kind;

/* One launch argument, for the kernel's declared parameters in declaration order.
 *
 * Tensor: `data` is the device address of element [0, ..., 0]; `dtype` its element type; `rank` the
 * number of dims; `shape` points to `rank` sizes, or is NULL to take every dim from the manifest
 * (evaluated from shape variables bound elsewhere: another tensor or cake_launch_options.shape_vars);
 * `strides` points to `rank` strides counted in ELEMENTS, or is NULL for row-major contiguous.
 *
 * Scalar: `dtype` says which field carries the value: an integer dtype (I32/U32/I64/PRED) -> `i`,
 * a float dtype (F16/BF16/F32/F64) -> `f`.  An integer may be passed to a float parameter; a float to an
 * integer parameter is an error.  Values are range-checked against the parameter's type (a pred takes 0 or 1
 * only). */
typedef struct cake_arg {
  cake_arg_kind kind;
  cake_dtype dtype;
  uint64_t data;
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
  int64_t i;
  double f;
} cake_arg;

/* A named integer: a shape variable given explicitly (for tensors passed without a shape). */
typedef struct cake_named_int {
  const char *name;
  int64_t value;
} cake_named_int;

/* Launch options; a NULL pointer means all defaults.  Set struct_size = sizeof(cake_launch_options). */
typedef struct cake_launch_options {
  size_t struct_size;
  void *stream;                        /* CUstream (NULL = legacy default stream) */
  const cake_named_int *shape_vars;    /* explicit shape-variable values */
  size_t num_shape_vars;
  int64_t num_sms;                     /* > 0: use this for `num_sms` instead of asking the device;
                                          0: ask the device; < 0: CAKE_ERROR_INVALID_ARGUMENT */
} cake_launch_options;

/* What a launch would do: filled by cake_kernel_plan without touching the GPU. */
typedef struct cake_launch_plan {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3];            /* {1,1,1} when the kernel has no cluster */
  uint32_t dynamic_smem_bytes;
  uint32_t num_abi_params;        /* number of PTX entry parameters */
  uint32_t num_tensor_maps;       /* TMA descriptors that the launch builds */
} cake_launch_plan;

typedef struct cake_module cake_module;
typedef struct cake_kernel cake_kernel; /* owned by its module; valid until cake_module_free */

/* The library's version string ("0.1.0") and struct layout version (CAKE_RUNTIME_ABI_VERSION). */
CAKE_API const char *cake_runtime_version(void);
CAKE_API int cake_runtime_abi_version(void);
CAKE_API const char *cake_status_name(cake_status status);

/* Loads `path`: either the cubin (its manifest is `path` + ".json") or the manifest itself (a path ending in
 * ".json"; the cubin is the manifest's "cubin" entry, a file name in the manifest's folder).  Reads and checks
 * the manifest and reads the cubin into memory; the GPU is touched only at the first launch.  Both must be
 * regular files (manifest at most 16 MiB, cubin at most 1 GiB), else CAKE_ERROR_IO.  When the manifest has a
 * "cubin_sha256", the cubin's SHA-256 must equal it, else CAKE_ERROR_IO (the files are from different
 * compilations). */
CAKE_API cake_status cake_module_load(const char *path, cake_module **out, char *err, size_t err_size);
/* Same, from a manifest text and cubin bytes already in memory (`cubin` may be NULL for plan-only use; else
 * it is checked against "cubin_sha256" as above). */
CAKE_API cake_status cake_module_load_data(const char *manifest_json, size_t manifest_size, const void *cubin,
                                           size_t cubin_size, cake_module **out, char *err, size_t err_size);
/* Unloads the module from every CUDA context it was loaded into (best effort) and frees it. NULL is a no-op. */
CAKE_API void cake_module_free(cake_module *module);

CAKE_API size_t cake_module_num_kernels(const cake_module *module);
CAKE_API const cake_kernel *cake_module_kernel_at(const cake_module *module, size_t index);
CAKE_API cake_status cake_kernel_get(const cake_module *module, const char *name, const cake_kernel **out,
                                     char *err, size_t err_size);
/* The module's target ("sm_90a"). */
CAKE_API const char *cake_module_arch(const cake_module *module);

/* Kernel introspection (strings are owned by the module). */
CAKE_API const char *cake_kernel_name(const cake_kernel *kernel);
CAKE_API const char *cake_kernel_entry(const cake_kernel *kernel);
CAKE_API size_t cake_kernel_num_params(const cake_kernel *kernel);
CAKE_API const char *cake_kernel_param_name(const cake_kernel *kernel, size_t index);
CAKE_API cake_arg_kind cake_kernel_param_kind(const cake_kernel *kernel, size_t index);
CAKE_API cake_dtype cake_kernel_param_dtype(const cake_kernel *kernel, size_t index);
CAKE_API int32_t cake_kernel_param_rank(const cake_kernel *kernel, size_t index); /* 0 for scalars */
/* 1 if the kernel may write tensor param `index` (its manifest "access" is not "read"), else 0 (read-only
 * tensors, scalars).  Bindings use it to refuse read-only arrays for tensors the kernel writes. */
CAKE_API int cake_kernel_param_writes(const cake_kernel *kernel, size_t index);
CAKE_API size_t cake_kernel_num_shape_vars(const cake_kernel *kernel);
CAKE_API const char *cake_kernel_shape_var_name(const cake_kernel *kernel, size_t index);

/* Checks the arguments and evaluates the launch configuration without any CUDA call.  If the grid uses
 * `num_sms`, options->num_sms must be set. */
CAKE_API cake_status cake_kernel_plan(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                                      const cake_launch_options *options, cake_launch_plan *plan, char *err,
                                      size_t err_size);
/* Checks, builds tensor maps, loads the module into the current CUDA context if needed and launches
 * asynchronously on options->stream. */
CAKE_API cake_status cake_launch(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                                 const cake_launch_options *options, char *err, size_t err_size);

/* *blocks_per_sm = how many blocks of the kernel, launched with these arguments, fit on one SM of the current
 * device at once (the driver's occupancy calculator for the launch's block size, registers and dynamic shared
 * memory; clusters are not considered).  Checks the arguments as cake_launch does and loads the module into the
 * current CUDA context if needed; launches nothing.  0 when one block does not fit. */
CAKE_API cake_status cake_kernel_occupancy(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                                           const cake_launch_options *options, int *blocks_per_sm, char *err,
                                           size_t err_size);

/* Prepared launches, for calling one kernel many times with arguments of the same shapes: cake_launch_prepare
 * does everything of cake_launch that does not depend on the tensors' device addresses - every check
 * (kinds, dtypes, ranks, shapes, strides, scalars, shape variables, `requires`, launch limits, TMA rules),
 * the launch configuration, the bytes of every entry parameter, num_sms from the current device - and
 * checks the addresses given.  cake_launch_prepared then launches with new addresses: it checks only what
 * depends on them (null, alignment), encodes the TMA descriptors only for a set of TMA addresses it has not
 * seen among the last 8, loads the module into the current context on first use, and launches on `stream`.
 * An error of either reads exactly as cake_launch's would.  A prepared launch may be used from several
 * threads at once and stays valid until cake_prepared_launch_free (before cake_module_free). */
typedef struct cake_prepared_launch cake_prepared_launch;
CAKE_API cake_status cake_launch_prepare(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                                         const cake_launch_options *options, cake_prepared_launch **out, char *err,
                                         size_t err_size);
/* data[i]: the device address for kernel param i (the entries of scalar params are ignored); num_data must
 * be the kernel's number of params.  stream: a CUstream (NULL = legacy default stream). */
CAKE_API cake_status cake_launch_prepared(cake_prepared_launch *prepared, const uint64_t *data, size_t num_data,
                                          void *stream, char *err, size_t err_size);
/* TMA descriptors encoded by this prepared launch so far (cuTensorMapEncodeTiled calls); for tests and tools. */
CAKE_API uint64_t cake_prepared_launch_tensor_map_encodes(const cake_prepared_launch *prepared);
CAKE_API void cake_prepared_launch_free(cake_prepared_launch *prepared); /* NULL is a no-op */

/* Kernel libraries (docs/library.md): the variants of one operation built by `cakec library build` into a
 * folder (cubins, their manifests and library.json), with a dispatch table of ordered guards over shape
 * variables that ends in a fallback.  Launching a library picks the first entry whose variant runs on the
 * device and whose guard holds for the arguments' shape, and launches that variant.  A cake_library may be
 * used from several threads at once; cake_library_free must not race with other calls on it. */
typedef struct cake_library cake_library;

/* Loads a library folder (or its library.json) and every variant's cubin + manifest; checks that the
 * variants take the same arguments and compiles the guards.  `arch` ("sm_90a") fixes the target whose
 * entries are considered; NULL: the device's compute capability, asked at the first launch (before that,
 * cake_library_select considers every entry). */
CAKE_API cake_status cake_library_load(const char *path, const char *arch, cake_library **out, char *err,
                                       size_t err_size);
CAKE_API void cake_library_free(cake_library *library); /* NULL is a no-op */
/* Fixes the target after loading: `arch` ("sm_90a"), or NULL for the current CUDA device's compute
 * capability (opens the driver; makes device 0's primary context current if the thread has none). */
CAKE_API cake_status cake_library_set_arch(cake_library *library, const char *arch, char *err, size_t err_size);
/* The target in words ("compute capability 9.0"), or "" while none is fixed; owned by the library until the
 * next cake_library_set_arch. */
CAKE_API const char *cake_library_target(const cake_library *library);
CAKE_API const char *cake_library_name(const cake_library *library);
/* The shape variables, in the order cake_library_select takes their values. */
CAKE_API size_t cake_library_num_shape_vars(const cake_library *library);
CAKE_API const char *cake_library_shape_var_name(const cake_library *library, size_t index);
CAKE_API size_t cake_library_num_variants(const cake_library *library);
CAKE_API const char *cake_library_variant_name(const cake_library *library, size_t index);
CAKE_API const cake_kernel *cake_library_variant_kernel(const cake_library *library, size_t index);
/* The dispatch table: entry i names variant cake_library_entry_variant(i); its guard text ("true" for the
 * fallback, the last entry). */
CAKE_API size_t cake_library_num_entries(const cake_library *library);
CAKE_API size_t cake_library_entry_variant(const cake_library *library, size_t entry);
CAKE_API const char *cake_library_entry_guard(const cake_library *library, size_t entry);
/* The dispatcher: the index of the first eligible entry whose guard holds for values[0 .. num_values-1] (the
 * shape variables in library order), or -1 (none does, a guard cannot be evaluated, num_values is wrong, or a
 * NULL argument; cake_library_explain says which).  No allocation, no lock, no driver call. */
CAKE_API int cake_library_select(const cake_library *library, const int64_t *values, size_t num_values);
/* The same walk in words: for each entry up to the chosen one, why it was passed over (the first false part of
 * its guard with the values it uses) or why it was chosen.  *entry (may be NULL) gets select's answer. */
CAKE_API cake_status cake_library_explain(const cake_library *library, const int64_t *values, size_t num_values,
                                          int *entry, char *text, size_t text_size, char *err, size_t err_size);
/* The shape variables' values of a launch (from the tensors' dims or options->shape_vars), in library order;
 * `values` has room for cake_library_num_shape_vars entries. */
CAKE_API cake_status cake_library_shape(const cake_library *library, const cake_arg *args, size_t num_args,
                                        const cake_launch_options *options, int64_t *values, char *err,
                                        size_t err_size);
/* Picks the variant for the arguments' shape (cake_library_shape + cake_library_select, after fixing the target
 * from the device on first use) and launches it with cake_launch.  *entry (may be NULL) gets the entry used.
 * A shape no entry accepts is CAKE_ERROR_REQUIREMENT with the explanation. */
CAKE_API cake_status cake_library_launch(cake_library *library, const cake_arg *args, size_t num_args,
                                         const cake_launch_options *options, int *entry, char *err, size_t err_size);
/* Variants of several kernels (docs/library.md): a variant launches cake_library_variant_num_kernels kernels in
 * order; parameter p of kernel i is argument cake_library_variant_kernel_arg(i, p) of the call when >= 0, and
 * workspace -1 - that value otherwise (INT32_MIN: no such kernel or parameter).  A workspace is a device tensor
 * the caller provides for the call: cake_library_workspace_bytes gives the bytes the variant chosen for a shape
 * needs (0 for most variants), cake_library_launch_workspace launches with a buffer of at least that size
 * (cake_library_launch passes none, and is refused for a variant that needs one).  The buffer must not be used
 * by other work until the call's kernels have completed on its stream. */
CAKE_API size_t cake_library_variant_num_kernels(const cake_library *library, size_t variant);
CAKE_API const cake_kernel *cake_library_variant_kernel_at(const cake_library *library, size_t variant, size_t index);
CAKE_API int cake_library_variant_kernel_arg(const cake_library *library, size_t variant, size_t index, size_t param);
CAKE_API size_t cake_library_variant_num_workspace(const cake_library *library, size_t variant);
/* Workspace `index` of `variant` at a shape: its dims (room for 8), rank and element type. */
CAKE_API cake_status cake_library_workspace_shape(const cake_library *library, size_t variant, size_t index,
                                                  const int64_t *values, size_t num_values, int64_t *dims,
                                                  int32_t *rank, cake_dtype *dtype, char *err, size_t err_size);
CAKE_API cake_status cake_library_workspace_bytes(const cake_library *library, const int64_t *values,
                                                  size_t num_values, size_t *bytes, char *err, size_t err_size);
CAKE_API cake_status cake_library_launch_workspace(cake_library *library, const cake_arg *args, size_t num_args,
                                                   const cake_launch_options *options, uint64_t workspace,
                                                   size_t workspace_bytes, int *entry, char *err, size_t err_size);

/* Names for dtypes ("bf16") and back (CAKE_DTYPE_INVALID if unknown); bytes per element (0 if invalid). */
CAKE_API const char *cake_dtype_name(cake_dtype dtype);
CAKE_API cake_dtype cake_dtype_from_name(const char *name);
CAKE_API size_t cake_dtype_size(cake_dtype dtype);

/* Evaluates an expression of the manifest language (docs/manifest.md) with the given names bound; used by
 * tests and tools.  On success stores the value in *out. */
CAKE_API cake_status cake_eval_expression(const char *expression, const cake_named_int *names, size_t num_names,
                                          int64_t *out, char *err, size_t err_size);

/* Opens the CUDA driver now (normally done on first launch); reports why it cannot be used.
 * The library name can be overridden with the environment variable CAKE_LIBCUDA (used by tests). */
CAKE_API cake_status cake_driver_check(char *err, size_t err_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAKE_RUNTIME_H */
