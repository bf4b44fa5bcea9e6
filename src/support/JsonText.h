// JSON text for the JSON cakec writes (manifests, --estimate --json, --sweep --json, machine descriptions,
// diagnostics): every string goes through nlohmann-json, so it is escaped one way everywhere. UTF-8 is written
// as is; bytes that are not valid UTF-8 (a file name, say) become U+FFFD, so the output is always valid JSON.
#pragma once

#include <string>
#include <string_view>

namespace cake {

// `s` as a JSON string literal, quotes included.
std::string jsonQuote(std::string_view s);

} // namespace cake
