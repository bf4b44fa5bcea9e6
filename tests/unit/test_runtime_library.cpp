// Runtime: kernel libraries (Library.h, cake_library_* in runtime.h) - reading library.json, the dispatcher's
// choice by shape (first guard that holds, fallback for every other shape, entries of another arch skipped),
// explain's account of the walk, the errors of malformed libraries, and a launch through the fake driver.
#include "FakeCuda.h"
#include "Library.h"
#include "test_runtime_helpers.h"

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace cake::rt;
using namespace cake::rt::testing;
namespace fs = std::filesystem;

namespace {

// A GEMM variant: kGemmManifest with another kernel name, arch, BN and requires clause.
std::string variantManifest(const std::string &name, const std::string &arch, int bn, const std::string &requires_,
                            const std::string &cDtype = "f32") {
  std::string m = kGemmManifest;
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = m.find(from);
    REQUIRE(at != std::string::npos);
    m.replace(at, from.size(), to);
  };
  replace("\"sm_90a\"", "\"" + arch + "\"");
  replace("\"cubin\": \"gemm.cubin\"", "\"cubin\": \"" + name + ".cubin\"");
  replace("\"name\": \"gemm\"", "\"name\": \"" + name + "\"");
  replace("\"entry\": \"gemm__9\"", "\"entry\": \"" + name + "\"");
  replace("\"BN\": 256", "\"BN\": " + std::to_string(bn));
  replace("\"expr\": \"K % BK == 0\", \"text\": \"K % BK == 0\"", "\"expr\": \"" + requires_ + "\"");
  replace("\"dtype\": \"f32\", \"dims\": [\"M\", \"N\"]", "\"dtype\": \"" + cDtype + "\", \"dims\": [\"M\", \"N\"]");
  return m;
}

// A temporary library folder with the given variants (name -> manifest text) and library.json.
struct LibraryDir {
  fs::path dir;
  LibraryDir() {
    char pattern[] = "/tmp/cake_library_test_XXXXXX";
    REQUIRE(mkdtemp(pattern));
    dir = pattern;
  }
  ~LibraryDir() { fs::remove_all(dir); }
  void variant(const std::string &name, const std::string &manifest) {
    std::ofstream(dir / (name + ".cubin")) << "\x7f"
                                              "ELF";
    std::ofstream(dir / (name + ".cubin.json")) << manifest;
  }
  void library(const std::string &json) { std::ofstream(dir / "library.json") << json; }
};

// skinny (BN 64) for M <= 256, big (BN 256) for large K-aligned shapes, any (BN 128) as the fallback.
const char *kLibraryJson = R"json({
  "format": "cake-library", "version": 1, "generator": "test", "name": "gemm_lib",
  "shape_vars": [{"name": "M", "from": {"param": 0, "dim": 0}}, {"name": "N", "from": {"param": 1, "dim": 0}},
                 {"name": "K", "from": {"param": 0, "dim": 1}}],
  "domain": "M >= 1 && N >= 1 && K >= 1",
  "variants": [
    {"name": "skinny", "manifest": "skinny.cubin.json", "kernel": "skinny", "arch": "sm_90a"},
    {"name": "big", "manifest": "big.cubin.json", "kernel": "big"},
    {"name": "future", "manifest": "future.cubin.json", "kernel": "future"},
    {"name": "any", "manifest": "any.cubin.json", "kernel": "any"}
  ],
  "dispatch": [
    {"guard": "M <= 256", "variant": "skinny", "loc": "spec.json:12:5"},
    {"guard": "M >= 1024 && N >= 1024 && K % 64 == 0", "variant": "future"},
    {"guard": "M >= 1024 && N >= 1024 && K % 64 == 0", "variant": "big"},
    {"fallback": true, "variant": "any"}
  ]
})json";

void writeStandardLibrary(LibraryDir &d) {
  d.variant("skinny", variantManifest("skinny", "sm_90a", 64, "M <= 256"));
  d.variant("big", variantManifest("big", "sm_90a", 256, "K % 64 == 0"));
  d.variant("future", variantManifest("future", "sm_100a", 256, "K % 64 == 0"));
  d.variant("any", variantManifest("any", "sm_90", 128, "1"));
  d.library(kLibraryJson);
}

