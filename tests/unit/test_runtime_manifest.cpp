// Runtime: reading launch manifests - the good ones completely, the bad ones with the JSON path of the fault.
#include "Manifest.h"
#include "Module.h"
#include "test_runtime_helpers.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <fstream>
#include <memory>
#include <string>

using namespace cake::rt;
using namespace cake::rt::testing;

namespace {

std::string manifestError(const std::string &json) {
  try {
    parseManifest(json);
  } catch (const ManifestError &e) {
    return e.what();
  }
  return "no error";
}

// The gemm manifest with `from` replaced by `to` (exactly once).
std::string gemmWith(const std::string &from, const std::string &to) {
  std::string json = kGemmManifest;
  size_t at = json.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  REQUIRE_MESSAGE(json.find(from, at + 1) == std::string::npos, from);
  return json.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("runtime manifest: a complete manifest is read field by field") {
  ManifestSpec m = parseManifest(kGemmManifest);
  CHECK(m.version == 1);
  CHECK(m.arch == "sm_90a");
  CHECK(m.cubin == "gemm.cubin");
  CHECK(m.source == "gemm.cake");
  REQUIRE(m.kernels.size() == 1);
  const KernelSpec &k = m.kernels[0];
  CHECK(k.name == "gemm");
  CHECK(k.entry == "gemm__9");
  CHECK(k.loc == "gemm.cake:2:8");
  REQUIRE(k.ctParams.size() == 3);
  CHECK(*k.findCtParam("BK") == 64);
  REQUIRE(k.params.size() == 4);
  CHECK(k.params[0].dtype == CAKE_DTYPE_BF16);
  CHECK(k.params[0].rank() == 2);
  CHECK(k.params[0].dims[0].bareName() == "M");
  CHECK(k.params[0].align == 16);
  REQUIRE(k.params[0].tma.has_value());
  CHECK(k.params[0].tma->swizzle == TmaSwizzle::B128);
  CHECK(k.params[0].tma->l2Promotion == TmaL2Promotion::B128);
  CHECK(k.params[1].align == 16); // TMA raises the default (element size) to 16
  CHECK(k.params[2].align == 4);
  CHECK(k.params[2].contiguous);
  CHECK_FALSE(k.params[2].tma.has_value());
  CHECK(k.params[3].kind == CAKE_ARG_SCALAR);
  CHECK(k.params[3].dtype == CAKE_DTYPE_F32);
  REQUIRE(k.shapeVars.size() == 3);
  CHECK(k.shapeVars[2].name == "N");
  CHECK(k.shapeVars[2].param == 1);
  CHECK(k.shapeVars[2].dim == 0);
  CHECK(k.grid[0].text() == "cdiv(M, BM)");
  CHECK(k.grid[2].literal() == 1);
  CHECK(k.block[0].literal() == 384);
  CHECK(k.hasCluster);
  CHECK(k.cluster[0].literal() == 2);
  REQUIRE(k.requirements.size() == 1);
  CHECK(k.requirements[0].loc == "gemm.cake:3:12");
  REQUIRE(k.abi.size() == 9);
  CHECK(k.abi[3].kind == AbiKind::ShapeVar);
  CHECK(k.abi[3].shapeVar == 0);
  CHECK(k.abi[8].kind == AbiKind::TensorMap);
  CHECK(k.abi[8].param == 1);
  CHECK_FALSE(k.usesNumSms);

  ManifestSpec s = parseManifest(kScaleManifest);
  const KernelSpec &scale = s.kernels[0];
  CHECK(scale.usesNumSms);
  CHECK_FALSE(scale.hasCluster);
  CHECK_FALSE(scale.params[0].contiguous);
  CHECK(scale.shapeVars[2].fromStride);
  CHECK(scale.requirements[0].text == "factor > 0 && ld >= n"); // text defaults to expr
  CHECK(scale.dynamicSmem.literal() == 0);
}

TEST_CASE("runtime manifest: a type parameter's value is its type name, never in expressions") {
  ManifestSpec m = parseManifest(gemmWith("\"BK\": 64", "\"BK\": 64, \"T\": \"f16\""));
  const KernelSpec &k = m.kernels[0];
  CHECK(k.ctParams.size() == 3);          // the integers, as before
  REQUIRE(k.ctTypeParams.size() == 1);
  CHECK(k.ctTypeParams[0].first == "T");
  CHECK(k.ctTypeParams[0].second == CAKE_DTYPE_F16);
  CHECK(k.findCtParam("T") == nullptr);   // expressions see integers only
  CHECK(manifestError(gemmWith("\"BK\": 64", "\"BK\": 64, \"T\": \"f17\"")).find("ct_params.T: unknown dtype 'f17'") !=
        std::string::npos);
  CHECK(manifestError(gemmWith("\"BK\": 64", "\"BK\": 64, \"M\": \"f16\"")).find("name 'M' is already used") !=
        std::string::npos);
  CHECK(manifestError(gemmWith("\"BK\": 64", "\"BK\": 64, \"T\": [1]")).find("ct_params.T: expected int") !=
        std::string::npos);
}

TEST_CASE("runtime manifest: malformed manifests name the faulty field") {
  struct Case {
    std::string json;
    const char *message;
  };
  const Case cases[] = {
      {"{", "invalid JSON: line 1, column 2"},
      {"[]", "expected object, got array"},
      {gemmWith("\"cake-manifest\"", "\"other\""), "format: expected \"cake-manifest\""},
      {gemmWith("\"version\": 1", "\"version\": 2"), "manifest version 2 is not supported by this runtime (it reads version 1)"},
      {gemmWith("\"arch\": \"sm_90a\",", ""), "missing key \"arch\""},
      {gemmWith("\"generator\": \"test\"", "\"genrator\": \"test\""), "unknown key \"genrator\""},
      {gemmWith("\"dtype\": \"f32\"}", "\"dtype\": \"f33\"}"), "kernels[0] (gemm).params[3] (alpha).dtype: unknown dtype 'f33'"},
      {gemmWith("\"kind\": \"scalar\", \"dtype\"", "\"kind\": \"vector\", \"dtype\""), "params[3] (alpha).kind: unknown param kind 'vector'"},
      {gemmWith("\"dims\": [\"M\", \"N\"]", "\"dims\": []"), "params[2] (C).dims: expected 1..8 entries, got 0"},
      {gemmWith("\"dims\": [\"M\", \"N\"]", "\"dims\": [\"M +\", \"N\"]"), "in expression `M +`"},
      {gemmWith("\"dims\": [\"M\", \"N\"]", "\"dims\": [\"M\", \"Q\"]"), "`Q` uses unknown name 'Q'"},
      {gemmWith("\"box\": [\"BM\", \"BK\"]", "\"box\": [\"BM\"]"), "tma.box: expected 2 entries, got 1"},
      {gemmWith("\"box\": [\"BM\", \"BK\"]", "\"box\": [\"M\", \"BK\"]"), "must be a compile-time constant but uses 'M'"},
      {gemmWith("\"swizzle\": \"128B\", \"l2", "\"swizzle\": \"256B\", \"l2"), "unknown swizzle '256B'"},
      {gemmWith("\"interleave\": \"none\"", "\"interleave\": \"32B\""), "only interleave \"none\" is supported"},
      {gemmWith("\"align\": 16", "\"align\": 24"), "alignment 24 is not a power of two"},
      {gemmWith("{\"name\": \"N\", \"from\": {\"param\": 1, \"dim\": 0}}", "{\"name\": \"N\", \"from\": {\"param\": 1, \"dim\": 2}}"),
       "shape_vars[2].from.dim: 2 is outside 0..1"},
      {gemmWith("{\"name\": \"N\", \"from\": {\"param\": 1, \"dim\": 0}}", "{\"name\": \"N\", \"from\": {\"param\": 3, \"dim\": 0}}"),
       "param alpha is not a tensor"},
      {gemmWith("{\"name\": \"N\", \"from\": {\"param\": 1, \"dim\": 0}}", "{\"name\": \"M\", \"from\": {\"param\": 1, \"dim\": 0}}"),
       "shape variable name 'M' is already used"},
      {gemmWith("\"BK\": 64", "\"BK\": 64, \"num_sms\": 1"), "name 'num_sms' is already used (or reserved)"},
      {gemmWith("\"grid\": [\"cdiv(M, BM)\", \"cdiv(N, BN)\"]", "\"grid\": [\"cdiv(M, BX)\"]"), "launch.grid.x: `cdiv(M, BX)` uses unknown name 'BX'"},
      {gemmWith("\"grid\": [\"cdiv(M, BM)\", \"cdiv(N, BN)\"]", "\"grid\": [1, 2, 3, 4]"), "launch.grid: expected 1..3 entries, got 4"},
      {gemmWith("\"grid\": [\"cdiv(M, BM)\", \"cdiv(N, BN)\"]", "\"grid\": [1.5]"), "expected an integer or an expression string, got number"},
      {gemmWith("\"expr\": \"K % BK == 0\"", "\"expr\": \"K % alpha == 0\""), "uses unknown name 'alpha'"}, // float scalar
      {gemmWith("{\"kind\": \"scalar\", \"param\": 3}", "{\"kind\": \"scalar\", \"param\": 0}"), "param 0 (A) is not a scalar"},
      {gemmWith("{\"kind\": \"shape\", \"var\": \"M\"}", "{\"kind\": \"shape\", \"var\": \"Z\"}"), "abi[3].var: 'Z' is not a shape variable"},
      {gemmWith("{\"kind\": \"tensormap\", \"param\": 0}", "{\"kind\": \"tensormap\", \"param\": 2}"), "param C has no \"tma\" spec"},
      {gemmWith("{\"kind\": \"ptr\", \"param\": 0}", "{\"kind\": \"pointer\", \"param\": 0}"), "unknown ABI slot kind 'pointer'"},
      {gemmWith("{\"kind\": \"ptr\", \"param\": 0}", "{\"kind\": \"ptr\", \"param\": 9}"), "abi[0].param: 9 is outside 0..3"},
      {gemmWith("\"name\": \"gemm\"", "\"name\": \"9gemm\""), "\"9gemm\" is not a valid name"},
      {gemmWith("\"kernels\": [{", "\"kernels\": [], \"x\": [{"), "unknown key \"x\""},
  };
  for (const Case &c : cases) {
    CAPTURE(c.message);
    std::string error = manifestError(c.json);
    CAPTURE(error);
    CHECK(error.find(c.message) != std::string::npos);
  }
}

TEST_CASE("runtime manifest: duplicate kernels and empty kernel lists are rejected") {
  std::string two = kScaleManifest;
  size_t open = two.find("[{") + 1;
  size_t close = two.rfind("}]");
  std::string kernel = two.substr(open, close - open + 1);
  two.insert(close + 1, ", " + kernel);
  CHECK(manifestError(two).find("duplicate kernel name 'scale'") != std::string::npos);
  std::string none = std::string(kScaleManifest).substr(0, open) + "]}";
  CHECK(manifestError(none).find("kernels: expected 1..4096 entries, got 0") != std::string::npos);
}

TEST_CASE("runtime manifest: loading from files (cubin path or manifest path) and I/O errors") {
  std::string dir = "/tmp/cake_runtime_test_" + std::to_string(::getpid());
  REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0);
  std::ofstream(dir + "/gemm.cubin", std::ios::binary) << "\x7f" "ELF-not-really";
  std::ofstream(dir + "/gemm.cubin.json") << kGemmManifest;
  char err[1024];
  cake_module *module = nullptr;
  REQUIRE(cake_module_load((dir + "/gemm.cubin").c_str(), &module, err, sizeof err) == CAKE_OK);
  CHECK(cake_module_num_kernels(module) == 1);
  CHECK(std::string(cake_module_arch(module)) == "sm_90a");
  cake_module_free(module);
  REQUIRE(cake_module_load((dir + "/gemm.cubin.json").c_str(), &module, err, sizeof err) == CAKE_OK);
  const cake_kernel *kernel = nullptr;
  REQUIRE(cake_kernel_get(module, "gemm", &kernel, err, sizeof err) == CAKE_OK);
  CHECK(std::string(cake_kernel_entry(kernel)) == "gemm__9");
  CHECK(cake_kernel_num_params(kernel) == 4);
  CHECK(std::string(cake_kernel_param_name(kernel, 3)) == "alpha");
  CHECK(cake_kernel_param_kind(kernel, 3) == CAKE_ARG_SCALAR);
  CHECK(cake_kernel_param_dtype(kernel, 0) == CAKE_DTYPE_BF16);
  CHECK(cake_kernel_param_rank(kernel, 1) == 2);
  CHECK(cake_kernel_num_shape_vars(kernel) == 3);
  CHECK(std::string(cake_kernel_shape_var_name(kernel, 1)) == "K");
  CHECK(std::string(cake_kernel_param_name(kernel, 99)).empty());
  CHECK(cake_kernel_get(module, "gemv", &kernel, err, sizeof err) == CAKE_ERROR_NOT_FOUND);
  CHECK(std::string(err).find("has no kernel 'gemv' (kernels: gemm)") != std::string::npos);
  cake_module_free(module);

  CHECK(cake_module_load((dir + "/absent.cubin").c_str(), &module, err, sizeof err) == CAKE_ERROR_IO);
  CHECK(module == nullptr);
  CHECK(std::string(err).find("cannot read launch manifest " + dir + "/absent.cubin.json") != std::string::npos);
  std::ofstream(dir + "/bad.cubin") << "x";
  std::ofstream(dir + "/bad.cubin.json") << "{\"format\": \"cake-manifest\"}";
  CHECK(cake_module_load((dir + "/bad.cubin").c_str(), &module, err, sizeof err) == CAKE_ERROR_MANIFEST);
  CHECK(std::string(err).find("bad.cubin.json: missing key \"version\"") != std::string::npos);
  std::ofstream(dir + "/nocubin.json") << kGemmManifest; // names gemm.cubin ... which exists; rename it away
  std::remove((dir + "/gemm.cubin").c_str());
  CHECK(cake_module_load((dir + "/nocubin.json").c_str(), &module, err, sizeof err) == CAKE_ERROR_IO);
  CHECK(std::string(err).find("cannot read cubin " + dir + "/gemm.cubin") != std::string::npos);
  CHECK(cake_module_load(nullptr, &module, err, sizeof err) == CAKE_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::system(("rm -rf " + dir).c_str()) == 0);
}

TEST_CASE("runtime manifest: every one-character mutation is parsed or rejected, never a crash") {
  // Deterministic mutation sweep (run under ASan/UBSan in CI): delete or replace each character; whatever
  // still parses is then bound to gemm-shaped arguments, which must also fail cleanly or succeed.
  const std::string base = kGemmManifest;
  const char replacements[] = {'"', '}', '9', 'x', '\0'};
  std::vector<int64_t> a{256, 512}, b{512, 512}, c{256, 512};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_BF16, 0x7f0000000000, a), tensorArg(CAKE_DTYPE_BF16, 0x7f0000100000, b),
                             tensorArg(CAKE_DTYPE_F32, 0x7f0000200000, c), floatArg(1.0)};
  size_t parsed = 0, rejected = 0;
  std::vector<std::string> unexpected; // texts that produced an internal error or an error without message
  auto attempt = [&](const std::string &text) {
    std::unique_ptr<cake_module, void (*)(cake_module *)> module(nullptr, cake_module_free);
    cake_module *raw = nullptr;
    char err[512];
    cake_status status = cake_module_load_data(text.data(), text.size(), nullptr, 0, &raw, err, sizeof err);
    module.reset(raw);
    if (status != CAKE_OK) {
      if (status != CAKE_ERROR_MANIFEST || err[0] == '\0')
        unexpected.push_back(text);
      ++rejected;
      return;
    }
    ++parsed;
    cake_launch_options options{sizeof(cake_launch_options), nullptr, nullptr, 0, 132};
    cake_launch_plan plan;
    for (size_t k = 0; k < cake_module_num_kernels(raw); ++k) {
      status = cake_kernel_plan(cake_module_kernel_at(raw, k), args.data(), args.size(), &options, &plan, err, sizeof err);
      if (status == CAKE_ERROR_INVALID_ARGUMENT || (status != CAKE_OK && err[0] == '\0')) // internal error
        unexpected.push_back(text);
    }
  };
  for (size_t i = 0; i < base.size(); ++i) {
    attempt(base.substr(0, i) + base.substr(i + 1));
    for (char r : replacements)
      if (base[i] != r)
        attempt(base.substr(0, i) + r + base.substr(i + 1));
  }
  CHECK(unexpected.empty());
  if (!unexpected.empty())
    MESSAGE("first unexpected result for: " << unexpected.front());
  CHECK(parsed > 100);
  CHECK(rejected > 1000);
}

