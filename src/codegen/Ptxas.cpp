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

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <filesystem>
#include <regex>

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

std::vector<PtxasMessage> parsePtxasMessages(const std::string &output) {
  std::vector<PtxasMessage> out;
  static const std::regex withLine(R"(^ptxas [^,]*, line ([0-9]+); (error|warning|fatal)\s*: (.*)$)");
  static const std::regex noLine(R"(^ptxas (error|fatal|warning)\s*: (.*)$)");
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, withLine)) {
      out.push_back({static_cast<unsigned>(std::stoul(m[1].str())), m[2].str() != "warning", m[3].str()});
    } else if (std::regex_match(line, m, noLine)) {
      out.push_back({0, m[1].str() != "warning", m[2].str()});
    }
  }
  return out;
}

std::vector<PtxasFunctionReport> parsePtxasReport(const std::string &output) {
  std::vector<PtxasFunctionReport> out;
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(R"(([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads)");
  static const std::regex regs(R"(Used ([0-9]+) registers)");
  static const std::regex smem(R"(([0-9]+) bytes smem)");
  std::istringstream in(output);
  std::string line;
  PtxasFunctionReport *cur = nullptr;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, compiling) || std::regex_search(line, m, props)) {
      if (!cur || cur->function != m[1].str()) {
        out.push_back({});
        out.back().function = m[1].str();
      }
      cur = &out.back();
      continue;
    }
    if (!cur) continue;
    if (std::regex_search(line, m, frame)) {
      cur->stackBytes = static_cast<unsigned>(std::stoul(m[1].str()));
      cur->spillStores = static_cast<unsigned>(std::stoul(m[2].str()));
      cur->spillLoads = static_cast<unsigned>(std::stoul(m[3].str()));
    }
    if (std::regex_search(line, m, regs)) cur->registers = static_cast<unsigned>(std::stoul(m[1].str()));
    if (std::regex_search(line, m, smem)) cur->sharedBytes = static_cast<unsigned>(std::stoul(m[1].str()));
  }
  return out;
}

PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx, const std::string &gpuName,
                     bool verbose) {
  PtxasResult result;
  std::string tmpl = (fs::temp_directory_path() / "cakec-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    result.launchError = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return result;
  }
  fs::path dir(buf.data());
  fs::path ptxPath = dir / "kernel.ptx", cubinPath = dir / "kernel.cubin", logPath = dir / "ptxas.log";
  {
    std::ofstream out(ptxPath, std::ios::binary);
    out << ptx;
    if (!out) {
      result.launchError = "cannot write " + ptxPath.string();
      std::error_code ec;
      fs::remove_all(dir, ec);
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
  std::error_code ec;
  fs::remove_all(dir, ec);
  return result;
}

} // namespace cake
