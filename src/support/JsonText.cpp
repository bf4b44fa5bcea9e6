#include "support/JsonText.h"

#include <nlohmann/json.hpp>

namespace cake {

std::string jsonQuote(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace cake