// ---- issue 12: hostile manifests and files (item 24), cubin_sha256 (item 17), TMA boxes at load (item 24)

namespace {

struct TempDir {
  std::string path = "/tmp/cake_runtime_hostile_" + std::to_string(::getpid());
  TempDir() { REQUIRE(std::system(("rm -rf " + path + " && mkdir -p " + path).c_str()) == 0); }
  ~TempDir() { (void)std::system(("rm -rf " + path).c_str()); }
  void write(const std::string &name, const std::string &text) const {
    std::ofstream(path + "/" + name, std::ios::binary) << text;
  }
};

cake_status loadFile(const std::string &path, std::string *message) {
  char err[1024];
  cake_module *module = nullptr;
  cake_status status = cake_module_load(path.c_str(), &module, err, sizeof err);
  *message = err;
  cake_module_free(module);
  return status;
}

// SHA-256 of "\x7f" "ELF-not-really" (sha256sum).
const char *kCubinBytes = "\x7f" "ELF-not-really";
const char *kCubinSha = "6a970be382101c66a28317ee845191ffdddc959a941d2381d48e7fd5bf67caea";

} // namespace

TEST_CASE("runtime manifest: \"cubin\" must be a file name in the manifest's folder") {
  for (const char *bad : {"../../../../etc/passwd", "/dev/zero", "/etc/passwd", ".", "..", "sub/gemm.cubin",
                          "a\\\\b"}) {
    CAPTURE(bad);
    std::string error = manifestError(gemmWith("\"cubin\": \"gemm.cubin\"", std::string("\"cubin\": \"") + bad + "\""));
    CHECK(error.find("cubin: ") == 0);
    CHECK(error.find("is not a file name in the manifest's folder") != std::string::npos);
  }
  CHECK(manifestError(gemmWith("\"cubin\": \"gemm.cubin\"", "\"cubin\": \"g\\u0000.cubin\"")).find("is not a file name") !=
        std::string::npos);
  CHECK(manifestError(gemmWith("\"cubin\": \"gemm.cubin\"", "\"cubin\": \"gemm v2.cubin\"")) == "no error");
}

