// Module loading from files or memory, and the per-context CUmodule cache.
#include "Module.h"

#include "LaunchBinding.h"

#include "Sha256.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cake::rt {

ModuleState::ModuleState(ManifestSpec manifest, std::vector<unsigned char> cubin, std::string origin)
    : manifest_(std::move(manifest)), cubin_(std::move(cubin)), origin_(std::move(origin)) {
  for (size_t i = 0; i < manifest_.kernels.size(); ++i)
    kernels_.push_back(cake_kernel{this, i});
}

ModuleState::~ModuleState() {
  if (!driver_ || loaded_.empty())
    return;
  // Best effort: cuModuleUnload acts on the current context, so switch to each module's context.
  const CudaDriverApi &api = driver_->api;
  CuContext previous = nullptr;
  if (api.cuCtxGetCurrent(&previous) != kCudaSuccess)
    return;
  for (const ContextModule &entry : loaded_) {
    if (api.cuCtxSetCurrent(entry.context) == kCudaSuccess)
      api.cuModuleUnload(entry.module);
  }
  api.cuCtxSetCurrent(previous);
}

namespace {

// "sm_90a" -> {9, 0, exact=true}; "sm_86" -> {8, 6, false}.
struct ArchVersion {
  int major = 0, minor = 0;
  bool archSpecific = false;
  bool valid = false;
};

ArchVersion parseArchVersion(const std::string &arch) {
  ArchVersion v;
  if (arch.rfind("sm_", 0) != 0)
    return v;
  std::string digits;
  size_t i = 3;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])))
    digits += arch[i++];
  if (digits.size() < 2 || digits.size() > 3)
    return v;
  std::string suffix = arch.substr(i);
  if (!suffix.empty() && suffix != "a" && suffix != "f")
    return v;
  v.major = std::stoi(digits.substr(0, digits.size() - 1));
  v.minor = digits.back() - '0';
  v.archSpecific = !suffix.empty();
  v.valid = true;
  return v;
}

}   // namespace

bool archRunsOn(const std::string &arch, int major, int minor, bool ptxEmbedded) {
  ArchVersion want = parseArchVersion(arch);
  if (!want.valid) return true;   // unknown spelling: let the driver judge the cubin
  if (want.archSpecific) return major == want.major && minor == want.minor;
  if (ptxEmbedded) return major > want.major || (major == want.major && minor >= want.minor);
  return major == want.major && minor >= want.minor;
}

namespace {

void checkDeviceArch(const CudaDriver &driver, const ModuleState &module, CuDevice device) {
  int major = 0, minor = 0;
  CuResult r1 = driver.api.cuDeviceGetAttribute(&major, kCuDeviceAttributeComputeCapabilityMajor, device);
  CuResult r2 = driver.api.cuDeviceGetAttribute(&minor, kCuDeviceAttributeComputeCapabilityMinor, device);
  if (r1 != kCudaSuccess || r2 != kCudaSuccess)
    return;
  if (!archRunsOn(module.manifest().arch, major, minor, module.manifest().ptxEmbedded))
    throw LaunchError(CAKE_ERROR_CUDA, module.origin() + " was compiled for " + module.manifest().arch +
                                           " but the device has compute capability " + std::to_string(major) + "." +
                                           std::to_string(minor) + "; recompile with --arch sm_" +
                                           std::to_string(major) + std::to_string(minor) +
                                           (major >= 9 ? "a" : ""));
}

}   // namespace

LoadedFunction &ModuleState::functionFor(const std::shared_ptr<const CudaDriver> &driver, CuContext context,
                                         size_t index) {
  const CudaDriverApi &api = driver->api;
  ContextModule *entry = nullptr;
  for (ContextModule &candidate : loaded_)
    if (candidate.context == context)
      entry = &candidate;
  if (!entry) {
    if (cubin_.empty())
      throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, origin_ + ": module was loaded without a cubin (plan only)");
    CuDevice device = 0;
    CuResult result = api.cuCtxGetDevice(&device);
    if (result != kCudaSuccess)
      throw LaunchError(CAKE_ERROR_CUDA, driver->describe("cuCtxGetDevice", result));
    checkDeviceArch(*driver, *this, device);
    CuModule module = nullptr;
    result = api.cuModuleLoadData(&module, cubin_.data());
    if (result != kCudaSuccess)
      throw LaunchError(CAKE_ERROR_CUDA, origin_ + ": " + driver->describe("cuModuleLoadData", result));
    driver_ = driver;
    loaded_.push_back(ContextModule{context, module, std::vector<LoadedFunction>(manifest_.kernels.size())});
    entry = &loaded_.back();
  }
  LoadedFunction &function = entry->functions[index];
  if (!function.function) {
    const KernelSpec &kernel = manifest_.kernels[index];
    CuResult result = api.cuModuleGetFunction(&function.function, entry->module, kernel.entry.c_str());
    if (result != kCudaSuccess) {
      function.function = nullptr;
      throw LaunchError(CAKE_ERROR_CUDA, origin_ + ": entry '" + kernel.entry + "' of kernel " + kernel.name + ": " +
                                             driver->describe("cuModuleGetFunction", result));
    }
  }
  return function;
}

