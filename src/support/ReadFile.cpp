// ReadFile: bounded whole-file reads (see ReadFile.h).
#include "support/ReadFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cake {

ReadFileResult readFileBounded(const std::string &path, uint64_t maxBytes) {
  ReadFileResult result;
  auto fail = [&](std::string why) {
    result.status = ReadFileResult::CannotRead;
    result.error = std::move(why);
    result.text.clear();
    return result;
  };
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  struct Closer {
    int fd;
    bool own;
    ~Closer() {
      if (own) ::close(fd);
    }
  } closer{fd, path != "-"};
  struct stat st{};
  if (::fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail("it is a directory");
  if (path != "-") {
    // O_NONBLOCK only kept open() from waiting for a FIFO's writer; reads block as usual.
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > maxBytes) {
    result.status = ReadFileResult::TooLarge;
    result.size = static_cast<uint64_t>(st.st_size);
    return result;
  }
  if (S_ISREG(st.st_mode)) result.text.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::strerror(errno));
    if (n == 0) break;
    if (result.text.size() + static_cast<uint64_t>(n) > maxBytes) {
      result.status = ReadFileResult::TooLarge;
      result.size = 0;
      result.text.clear();
      result.text.shrink_to_fit();
      return result;
    }
    result.text.append(buffer, static_cast<size_t>(n));
  }
  return result;
}

} // namespace cake
