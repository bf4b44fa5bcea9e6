// Ptxas subprocess runner.
//
// How: write the PTX into a fresh mkdtemp() directory, posix_spawn ptxas with an argv vector (never a
// shell, so no quoting issues), its stdout and stderr redirected into one file in that directory, wait for
// it, read the cubin and the output back, and remove the directory.  Messages look like
//   ptxas k.ptx, line 11; error   : Unknown modifier '.op'
//   ptxas info    : Used 8 registers, used 0 barriers, 16 bytes smem
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// and are parsed line by line.
#include "codegen/Ptxas.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <filesystem>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace cake {

namespace fs = std::filesystem;

namespace {
bool isExecutable(const std::string &path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
} // namespace

std::optional<std::string> findPtxas(const std::string &explicitPath) {
  if (!explicitPath.empty()) {
    if (isExecutable(explicitPath)) return explicitPath;
    return std::nullopt;
  }
  if (const char *home = std::getenv("CUDA_HOME"); home && *home) {
    std::string p = std::string(home) + "/bin/ptxas";
    if (isExecutable(p)) return p;
  }
  if (const char *path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (dir.empty()) continue;
      std::string p = dir + "/ptxas";
      if (isExecutable(p)) return p;
    }
  }
  if (isExecutable("/usr/local/cuda/bin/ptxas")) return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
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
  std::istringstream in(output);
  std::string text;
  PtxasFunctionReport *cur = nullptr;
  while (std::getline(in, text)) {
    std::string_view line = text;
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
  return out;
}

PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx, const std::string &gpuName,
                     bool verbose) {
  PtxasResult result;
  // $TMPDIR (else /tmp) must be a directory cakec can create a folder in; anything else is an environment
  // failure reported as launchError, never an exception.
  std::error_code ec;
  fs::path tmpRoot = fs::temp_directory_path(ec);
  if (ec) {
    const char *env = std::getenv("TMPDIR");
    result.launchError = "cannot create a temporary directory for ptxas: $TMPDIR " +
                         (env ? "'" + std::string(env) + "' " : std::string()) + "is unusable (" + ec.message() + ")";
    return result;
  }
  std::string tmpl = (tmpRoot / "cakec-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    result.launchError = "cannot create a temporary directory for ptxas in '" + tmpRoot.string() +
                         "': " + std::strerror(errno);
    return result;
  }
  fs::path dir(buf.data());
  // The folder is removed on every way out of this function, exceptions included.
  struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } removeOnExit{dir};
  fs::path ptxPath = dir / "kernel.ptx", cubinPath = dir / "kernel.cubin", logPath = dir / "ptxas.log";
  {
    std::ofstream out(ptxPath, std::ios::binary);
    out << ptx;
    if (!out) {
      result.launchError = "cannot write " + ptxPath.string();
      return result;
    }
  }
  std::vector<std::string> args = {ptxasPath, "-arch=" + gpuName, ptxPath.string(), "-o", cubinPath.string()};
  if (verbose) args.push_back("-v");
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, ptxasPath.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.launchError = "cannot run " + ptxasPath + ": " + std::strerror(rc);
  } else {
    result.launched = true;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.output = readFile(logPath);
    result.messages = parsePtxasMessages(result.output);
    result.functions = parsePtxasReport(result.output);
    if (result.exitCode == 0) result.cubin = readFile(cubinPath);
  }
  return result;
}

} // namespace cake
