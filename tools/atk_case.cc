#include "atk_case.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "json.h"

namespace openaclnn::tools {
namespace {

AtkDtype ParseDtype(const std::string& name) {
  if (name == "fp32" || name == "float32") return AtkDtype::kFloat32;
  if (name == "fp16" || name == "float16") return AtkDtype::kFloat16;
  if (name == "bf16" || name == "bfloat16") return AtkDtype::kBFloat16;
  throw std::runtime_error("unsupported dtype \"" + name + "\"");
}

AtkOp ParseOp(const std::string& aclnn_name) {
  if (aclnn_name == "BinaryCrossEntropyWithLogits") return AtkOp::kForward;
  if (aclnn_name == "BinaryCrossEntropyWithLogitsBackward") return AtkOp::kBackward;
  if (aclnn_name == "BinaryCrossEntropyWithLogitsTargetBackward") return AtkOp::kTargetBackward;
  throw std::runtime_error("unsupported operator \"" + aclnn_name + "\"");
}

AtkTensor ParseTensor(const Json& input) {
  AtkTensor tensor;
  tensor.name = input["name"].AsString();
  tensor.dtype = ParseDtype(input["dtype"].AsString());
  for (const Json& dim : input["shape"].AsArray()) tensor.shape.push_back(dim.AsInt());
  // An empty tensor's range may be a bare number: there is nothing to draw anyway.
  const Json& range = input["range_values"];
  if (range.is_array()) {
    tensor.low = range.AsArray().at(0).AsNumber();
    tensor.high = range.AsArray().at(1).AsNumber();
  } else if (tensor.numel() != 0) {
    throw std::runtime_error("input \"" + tensor.name + "\" has no [low, high] range");
  }
  return tensor;
}

AtkCase ParseCase(const Json& entry) {
  AtkCase atk_case;
  atk_case.id = entry["id"].AsInt();
  atk_case.op = ParseOp(entry["aclnn_name"].AsString());
  for (const Json& input : entry["inputs"].AsArray()) {
    const std::string& type = input["type"].AsString();
    if (type == "tensor") {
      atk_case.inputs.push_back(ParseTensor(input));
    } else if (type == "attr" && input["name"].AsString() == "reduction") {
      atk_case.reduction = input["range_values"].AsInt();
    } else {
      throw std::runtime_error("unsupported input \"" + input["name"].AsString() + "\"");
    }
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
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot open");
  std::stringstream text;
  text << file.rdbuf();
  std::vector<AtkCase> cases;
  try {
    const Json document = Json::Parse(text.str());
    for (const Json& entry : document.AsArray()) {
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

const char* OpName(AtkOp op) {
  switch (op) {
    case AtkOp::kBackward:
      return "aclnnBinaryCrossEntropyWithLogitsBackward";
    case AtkOp::kTargetBackward:
      return "aclnnBinaryCrossEntropyWithLogitsTargetBackward";
    default:
      return "aclnnBinaryCrossEntropyWithLogits";
  }
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
