#include "json.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace openaclnn::tools {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Json ParseDocument() {
    Json value = ParseValue();
    SkipSpace();
    if (pos_ != text_.size()) Fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(pos_));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }

  char Peek() {
    SkipSpace();
    if (pos_ >= text_.size()) Fail("unexpected end");
    return text_[pos_];
  }

  void Consume(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Json ParseValue() {
    Json value;
    const char c = Peek();
    if (c == '{') {
      value.kind_ = Json::Kind::kObject;
      ParseObject(&value);
    } else if (c == '[') {
      value.kind_ = Json::Kind::kArray;
      ParseArray(&value);
    } else if (c == '"') {
      value.kind_ = Json::Kind::kString;
      value.string_ = ParseString();
    } else if (ConsumeWord("null")) {
      value.kind_ = Json::Kind::kNull;
    } else if (ConsumeWord("true")) {
      value.kind_ = Json::Kind::kBool;
      value.bool_ = true;
    } else if (ConsumeWord("false")) {
      value.kind_ = Json::Kind::kBool;
    } else {
      value.kind_ = Json::Kind::kNumber;
      value.number_ = ParseNumber();
    }
    return value;
  }

  void ParseObject(Json* value) {
    Consume('{');
    if (Peek() == '}') {
      ++pos_;
      return;
    }
    do {
      if (Peek() != '"') Fail("expected a member name");
      std::string key = ParseString();
      Consume(':');
      value->object_[std::move(key)] = ParseValue();
    } while (ConsumeSeparator('}'));
  }

  void ParseArray(Json* value) {
    Consume('[');
    if (Peek() == ']') {
      ++pos_;
      return;
    }
    do {
      value->array_.push_back(ParseValue());
    } while (ConsumeSeparator(']'));
  }

  // After an element: ',' means another follows (true), `close` ends the container (false).
  bool ConsumeSeparator(char close) {
    const char c = Peek();
    ++pos_;
    if (c == ',') return true;
    if (c != close) Fail(std::string("expected ',' or '") + close + "'");
    return false;
  }

  std::string ParseString() {
    ++pos_;  // the opening quote
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) Fail("unterminated escape");
        c = Unescape(text_[pos_++]);
      }
      out.push_back(c);
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }

  // The case files and results are ASCII; \uXXXX is accepted for ASCII code points only.
  char Unescape(char c) {
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'u': {
        if (pos_ + 4 > text_.size()) Fail("short \\u escape");
        const long code = std::strtol(std::string(text_.substr(pos_, 4)).c_str(), nullptr, 16);
        pos_ += 4;
        if (code > 0x7F) Fail("non-ASCII \\u escape");
        return static_cast<char>(code);
      }
      default:
        return c;  // \" \\ \/
    }
  }

  double ParseNumber() {
    // NaN and Infinity are not JSON, but Python's json module writes them; accept them.
    if (ConsumeWord("NaN")) return std::nan("");
    if (ConsumeWord("Infinity")) return HUGE_VAL;
    if (ConsumeWord("-Infinity")) return -HUGE_VAL;
    const std::string rest(text_.substr(pos_, 64));
    char* end = nullptr;
    const double number = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) Fail("unexpected character");
    pos_ += static_cast<size_t>(end - rest.c_str());
    return number;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Json Json::Parse(std::string_view text) { return JsonParser(text).ParseDocument(); }

void Json::Expect(Kind kind, const char* what) const {
  if (kind_ != kind) throw std::runtime_error(std::string("JSON: expected ") + what);
}

bool Json::AsBool() const {
  Expect(Kind::kBool, "a boolean");
  return bool_;
}

double Json::AsNumber() const {
  Expect(Kind::kNumber, "a number");
  return number_;
}

int64_t Json::AsInt() const {
  const double number = AsNumber();
  if (number != std::floor(number)) throw std::runtime_error("JSON: expected an integer");
  return static_cast<int64_t>(number);
}

const std::string& Json::AsString() const {
  Expect(Kind::kString, "a string");
  return string_;
}

const std::vector<Json>& Json::AsArray() const {
  Expect(Kind::kArray, "an array");
  return array_;
}

const Json& Json::operator[](const std::string& key) const {
  const Json* member = Find(key);
  if (member == nullptr) throw std::runtime_error("JSON: missing member \"" + key + "\"");
  return *member;
}

const Json* Json::Find(const std::string& key) const {
  Expect(Kind::kObject, "an object");
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &it->second;
}

}  // namespace openaclnn::tools
