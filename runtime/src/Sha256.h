// SHA-256 of a byte buffer as 64 lowercase hex digits (OpenSSL's EVP interface), for the manifest's
// "cubin_sha256" check at load.
#pragma once
#include <cstddef>
#include <string>

namespace cake::rt {

// Throws LaunchError(CAKE_ERROR_IO) if OpenSSL cannot compute the digest.
std::string sha256Hex(const void *data, size_t size);

} // namespace cake::rt