TEST_CASE("runtime manifest: directories, devices, FIFOs and huge files are refused with CAKE_ERROR_IO") {
  TempDir dir;
  std::string message;
  // The manifest path names a directory, a FIFO (must not block) or a device.
  REQUIRE(std::system(("mkdir " + dir.path + "/d.json && mkfifo " + dir.path + "/f.json").c_str()) == 0);
  CHECK(loadFile(dir.path + "/d.json", &message) == CAKE_ERROR_IO);
  CHECK(message.find("cannot read launch manifest " + dir.path + "/d.json: it is a directory") != std::string::npos);
  CHECK(loadFile(dir.path + "/f.json", &message) == CAKE_ERROR_IO);
  CHECK(message.find("it is not a regular file") != std::string::npos);
  // The cubin beside a good manifest is a directory, or a link to /dev/zero (never read without bound).
  dir.write("k.cubin.json", kGemmManifest);
  REQUIRE(std::system(("mkdir " + dir.path + "/k.cubin").c_str()) == 0);
  CHECK(loadFile(dir.path + "/k.cubin", &message) == CAKE_ERROR_IO);
  CHECK(message.find("cannot read cubin " + dir.path + "/k.cubin: it is a directory") != std::string::npos);
  dir.write("z.cubin.json", kGemmManifest);
  REQUIRE(std::system(("ln -s /dev/zero " + dir.path + "/z.cubin").c_str()) == 0);
  CHECK(loadFile(dir.path + "/z.cubin", &message) == CAKE_ERROR_IO);
  CHECK(message.find("cannot read cubin " + dir.path + "/z.cubin: it is not a regular file") != std::string::npos);
  // A manifest larger than the limit (a sparse file: no disk used).
  REQUIRE(std::system(("truncate -s 17M " + dir.path + "/big.json").c_str()) == 0);
  CHECK(loadFile(dir.path + "/big.json", &message) == CAKE_ERROR_IO);
  CHECK(message.find("more than the limit of 16777216") != std::string::npos);
}

