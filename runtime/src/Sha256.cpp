// SHA-256 through OpenSSL's EVP digest interface.
#include "Sha256.h"

#include "LaunchBinding.h"

#include <openssl/evp.h>

#include <memory>

namespace cake::rt {

std::string sha256Hex(const void *data, size_t size) {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX *)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), data, size) != 1 || EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1 ||
      length != 32)
    throw LaunchError(CAKE_ERROR_IO, "cannot compute the SHA-256 of the cubin (OpenSSL EVP failed)");
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

} // namespace cake::rt
