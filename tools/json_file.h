// Reading the tool's JSON files (ATK case files, the golden script's results) with Debian's
// nlohmann-json, whose parser keeps its own stack (no recursion, so no nesting depth overflows
// ours) and reports malformed text as an exception; these helpers add which file and which
// member, so a bad file gives a readable error and never a crash.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace openaclnn::tools {

using Json = nlohmann::json;

// The parsed file; throws std::runtime_error "PATH: why" when it cannot be read or parsed.
Json ParseJsonFile(const std::string& path);

// Member `key` of `object`; throws std::runtime_error naming the key when `object` is not an
// object or lacks it.
const Json& Member(const Json& object, const char* key);

// Typed values; each throws std::runtime_error naming `what` when the value has another type.
const Json::array_t& ArrayOf(const Json& value, const char* what);
const std::string& StringOf(const Json& value, const char* what);
double NumberOf(const Json& value, const char* what);
int64_t IntegerOf(const Json& value, const char* what);  // an integer, or a double holding one
bool BoolOf(const Json& value, const char* what);

}  // namespace openaclnn::tools
