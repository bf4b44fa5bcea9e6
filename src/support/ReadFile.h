// ReadFile: reading a whole file with a size limit that holds for every kind of file.
//
// A regular file's size is checked before it is read; anything else (standard input, a FIFO, /dev/zero, a
// character device) is read in chunks and refused as soon as it passes the limit, so an endless or huge
// stream never costs more than the limit in memory.  Used for the .cake input (64 MiB, E0107), machine
// descriptions, `cakec calibrate` inputs and the kernel files they name, and ptxas's output.
#pragma once
#include <cstdint>
#include <string>

namespace cake {

struct ReadFileResult {
  enum Status { Ok, CannotRead, TooLarge } status = Ok;
  std::string text;     // the contents when Ok
  std::string error;    // why, when CannotRead ("No such file or directory", "it is a directory")
  uint64_t size = 0;    // TooLarge: the file's size; 0 for a stream (stopped past the limit, size unknown)
  bool ok() const { return status == Ok; }
};

// `path` "-" reads standard input.
ReadFileResult readFileBounded(const std::string &path, uint64_t maxBytes);

} // namespace cake