std::string loadError(const LibraryDir &d) {
  cake_library *lib = nullptr;
  char err[2048];
  cake_status status = cake_library_load(d.dir.c_str(), nullptr, &lib, err, sizeof err);
  cake_library_free(lib);
  return status == CAKE_OK ? "" : err;
}

}   // namespace

TEST_CASE("runtime library: the dispatcher takes the first guard that holds and falls back for every other shape") {
  LibraryDir d;
  writeStandardLibrary(d);
  cake_library *lib = nullptr;
  char err[2048];
  REQUIRE_MESSAGE(cake_library_load(d.dir.c_str(), "sm_90a", &lib, err, sizeof err) == CAKE_OK, err);
  CHECK(std::string(cake_library_name(lib)) == "gemm_lib");
  REQUIRE(cake_library_num_shape_vars(lib) == 3);
  CHECK(std::string(cake_library_shape_var_name(lib, 2)) == "K");
  CHECK(cake_library_num_entries(lib) == 4);
  CHECK(std::string(cake_library_entry_guard(lib, 3)) == "true");
  CHECK(std::string(cake_library_variant_name(lib, cake_library_entry_variant(lib, 2))) == "big");

  int64_t decode[] = {16, 4096, 4096}, large[] = {4096, 4096, 4096}, odd[] = {4096, 4097, 4000},
          mid[] = {500, 500, 500};
  CHECK(cake_library_select(lib, decode, 3) == 0);
  CHECK(cake_library_select(lib, large, 3) == 2);   // entry 1 is built for sm_100a: skipped on sm_90a
  CHECK(cake_library_select(lib, odd, 3) == 3);     // outside every guard: the fallback
  CHECK(cake_library_select(lib, mid, 3) == 3);
  CHECK(cake_library_select(lib, decode, 2) == -1);   // wrong number of values
  CHECK(cake_library_select(nullptr, decode, 3) == -1);
  cake_library_free(lib);

  // On sm_100a the entry built for it wins; nothing else runs there (cubins do not cross major versions), so
  // other shapes find no entry (`cakec library build` refuses such a table for a target it lists).
  REQUIRE(cake_library_load(d.dir.c_str(), "sm_100a", &lib, err, sizeof err) == CAKE_OK);
  CHECK(cake_library_select(lib, large, 3) == 1);
  CHECK(cake_library_select(lib, decode, 3) == -1);
  cake_library_free(lib);
  // With no target given (and no launch yet), every entry is considered.
  REQUIRE(cake_library_load(d.dir.c_str(), nullptr, &lib, err, sizeof err) == CAKE_OK);
  CHECK(cake_library_select(lib, large, 3) == 1);
  cake_library_free(lib);
  CHECK(cake_library_load(d.dir.c_str(), "sm_9", &lib, err, sizeof err) == CAKE_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("runtime library: explain says which guard matched and why the earlier ones did not") {
  LibraryDir d;
  writeStandardLibrary(d);
  cake_library *lib = nullptr;
  char err[2048], text[4096];
  REQUIRE(cake_library_load((d.dir / "library.json").c_str(), "sm_90a", &lib, err, sizeof err) == CAKE_OK);
  int64_t odd[] = {4096, 4097, 4000};
  int entry = -2;
  REQUIRE(cake_library_explain(lib, odd, 3, &entry, text, sizeof text, err, sizeof err) == CAKE_OK);
  CHECK(entry == 3);
  CHECK(std::string(text) == "library gemm_lib at M = 4096, N = 4097, K = 4000 on compute capability 9.0:\n"
                             "  [0] skinny: not taken: guard `M <= 256` is false (M = 4096)\n"
                             "  [1] future: skipped: built for sm_100a, which does not run on compute capability 9.0\n"
                             "  [2] big: not taken: `K % 64 == 0` of the guard is false (K = 4000)\n"
                             "  [3] any (fallback): chosen: the fallback accepts every shape\n");
  int64_t decode[] = {16, 4096, 4096};
  REQUIRE(cake_library_explain(lib, decode, 3, &entry, text, sizeof text, err, sizeof err) == CAKE_OK);
  CHECK(entry == 0);
  CHECK(std::string(text).find("[0] skinny: chosen: guard `M <= 256` holds (spec.json:12:5)") != std::string::npos);
  CHECK(cake_library_explain(lib, decode, 1, &entry, text, sizeof text, err, sizeof err) ==
        CAKE_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err) == "cake_library_explain: library gemm_lib has 3 shape variables but 1 values were given");
  cake_library_free(lib);
}

TEST_CASE("runtime library: shape variables come from the arguments' dims or from explicit values") {
  LibraryDir d;
  writeStandardLibrary(d);
  cake_library *lib = nullptr;
  char err[2048];
  REQUIRE(cake_library_load(d.dir.c_str(), "sm_90a", &lib, err, sizeof err) == CAKE_OK);
  std::vector<int64_t> a{32, 512}, b{256, 512}, c{32, 256};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_BF16, 0x1000, a), tensorArg(CAKE_DTYPE_BF16, 0x2000, b),
                             tensorArg(CAKE_DTYPE_F32, 0x3000, c), floatArg(1.0)};
  int64_t values[3];
  REQUIRE(cake_library_shape(lib, args.data(), args.size(), nullptr, values, err, sizeof err) == CAKE_OK);
  CHECK(values[0] == 32);
  CHECK(values[1] == 256);
  CHECK(values[2] == 512);
  args[1].shape = nullptr;   // N no longer comes from B: it must be given by name
  CHECK(cake_library_shape(lib, args.data(), args.size(), nullptr, values, err, sizeof err) == CAKE_ERROR_ARGUMENT);
  CHECK(std::string(err) ==
        "library gemm_lib: no value for shape variable N (dim 0 of argument 1, which has no shape)");
  cake_named_int n{"N", 300};
  cake_launch_options opts{};
  opts.struct_size = sizeof opts;
  opts.shape_vars = &n;
  opts.num_shape_vars = 1;
  REQUIRE(cake_library_shape(lib, args.data(), args.size(), &opts, values, err, sizeof err) == CAKE_OK);
  CHECK(values[1] == 300);
  cake_library_free(lib);
}