TEST_CASE("runtime manifest: cubin_sha256 is checked at load, manifests without it still load") {
  TempDir dir;
  std::string message;
  dir.write("gemm.cubin", kCubinBytes);
  std::string withSha = gemmWith("\"cubin\": \"gemm.cubin\",", std::string("\"cubin\": \"gemm.cubin\", \"cubin_sha256\": \"") +
                                                                 kCubinSha + "\", \"ptxas\": {\"path\": \"/usr/local/cuda/bin/ptxas\", \"version\": \"12.4\"},");
  dir.write("gemm.cubin.json", withSha);
  CHECK(loadFile(dir.path + "/gemm.cubin", &message) == CAKE_OK);
  CHECK(loadFile(dir.path + "/gemm.cubin.json", &message) == CAKE_OK);
  ManifestSpec spec = parseManifest(withSha);
  CHECK(spec.cubinSha256 == kCubinSha);
  CHECK(spec.ptxasPath == "/usr/local/cuda/bin/ptxas");
  CHECK(spec.ptxasVersion == "12.4");
  // A cubin from another compilation beside this manifest.
  dir.write("gemm.cubin", std::string(kCubinBytes) + "!");
  CHECK(loadFile(dir.path + "/gemm.cubin", &message) == CAKE_ERROR_IO);
  CHECK(message.find("cubin " + dir.path + "/gemm.cubin does not match its manifest " + dir.path +
                     "/gemm.cubin.json: its SHA-256 is ") != std::string::npos);
  CHECK(message.find(std::string("but the manifest's cubin_sha256 is ") + kCubinSha) != std::string::npos);
  // The same check for a module loaded from memory with its cubin; plan-only loads (no cubin) skip it.
  char err[1024];
  cake_module *module = nullptr;
  CHECK(cake_module_load_data(withSha.data(), withSha.size(), "xx", 2, &module, err, sizeof err) == CAKE_ERROR_IO);
  CHECK(cake_module_load_data(withSha.data(), withSha.size(), kCubinBytes, std::strlen(kCubinBytes), &module, err,
                              sizeof err) == CAKE_OK);
  cake_module_free(module);
  CHECK(cake_module_load_data(withSha.data(), withSha.size(), nullptr, 0, &module, err, sizeof err) == CAKE_OK);
  cake_module_free(module);
  // Without the field: loads whatever the cubin is.
  dir.write("gemm.cubin.json", kGemmManifest);
  CHECK(loadFile(dir.path + "/gemm.cubin", &message) == CAKE_OK);
  // Malformed values are the manifest's fault.
  for (const char *bad : {"\"abc\"", "\"6A970BE382101C66A28317EE845191FFDDDC959A941D2381D48E7FD5BF67CAEA\"", "42"}) {
    CAPTURE(bad);
    std::string error = manifestError(gemmWith("\"cubin\": \"gemm.cubin\",", std::string("\"cubin\": \"gemm.cubin\", \"cubin_sha256\": ") + bad + ","));
    CHECK(error.find("cubin_sha256: ") == 0);
  }
  CHECK(manifestError(gemmWith("\"cubin\": \"gemm.cubin\",", "\"cubin\": \"gemm.cubin\", \"ptxas\": {\"pth\": \"x\"},"))
            .find("ptxas: unknown key \"pth\"") == 0);
}

