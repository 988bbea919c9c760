#include "atk_case.h"

#include <stdexcept>

#include "json_file.h"

namespace openaclnn::tools {
namespace {

// Bounds on what a case may ask for, so a hostile file gets an error, not an allocation that
// brings the machine down: 2^31 elements (8 GiB of fp32) per tensor.
constexpr int64_t kMaxElements = int64_t{1} << 31;

AtkDtype ParseDtype(const std::string& name) {
  if (name == "fp32" || name == "float32") return AtkDtype::kFloat32;
  if (name == "fp16" || name == "float16") return AtkDtype::kFloat16;
  if (name == "bf16" || name == "bfloat16") return AtkDtype::kBFloat16;
  throw std::runtime_error("unsupported dtype \"" + name + "\"");
}

size_t OutputCount(const openaclnnOpDescriptor& op) {
  size_t outputs = 0;
  for (size_t i = 0; i < op.operandCount; ++i) outputs += op.operands[i].output != 0;
  return outputs;
}

// ATK names an operator without its "aclnn" prefix.
const openaclnnOpDescriptor* ParseOp(const std::string& aclnn_name) {
  const openaclnnOpDescriptor* op = openaclnnFindOp(("aclnn" + aclnn_name).c_str());
  if (op == nullptr || OutputCount(*op) != 1) {
    throw std::runtime_error("unsupported operator \"" + aclnn_name + "\"");
  }
  return op;
}

AtkTensor ParseTensor(const Json& input) {
  AtkTensor tensor;
  tensor.name = StringOf(Member(input, "name"), "name");
  tensor.dtype = ParseDtype(StringOf(Member(input, "dtype"), "dtype"));
  double elements = 1;  // in double, which a hostile shape cannot overflow
  for (const Json& dim : ArrayOf(Member(input, "shape"), "shape")) {
    tensor.shape.push_back(IntegerOf(dim, "a dimension"));
    if (tensor.shape.back() < 0) {
      throw std::runtime_error("input \"" + tensor.name + "\" has a negative dimension");
    }
    elements *= static_cast<double>(tensor.shape.back());
  }
  if (elements > static_cast<double>(kMaxElements)) {
    throw std::runtime_error("input \"" + tensor.name + "\" has more than " +
                             std::to_string(kMaxElements) + " elements");
  }
  // An empty tensor's range may be a bare number: there is nothing to draw anyway.
  const Json& range = Member(input, "range_values");
  if (range.is_array() && range.size() == 2) {
    tensor.low = NumberOf(range[0], "range_values[0]");
    tensor.high = NumberOf(range[1], "range_values[1]");
  } else if (tensor.numel() != 0) {
    throw std::runtime_error("input \"" + tensor.name + "\" has no [low, high] range");
  }
  return tensor;
}

AtkCase ParseCase(const Json& entry) {
  AtkCase atk_case;
  atk_case.id = IntegerOf(Member(entry, "id"), "id");
  atk_case.op = ParseOp(StringOf(Member(entry, "aclnn_name"), "aclnn_name"));
  for (const Json& input : ArrayOf(Member(entry, "inputs"), "inputs")) {
    const std::string& type = StringOf(Member(input, "type"), "type");
    const std::string& name = StringOf(Member(input, "name"), "name");
    if (type == "tensor") {
      atk_case.inputs.push_back(ParseTensor(input));
    } else if (type == "attr" && name == "reduction") {
      atk_case.reduction = IntegerOf(Member(input, "range_values"), "reduction");
    } else {
      throw std::runtime_error("unsupported input \"" + name + "\"");
    }
  }
  // A negative case: the API must reject it with a message containing this text.
  if (const auto found = entry.find("expected_error_msg");
      found != entry.end() && !found->is_null()) {
    atk_case.expected_error = StringOf(*found, "expected_error_msg");
  }
  return atk_case;
}

}  // namespace

int64_t AtkTensor::numel() const {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

const AtkTensor* AtkCase::Find(const std::string& name) const {
  for (const AtkTensor& tensor : inputs) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

std::vector<AtkCase> LoadAtkFile(const std::string& path) {
  const Json document = ParseJsonFile(path);
  std::vector<AtkCase> cases;
  try {
    for (const Json& entry : ArrayOf(document, "the file's top level")) {
      try {
        cases.push_back(ParseCase(entry));
      } catch (const std::exception& error) {
        throw std::runtime_error("case " + std::to_string(cases.size()) + ": " + error.what());
      }
    }
  } catch (const std::exception& error) {
    throw std::runtime_error(path + ": " + error.what());
  }
  return cases;
}

const char* DtypeName(AtkDtype dtype) {
  switch (dtype) {
    case AtkDtype::kFloat16:
      return "fp16";
    case AtkDtype::kBFloat16:
      return "bf16";
    default:
      return "fp32";
  }
}

size_t DtypeSize(AtkDtype dtype) { return dtype == AtkDtype::kFloat32 ? 4 : 2; }

const openaclnnOpDescriptor& OpNamed(const char* api) {
  const openaclnnOpDescriptor* op = openaclnnFindOp(api);
  if (op == nullptr) throw std::runtime_error(std::string("the library has no ") + api);
  return *op;
}

const char* ReductionName(int64_t reduction) {
  switch (reduction) {
    case 0:
      return "none";
    case 1:
      return "mean";
    case 2:
      return "sum";
    default:
      return "?";
  }
}

}  // namespace openaclnn::tools