TEST_CASE("runtime library: a malformed library.json is refused with the path of the bad field") {
  LibraryDir d;
  writeStandardLibrary(d);
  auto withJson = [&](const std::string &from, const std::string &to) {
    std::string json = kLibraryJson;
    size_t at = json.find(from);
    REQUIRE(at != std::string::npos);
    json.replace(at, from.size(), to);
    d.library(json);
    return loadError(d);
  };
  std::string lib = (d.dir / "library.json").string();
  CHECK(withJson("{\"fallback\": true, \"variant\": \"any\"}", "{\"guard\": \"K > 0\", \"variant\": \"any\"}") ==
        lib + ": dispatch[3]: the table must end in a fallback entry ({\"fallback\": true, \"variant\": ...})");
  CHECK(withJson("{\"guard\": \"M <= 256\", \"variant\": \"skinny\", \"loc\": \"spec.json:12:5\"}",
                 "{\"fallback\": true, \"variant\": \"skinny\"}") ==
        lib + ": dispatch[0]: the fallback must be the last entry (entries after it could never be chosen)");
  CHECK(withJson("\"variant\": \"skinny\"", "\"variant\": \"skiny\"") ==
        lib + ": dispatch[0].variant: no variant named 'skiny'");
  CHECK(withJson("\"M <= 256\"", "\"Q <= 64\"") ==
        lib + ": dispatch[0].guard: in `Q <= 64`: unknown name 'Q' (guards may name the library's shape variables "
              "only)");
  CHECK(withJson("\"M <= 256\"", "\"M <= \"").find(lib + ": dispatch[0].guard: in expression `M <= `") == 0);
  CHECK(withJson("\"version\": 1", "\"version\": 2") ==
        lib + ": version: version 2 is not supported (this runtime reads version 1)");
  CHECK(withJson("\"generator\"", "\"generater\"") == lib + ": unknown key 'generater'");
  CHECK(withJson("\"kernel\": \"big\"", "\"kernel\": \"small\"") ==
        lib + ": variants[1].kernel: big.cubin.json has no kernel 'small'");
  CHECK(withJson("\"manifest\": \"big.cubin.json\"", "\"manifest\": \"../big.cubin.json\"") ==
        lib + ": variants[1].manifest: '../big.cubin.json' is not a file name in the library's folder");
  // Variants whose signatures differ cannot share one argument list.
  d.variant("big", variantManifest("big", "sm_90a", 256, "1", "bf16"));
  d.library(kLibraryJson);
  CHECK(loadError(d) == lib + ": variants[1] (big): takes other arguments than skinny: parameter 'C' is a tensor "
                              "of bf16 instead of a tensor of f32 (every variant of a library takes the same "
                              "arguments: name, kind, dtype, rank)");
  fs::remove(d.dir / "library.json");
  CHECK(loadError(d).find("cannot read library manifest " + lib) == 0);
}