TEST_CASE("runtime manifest: ptx_embedded says the cubin is a fat binary with its PTX") {
  CHECK_FALSE(parseManifest(kGemmManifest).ptxEmbedded);
  CHECK(parseManifest(gemmWith("\"cubin\": \"gemm.cubin\",", "\"cubin\": \"gemm.cubin\", \"ptx_embedded\": true,"))
            .ptxEmbedded);
  CHECK(manifestError(gemmWith("\"cubin\": \"gemm.cubin\",", "\"cubin\": \"gemm.cubin\", \"ptx_embedded\": 1,"))
            .find("ptx_embedded: ") == 0);
}

TEST_CASE("runtime manifest: which devices a build runs on, with and without its PTX") {
  // sm_XY: the same major version, minor at least Y; with the PTX, every later architecture too.
  CHECK(archRunsOn("sm_80", 8, 6));
  CHECK_FALSE(archRunsOn("sm_80", 9, 0));
  CHECK(archRunsOn("sm_80", 9, 0, /*ptxEmbedded=*/true));
  CHECK(archRunsOn("sm_80", 10, 0, true));
  CHECK_FALSE(archRunsOn("sm_86", 8, 0, true));
  // sm_XYa: only X.Y, PTX or not (arch-specific PTX is not forward compatible).
  CHECK(archRunsOn("sm_90a", 9, 0, true));
  CHECK_FALSE(archRunsOn("sm_90a", 10, 0, true));
  CHECK_FALSE(archRunsOn("sm_90a", 8, 0));
}