// Reads a regular file of at most `limit` bytes.  Opens without blocking (a FIFO does not hang the open) and
// checks the type on the open descriptor, so that a directory, a device such as /dev/zero or a FIFO is
// refused instead of read without bound.  Throws LaunchError(IO) naming `what` and the path.
std::vector<unsigned char> readRegularFile(const std::string &path, size_t limit, const std::string &what,
                                           const std::string &hint) {
  auto ioError = [&](const std::string &why) {
    throw LaunchError(CAKE_ERROR_IO, "cannot read " + what + " " + path + ": " + why + hint);
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    ioError(std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    ioError(std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    ioError("it is a directory");
  if (!S_ISREG(st.st_mode))
    ioError("it is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > limit)
    ioError("it is " + std::to_string(st.st_size) + " bytes, more than the limit of " + std::to_string(limit));
  std::vector<unsigned char> out(static_cast<size_t>(st.st_size));
  size_t have = 0;
  for (;;) {
    if (have == out.size()) {
      if (out.size() >= limit + 1)
        break;
      out.resize(std::min(limit + 1, std::max<size_t>(out.size() * 2, 4096)));   // the file grew meanwhile
    }
    ssize_t n = ::read(fd, out.data() + have, out.size() - have);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      ioError(std::strerror(errno));
    }
    if (n == 0)
      break;
    have += static_cast<size_t>(n);
  }
  if (have > limit)
    ioError("it is more than the limit of " + std::to_string(limit) + " bytes");
  out.resize(have);
  return out;
}

namespace {

bool endsWith(const std::string &text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

ManifestSpec parseManifestOrThrow(std::string_view text, const std::string &origin) {
  try {
    return parseManifest(text);
  } catch (const ManifestError &e) {
    throw LaunchError(CAKE_ERROR_MANIFEST, origin + ": " + e.what());
  }
}

// The manifest's "cubin_sha256", when it has one, against the cubin's bytes: a mismatch means the two files
// come from different compilations (an interrupted or mixed-up output), and launching would use an ABI the
// cubin does not have.
void checkCubinHash(const ManifestSpec &manifest, const std::vector<unsigned char> &cubin, const std::string &cubinName,
                    const std::string &manifestName) {
  if (manifest.cubinSha256.empty() || cubin.empty())
    return;
  std::string actual = sha256Hex(cubin.data(), cubin.size());
  if (actual != manifest.cubinSha256)
    throw LaunchError(CAKE_ERROR_IO, "cubin " + cubinName + " does not match its manifest " + manifestName +
                                         ": its SHA-256 is " + actual + " but the manifest's cubin_sha256 is " +
                                         manifest.cubinSha256 +
                                         " (the two files come from different compilations; recompile)");
}

}   // namespace

std::unique_ptr<ModuleState> loadModuleFromFile(const std::string &path) {
  const bool isManifest = endsWith(path, ".json");
  const std::string manifestPath = isManifest ? path : path + ".json";
  std::vector<unsigned char> manifestBytes =
      readRegularFile(manifestPath, kMaxManifestBytes, "launch manifest",
                      isManifest ? "" : " (cakec writes it beside the cubin as <cubin>.json)");
  ManifestSpec manifest = parseManifestOrThrow(
      std::string_view(reinterpret_cast<const char *>(manifestBytes.data()), manifestBytes.size()), manifestPath);
  // parseManifest made sure that "cubin" is a plain file name: the cubin is in the manifest's folder.
  std::string cubinPath = isManifest ? directoryOf(path) + manifest.cubin : path;
  std::vector<unsigned char> cubin = readRegularFile(cubinPath, kMaxCubinBytes, "cubin");
  if (cubin.empty())
    throw LaunchError(CAKE_ERROR_IO, "cubin " + cubinPath + " is empty");
  checkCubinHash(manifest, cubin, cubinPath, manifestPath);
  return std::make_unique<ModuleState>(std::move(manifest), std::move(cubin), cubinPath);
}

std::unique_ptr<ModuleState> loadModuleFromData(std::string_view manifestJson, const void *cubin, size_t cubinSize) {
  ManifestSpec manifest = parseManifestOrThrow(manifestJson, "<manifest>");
  std::vector<unsigned char> bytes;
  if (cubin && cubinSize)
    bytes.assign(static_cast<const unsigned char *>(cubin), static_cast<const unsigned char *>(cubin) + cubinSize);
  checkCubinHash(manifest, bytes, "<memory>", "<manifest>");
  return std::make_unique<ModuleState>(std::move(manifest), std::move(bytes), "<memory>");
}

} // namespace cake::rt