TEST_CASE("runtime library: cake_library_launch launches the chosen variant through the fake driver") {
  setenv("CAKE_LIBCUDA", CAKE_FAKE_CUDA_PATH, 1);
  char err[4096];
  if (cake_driver_check(err, sizeof err) != CAKE_OK) {
    MESSAGE("shared driver already opened without the fake in this process; skipped: " << err);
    return;
  }
  void *handle = dlopen(CAKE_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle);
  auto get = reinterpret_cast<cake_fake_cuda_state *(*)()>(dlsym(handle, "cake_fake_cuda_state_get"));
  auto reset = reinterpret_cast<void (*)()>(dlsym(handle, "cake_fake_cuda_reset"));
  REQUIRE((get && reset));
  reset();
  cake_fake_cuda_state *fake = get();
  LibraryDir d;
  writeStandardLibrary(d);
  cake_library *lib = nullptr;
  REQUIRE(cake_library_load(d.dir.c_str(), nullptr, &lib, err, sizeof err) == CAKE_OK);
  auto launch = [&](int64_t m, int64_t n, int64_t k, int *entry) {
    std::vector<int64_t> a{m, k}, b{n, k}, c{m, n};
    std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_BF16, 0x7f0000000000, a),
                               tensorArg(CAKE_DTYPE_BF16, 0x7f0000100000, b),
                               tensorArg(CAKE_DTYPE_F32, 0x7f0000200000, c), floatArg(1.0)};
    return cake_library_launch(lib, args.data(), args.size(), nullptr, entry, err, sizeof err);
  };
  int entry = -2;
  REQUIRE_MESSAGE(launch(4096, 4096, 4096, &entry) == CAKE_OK, err);
  CHECK(entry == 2);   // the device is 9.0 (the fake's default): sm_100a is skipped
  CHECK(std::string(fake->last_function_name) == "big");
  CHECK(fake->grid[1] == 16);   // cdiv(4096, BN = 256)
  REQUIRE_MESSAGE(launch(4096, 4097, 4000, &entry) == CAKE_OK, err);
  CHECK(entry == 3);   // outside every guard: the fallback
  CHECK(std::string(fake->last_function_name) == "any");
  CHECK(fake->grid[1] == 33);                                      // cdiv(4097, BN = 128)
  REQUIRE_MESSAGE(launch(256, 100, 64, &entry) == CAKE_OK, err);   // (a 2-CTA cluster: grid.x = cdiv(M, 128) even)
  CHECK(entry == 0);
  CHECK(std::string(fake->last_function_name) == "skinny");
  CHECK(fake->launches == 3);
  // The chosen variant's own checks still run, and their message names it.
  std::vector<int64_t> a{8, 64}, b{100, 64}, c{8, 99};
  std::vector<cake_arg> bad{tensorArg(CAKE_DTYPE_BF16, 0x7f0000000000, a),
                            tensorArg(CAKE_DTYPE_BF16, 0x7f0000100000, b), tensorArg(CAKE_DTYPE_F32, 0x7f0000200000, c),
                            floatArg(1.0)};
  CHECK(cake_library_launch(lib, bad.data(), bad.size(), nullptr, &entry, err, sizeof err) == CAKE_ERROR_ARGUMENT);
  CHECK(std::string(err).find("library gemm_lib, variant skinny: argument 2 (C)") == 0);
  cake_library_free(lib);
}