TEST_CASE("runtime manifest: TMA boxes are checked at load and blamed on the manifest") {
  struct Case {
    const char *from, *to, *message;
  };
  const Case cases[] = {
      {"\"BK\": 64", "\"BK\": 128",
       "kernels[0] (gemm).params[0] (A).tma.box: TMA inner box dimension is 256 bytes; swizzle 128B allows at most 128 bytes"},
      {"\"BM\": 128", "\"BM\": 300", "kernels[0] (gemm).params[0] (A).tma.box[0]: TMA box dim 0 `BM` = 300 is outside 1..256"},
      {"\"BM\": 128", "\"BM\": 0", "kernels[0] (gemm).params[0] (A).tma.box[0]: TMA box dim 0 `BM` = 0 is outside 1..256"},
      {"\"BK\": 64", "\"BK\": 4", "kernels[0] (gemm).params[0] (A).tma.box: TMA inner box dimension is 8 bytes; it must be a multiple of 16 bytes"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.to);
    CHECK(manifestError(gemmWith(c.from, c.to)) == c.message);
  }
  ManifestSpec spec = parseManifest(kGemmManifest);
  CHECK(spec.kernels[0].params[0].tma->boxValues == std::vector<int64_t>{128, 64});
}

TEST_CASE("runtime manifest: a tensor's \"access\" says whether the kernel may write it") {
  std::string json = gemmWith("\"dims\": [\"M\", \"K\"], \"align\": 16,", "\"dims\": [\"M\", \"K\"], \"align\": 16, \"access\": \"read\",");
  std::unique_ptr<cake_module, void (*)(cake_module *)> module(loadOrNull(json.c_str()), cake_module_free);
  REQUIRE(module);
  const cake_kernel *kernel = cake_module_kernel_at(module.get(), 0);
  CHECK(cake_kernel_param_writes(kernel, 0) == 0);   // "access": "read"
  CHECK(cake_kernel_param_writes(kernel, 2) == 1);   // no "access": the kernel may write it
  CHECK(cake_kernel_param_writes(kernel, 3) == 0);   // a scalar
  CHECK(cake_kernel_param_writes(kernel, 99) == 0);
  CHECK(manifestError(gemmWith("\"dims\": [\"M\", \"K\"], \"align\": 16,", "\"dims\": [\"M\", \"K\"], \"align\": 16, \"access\": \"rw\","))
            .find("params[0] (A).access: unknown access 'rw' (known: read write read_write)") != std::string::npos);
}
