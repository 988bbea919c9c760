// A small JSON reader: enough for ATK case files and the golden script's results. Numbers are
// kept as double (ATK values are small integers and ranges); no writer is needed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace openaclnn::tools {

class Json {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  // Parses `text`; throws std::runtime_error naming the byte offset on malformed input.
  static Json Parse(std::string_view text);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_array() const { return kind_ == Kind::kArray; }

  // Typed access; each throws std::runtime_error when the value has another kind.
  bool AsBool() const;
  double AsNumber() const;
  int64_t AsInt() const;
  const std::string& AsString() const;
  const std::vector<Json>& AsArray() const;

  // Object member `key`; throws when absent. Find returns nullptr instead.
  const Json& operator[](const std::string& key) const;
  const Json* Find(const std::string& key) const;

 private:
  friend class JsonParser;
  void Expect(Kind kind, const char* what) const;

  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<Json> array_;
  std::map<std::string, Json> object_;
};

}  // namespace openaclnn::tools
