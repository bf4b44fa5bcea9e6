// Ptxas subprocess runner.
//
// How: write the PTX into a fresh mkdtemp() directory, fork + execv ptxas with an argv vector (never a shell,
// so no quoting issues) in its own process group, under RLIMIT_AS, its stdout and stderr redirected into one
// file in that directory; wait for it with a deadline (past it the group is killed); read the cubin and the
// output back, and remove the directory.  The child does only async-signal-safe work between fork and exec
// (everything it needs is prepared before the fork); an exec failure comes back through a close-on-exec pipe.
// Messages look like
//   ptxas k.ptx, line 11; error   : Unknown modifier '.op'
//   ptxas info    : Used 8 registers, used 0 barriers, 16 bytes smem
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async instructions are serialized due to
//                   REASON in the function 'NAME'          (before NAME's "Compiling entry function" line)
// and are parsed line by line.
#include "codegen/Ptxas.h"

#include "support/ReadFile.h"
#include "support/SignalCleanup.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace cake {

namespace fs = std::filesystem;

namespace {
constexpr uint64_t kMaxPtxasOutputBytes = 4ull << 20;
constexpr uint64_t kMaxCubinBytes = 1ull << 30;

bool isExecutableFile(const std::string &path) {
  struct stat st{};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string absolutePath(const std::string &path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// The first `limit` bytes of a file ("" when unreadable).
std::string readHead(const fs::path &p, uint64_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::string out(static_cast<size_t>(limit), '\0');
  in.read(out.data(), static_cast<std::streamsize>(limit));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

struct ProcessOutcome {
  PtxasResult::Status status = PtxasResult::Status::NotStarted;
  std::string error;
  int exitCode = -1;
  int signal = 0;
};

// Runs args[0] with `args`, stdout and stderr into `logPath`, stdin from /dev/null, under `limits`.
ProcessOutcome runProcess(std::vector<std::string> args, const std::string &logPath, const PtxasLimits &limits) {
  ProcessOutcome outcome;
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int logFd = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (logFd < 0) {
    outcome.error = "cannot create " + logPath + ": " + std::strerror(errno);
    return outcome;
  }
  int nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int execPipe[2];
  if (::pipe2(execPipe, O_CLOEXEC) != 0) {
    outcome.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(logFd);
    if (nullFd >= 0) ::close(nullFd);
    return outcome;
  }
  rlimit memory{};
  memory.rlim_cur = memory.rlim_max = static_cast<rlim_t>(limits.memoryLimitMiB) << 20;
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);   // cakec died before the prctl
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (limits.memoryLimitMiB) ::setrlimit(RLIMIT_AS, &memory);
    if (nullFd >= 0) ::dup2(nullFd, STDIN_FILENO);
    ::dup2(logFd, STDOUT_FILENO);
    ::dup2(logFd, STDERR_FILENO);
    ::execve(argv[0], argv.data(), environ);
    int err = errno;
    ssize_t ignored = ::write(execPipe[1], &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  }
  int forkErrno = errno;
  ::close(logFd);
  if (nullFd >= 0) ::close(nullFd);
  ::close(execPipe[1]);
  if (pid < 0) {
    ::close(execPipe[0]);
    outcome.error = std::string("cannot start a process: ") + std::strerror(forkErrno);
    return outcome;
  }
  ::setpgid(pid, pid);   // also here, so the group exists before the handler or the deadline needs it
  CleanupChild guard(pid);
  int execErrno = 0;
  ssize_t n;
  while ((n = ::read(execPipe[0], &execErrno, sizeof execErrno)) < 0 && errno == EINTR) {
  }
  ::close(execPipe[0]);
  auto reap = [&](int options, int &status) {
    pid_t r;
    while ((r = ::waitpid(pid, &status, options)) < 0 && errno == EINTR) {
    }
    return r;
  };
  int status = 0;
  if (n == static_cast<ssize_t>(sizeof execErrno)) {
    reap(0, status);
    outcome.error = "cannot run " + args[0] + ": " + std::strerror(execErrno);
    return outcome;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits.timeLimitSeconds);
  auto pause = std::chrono::milliseconds(1);
  bool timedOut = false;
  while (reap(WNOHANG, status) == 0) {
    if (limits.timeLimitSeconds && std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      reap(0, status);
      timedOut = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);   // whatever ptxas left behind in its group
  if (timedOut) outcome.status = PtxasResult::Status::TimedOut;
  else if (WIFEXITED(status)) {
    outcome.status = PtxasResult::Status::Exited;
    outcome.exitCode = WEXITSTATUS(status);
  } else {
    outcome.status = PtxasResult::Status::Crashed;
    outcome.signal = WTERMSIG(status);
  }
  return outcome;
}

// A private folder under $TMPDIR (else /tmp), removed (with its files) when the object goes away, and by the
// signal handler while it exists.
struct TempFolder {
  fs::path dir;
  std::string error;
  std::vector<std::unique_ptr<CleanupPath>> registered;
  TempFolder() {
    std::error_code ec;
    fs::path root = fs::temp_directory_path(ec);
    if (ec) {
      const char *env = std::getenv("TMPDIR");
      error = "cannot create a temporary directory for ptxas: $TMPDIR " +
              (env ? "'" + std::string(env) + "' " : std::string()) + "is unusable (" + ec.message() + ")";
      return;
    }
    std::string tmpl = (root / "cakec-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
      error = "cannot create a temporary directory for ptxas in '" + root.string() + "': " + std::strerror(errno);
      return;
    }
    dir = buf.data();
    registered.push_back(std::make_unique<CleanupPath>(dir.string()));
  }
  // A file in the folder, registered for the signal handler.
  fs::path file(const char *name) {
    fs::path p = dir / name;
    registered.push_back(std::make_unique<CleanupPath>(p.string()));
    return p;
  }
  ~TempFolder() {
    if (dir.empty()) return;
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    registered.clear();
  }
};
} // namespace

std::string signalName(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGABRT: return "SIGABRT";
  case SIGBUS: return "SIGBUS";
  case SIGKILL: return "SIGKILL";
  case SIGTERM: return "SIGTERM";
  case SIGINT: return "SIGINT";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGHUP: return "SIGHUP";
  case SIGPIPE: return "SIGPIPE";
  case SIGXCPU: return "SIGXCPU";
  default: return "signal " + std::to_string(sig);
  }
}

std::optional<std::string> findPtxas(const std::string &explicitPath) {
  if (!explicitPath.empty()) {
    if (isExecutableFile(explicitPath)) return absolutePath(explicitPath);
    return std::nullopt;
  }
  if (const char *home = std::getenv("CUDA_HOME"); home && home[0] == '/') {
    std::string p = std::string(home) + "/bin/ptxas";
    if (isExecutableFile(p)) return p;
  }
  if (const char *path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (dir.empty() || dir[0] != '/') continue;   // "" and relative entries mean the current folder
      std::string p = dir + "/ptxas";
      if (isExecutableFile(p)) return p;
    }
  }
  if (isExecutableFile("/usr/local/cuda/bin/ptxas")) return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

std::string ptxasVersion(const std::string &ptxasPath, const PtxasLimits &limits) {
  TempFolder folder;
  if (!folder.error.empty()) return "";
  fs::path log = folder.file("version.log");
  PtxasLimits quick = limits;
  if (quick.timeLimitSeconds == 0 || quick.timeLimitSeconds > 10) quick.timeLimitSeconds = 10;
  ProcessOutcome outcome = runProcess({ptxasPath, "--version"}, log.string(), quick);
  if (outcome.status != PtxasResult::Status::Exited || outcome.exitCode != 0) return "";
  std::istringstream in(readHead(log, 64 << 10));
  std::string line, version;
  while (std::getline(in, line)) {
    // "Cuda compilation tools, release 12.4, V12.4.131": the word after the last ", V".
    size_t at = line.rfind(", V");
    if (at == std::string::npos) continue;
    std::string word = line.substr(at + 3);
    size_t end = word.find_first_not_of("0123456789.");
    version = word.substr(0, end);
  }
  return capQuoted(version);
}

namespace {
// ptxas output is parsed by hand, not with std::regex: libstdc++'s regex matcher recurses once per
// character, so a line holding a 30,000-character kernel name overflowed the stack.  Numbers saturate
// instead of throwing, and quoted text is capped (kMaxQuotedBytes).
constexpr size_t kMaxQuotedBytes = 512;

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The decimal number at the front of `s` (at least one digit): its value saturated at UINT_MAX, and the
// number of digits consumed.  `overflow` is set when the value did not fit in 32 bits.
size_t leadingNumber(std::string_view s, unsigned &value, bool *overflow = nullptr) {
  uint64_t v = 0;
  size_t n = 0;
  bool big = false;
  for (; n < s.size() && s[n] >= '0' && s[n] <= '9'; ++n) {
    v = v * 10 + static_cast<uint64_t>(s[n] - '0');
    if (v > UINT32_MAX) {
      big = true;
      v = UINT32_MAX;
    }
  }
  value = static_cast<unsigned>(v);
  if (overflow) *overflow = big;
  return n;
}

// The number that ends right before position `end` of `s` (digits immediately preceding it), saturated.
std::optional<unsigned> numberBefore(std::string_view s, size_t end) {
  size_t begin = end;
  while (begin > 0 && s[begin - 1] >= '0' && s[begin - 1] <= '9') --begin;
  if (begin == end) return std::nullopt;
  unsigned v = 0;
  leadingNumber(s.substr(begin, end - begin), v);
  return v;
}

// The first "DIGITS<suffix>" in `s`, e.g. "8 bytes smem".
std::optional<unsigned> numberWithSuffix(std::string_view s, std::string_view suffix) {
  for (size_t at = s.find(suffix); at != std::string_view::npos; at = s.find(suffix, at + 1))
    if (auto v = numberBefore(s, at)) return v;
  return std::nullopt;
}

// "error" | "warning" | "fatal", then optional blanks, then ": "; returns the rest of the line after it.
std::optional<std::string_view> severityAndText(std::string_view s, bool &isError) {
  std::string_view word;
  for (std::string_view w : {"error", "warning", "fatal"})
    if (startsWith(s, w)) word = w;
  if (word.empty()) return std::nullopt;
  isError = word != "warning";
  s.remove_prefix(word.size());
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  if (!startsWith(s, ": ")) return std::nullopt;
  s.remove_prefix(2);
  return s;
}
} // namespace

std::string capQuoted(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return std::string(text);
  return std::string(text.substr(0, kMaxQuotedBytes)) + "... (" + std::to_string(text.size() - kMaxQuotedBytes) +
         " more bytes)";
}

std::vector<PtxasMessage> parsePtxasMessages(const std::string &output) {
  std::vector<PtxasMessage> out;
  std::istringstream in(output);
  std::string text;
  while (std::getline(in, text)) {
    std::string_view line = text;
    if (!startsWith(line, "ptxas ")) continue;
    line.remove_prefix(6);
    bool isError = true;
    // "ptxas FILE, line N; error   : MESSAGE" (FILE has no comma)
    size_t comma = line.find(',');
    if (comma != std::string_view::npos && startsWith(line.substr(comma), ", line ")) {
      std::string_view rest = line.substr(comma + 7);
      unsigned number = 0;
      bool overflow = false;
      size_t digits = leadingNumber(rest, number, &overflow);
      if (digits > 0 && startsWith(rest.substr(digits), "; ")) {
        if (auto message = severityAndText(rest.substr(digits + 2), isError)) {
          // A line number past 32 bits names no PTX line cakec wrote.
          out.push_back({overflow ? 0u : number, isError, capQuoted(*message)});
          continue;
        }
      }
    }
    // "ptxas error   : MESSAGE"
    if (auto message = severityAndText(line, isError)) out.push_back({0, isError, capQuoted(*message)});
  }
  return out;
}

std::vector<PtxasFunctionReport> parsePtxasReport(const std::string &output) {
  std::vector<PtxasFunctionReport> out;
  std::vector<std::pair<std::string, std::string>> serialized;   // (function, reason), attached at the end
  std::istringstream in(output);
  std::string text;
  PtxasFunctionReport *cur = nullptr;
  while (std::getline(in, text)) {
    std::string_view line = text;
    static constexpr std::string_view kSerialized = "wgmma.mma_async instructions are serialized due to ";
    static constexpr std::string_view kInFunction = " in the function '";
    if (size_t at = line.find(kSerialized); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + kSerialized.size());
      size_t fn = rest.rfind(kInFunction);
      if (fn != std::string_view::npos) {
        std::string_view name = rest.substr(fn + kInFunction.size());
        name = name.substr(0, name.find('\''));
        serialized.emplace_back(capQuoted(name), capQuoted(rest.substr(0, fn)));
      }
      continue;
    }
    // "Compiling entry function 'NAME' for 'sm_90a'" or "Function properties for NAME"
    std::optional<std::string_view> function;
    if (size_t at = line.find("Compiling entry function '"); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + 26);
      size_t quote = rest.find('\'');
      if (quote != std::string_view::npos && quote > 0) function = rest.substr(0, quote);
    } else if (size_t at2 = line.find("Function properties for "); at2 != std::string_view::npos) {
      std::string_view rest = line.substr(at2 + 24);
      size_t blank = rest.find_first_of(" \t\r");
      rest = rest.substr(0, blank);
      if (!rest.empty()) function = rest;
    }
    if (function) {
      std::string name = capQuoted(*function);
      if (!cur || cur->function != name) {
        out.push_back({});
        out.back().function = name;
      }
      cur = &out.back();
      continue;
    }
    if (!cur) continue;
    if (auto v = numberWithSuffix(line, " bytes stack frame, ")) {
      auto stores = numberWithSuffix(line, " bytes spill stores, ");
      auto loads = numberWithSuffix(line, " bytes spill loads");
      if (stores && loads) {
        cur->stackBytes = *v;
        cur->spillStores = *stores;
        cur->spillLoads = *loads;
      }
    }
    for (size_t at = line.find("Used "); at != std::string_view::npos; at = line.find("Used ", at + 1)) {
      unsigned v = 0;
      size_t digits = leadingNumber(line.substr(at + 5), v);
      if (digits > 0 && startsWith(line.substr(at + 5 + digits), " registers")) {
        cur->registers = v;
        break;
      }
    }
    if (auto v = numberWithSuffix(line, " bytes smem")) cur->sharedBytes = *v;
  }
  for (auto &[function, reason] : serialized) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const PtxasFunctionReport &f) { return f.function == function; });
    if (it == out.end()) {
      out.push_back({});
      out.back().function = function;
      it = std::prev(out.end());
    }
    it->wgmmaSerialized = reason;
  }
  return out;
}

