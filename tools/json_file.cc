#include "json_file.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace openaclnn::tools {
namespace {

[[noreturn]] void WrongType(const Json& value, const char* what, const char* expected) {
  throw std::runtime_error(std::string(what) + " must be " + expected + ", not " +
                           value.type_name());
}

}  // namespace

Json ParseJsonFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(path + ": cannot open");
  std::stringstream text;
  text << file.rdbuf();
  try {
    return Json::parse(text.str());
  } catch (const Json::exception& error) {
    throw std::runtime_error(path + ": not valid JSON: " + error.what());
  }
}

const Json& Member(const Json& object, const char* key) {
  if (!object.is_object()) WrongType(object, "a case entry", "an object");
  const auto found = object.find(key);
  if (found == object.end()) throw std::runtime_error(std::string("no member \"") + key + "\"");
  return *found;
}

const Json::array_t& ArrayOf(const Json& value, const char* what) {
  if (!value.is_array()) WrongType(value, what, "an array");
  return value.get_ref<const Json::array_t&>();
}

const std::string& StringOf(const Json& value, const char* what) {
  if (!value.is_string()) WrongType(value, what, "a string");
  return value.get_ref<const std::string&>();
}

double NumberOf(const Json& value, const char* what) {
  if (!value.is_number()) WrongType(value, what, "a number");
  return value.get<double>();
}

int64_t IntegerOf(const Json& value, const char* what) {
  if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}) {
    throw std::runtime_error(std::string(what) + " is too large");
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  const double number = NumberOf(value, what);
  // Within int64's range and whole; the bounds are exact doubles.
  if (number != std::floor(number) || !(number >= -0x1p63 && number < 0x1p63)) {
    throw std::runtime_error(std::string(what) + " must be an integer");
  }
  return static_cast<int64_t>(number);
}

bool BoolOf(const Json& value, const char* what) {
  if (!value.is_boolean()) WrongType(value, what, "true or false");
  return value.get<bool>();
}

}  // namespace openaclnn::tools