std::optional<std::string> runFatbinary(const std::string &ptxasPath, const std::string &cubin, const std::string &ptx,
                                        const std::string &gpuName, const PtxasLimits &limits, std::string &error) {
  std::string tool = (fs::path(ptxasPath).parent_path() / "fatbinary").string();
  if (::access(tool.c_str(), X_OK) != 0) {
    error = "no executable fatbinary beside ptxas ('" + tool + "')";
    return std::nullopt;
  }
  TempFolder folder;
  if (!folder.error.empty()) {
    error = folder.error;
    return std::nullopt;
  }
  fs::path cubinPath = folder.file("kernel.cubin"), ptxPath = folder.file("kernel.ptx"),
           fatbinPath = folder.file("kernel.fatbin"), logPath = folder.file("fatbinary.log");
  for (const auto &[path, bytes] : {std::pair{cubinPath, &cubin}, std::pair{ptxPath, &ptx}}) {
    std::ofstream out(path, std::ios::binary);
    out << *bytes;
    out.flush();
    if (!out) {
      error = "cannot write " + path.string() + " (is the temporary folder's disk full?)";
      return std::nullopt;
    }
  }
  // "sm_90a" -> "90a": fatbinary's spelling of the architecture of each image.
  const std::string sm = gpuName.rfind("sm_", 0) == 0 ? gpuName.substr(3) : gpuName;
  std::vector<std::string> args = {tool, "--64", "--create=" + fatbinPath.string(),
                                   "--image3=kind=elf,sm=" + sm + ",file=" + cubinPath.string(),
                                   "--image3=kind=ptx,sm=" + sm + ",file=" + ptxPath.string()};
  ProcessOutcome outcome = runProcess(args, logPath.string(), limits);
  if (outcome.status == PtxasResult::Status::NotStarted) {
    error = outcome.error;
    return std::nullopt;
  }
  if (outcome.status != PtxasResult::Status::Exited || outcome.exitCode != 0) {
    std::string log = readHead(logPath, kMaxPtxasOutputBytes);
    while (!log.empty() && std::isspace(static_cast<unsigned char>(log.back()))) log.pop_back();
    log = capQuoted(log);
    error = (outcome.status == PtxasResult::Status::TimedOut ? "it did not finish within its time limit"
             : outcome.status == PtxasResult::Status::Crashed ? "it was killed by " + signalName(outcome.signal)
                                                               : "it exited with status " + std::to_string(outcome.exitCode)) +
            (log.empty() ? "" : ": " + log);
    return std::nullopt;
  }
  ReadFileResult fatbin = readFileBounded(fatbinPath.string(), kMaxCubinBytes);
  if (!fatbin.ok() || fatbin.text.empty()) {
    error = "it exited with status 0 but wrote no fat binary";
    return std::nullopt;
  }
  return std::move(fatbin.text);
}

PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx, const std::string &gpuName,
                     bool verbose, const PtxasLimits &limits, const std::vector<std::string> &extraArgs) {
  PtxasResult result;
  TempFolder folder;
  if (!folder.error.empty()) {
    result.launchError = folder.error;
    return result;
  }
  fs::path ptxPath = folder.file("kernel.ptx"), cubinPath = folder.file("kernel.cubin"),
           logPath = folder.file("ptxas.log");
  {
    std::ofstream out(ptxPath, std::ios::binary);
    out << ptx;
    out.flush();
    if (!out) {
      result.launchError = "cannot write " + ptxPath.string() + " (is the temporary folder's disk full?)";
      return result;
    }
  }
  std::vector<std::string> args = {ptxasPath, "-arch=" + gpuName, ptxPath.string(), "-o", cubinPath.string()};
  if (verbose) args.push_back("-v");
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  ProcessOutcome outcome = runProcess(args, logPath.string(), limits);
  result.status = outcome.status;
  result.launchError = outcome.error;
  result.exitCode = outcome.exitCode;
  result.signal = outcome.signal;
  if (outcome.status == PtxasResult::Status::NotStarted) return result;
  result.output = readHead(logPath, kMaxPtxasOutputBytes);
  result.messages = parsePtxasMessages(result.output);
  result.functions = parsePtxasReport(result.output);
  if (outcome.status == PtxasResult::Status::Exited && outcome.exitCode == 0) {
    ReadFileResult cubin = readFileBounded(cubinPath.string(), kMaxCubinBytes);
    if (cubin.ok() && !cubin.text.empty()) result.cubin = std::move(cubin.text);
    else result.cubinMissing = true;
  }
  return result;
}

} // namespace cake
