#include "atk_case.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>

#include "json_file.h"

namespace openaclnn::tools {
namespace {

// Bounds on what a case may ask for, so that a hostile file gets an error and element counts stay
// far from int64's overflow: 2^50 elements per tensor. Nothing that large is allocated: a case
// needing more memory than the machine has is skipped (atk_memory.h), as CANN's largest, 3.5e9
// elements, is on most machines.
constexpr int64_t kMaxElements = int64_t{1} << 50;

AtkDtype ParseDtype(const std::string& name) {
  if (name == "fp32" || name == "float32") return AtkDtype::kFloat32;
  if (name == "fp16" || name == "float16") return AtkDtype::kFloat16;
  if (name == "bf16" || name == "bfloat16") return AtkDtype::kBFloat16;
  if (name == "int64") return AtkDtype::kInt64;
  if (name == "int32") return AtkDtype::kInt32;
  throw std::runtime_error("unsupported dtype \"" + name + "\"");
}

// The magnitude an integer tensor's values may reach: its dtype's, or 2^62 for int64, which
// keeps them exact through the draws' doubles.
double IntegerBound(AtkDtype dtype) { return dtype == AtkDtype::kInt32 ? 0x1p31 - 1 : 0x1p62; }

// ATK names an operator without its "aclnn" prefix.
const openaclnnOpDescriptor* ParseOp(const std::string& aclnn_name) {
  const openaclnnOpDescriptor* op = openaclnnFindOp(("aclnn" + aclnn_name).c_str());
  if (op == nullptr) throw std::runtime_error("unsupported operator \"" + aclnn_name + "\"");
  return op;
}

// A name as the matching compares it: lower case, without underscores or an "optional" suffix,
// so that ATK's log_target is the API's logTarget and weight its weightOptional.
std::string Normalized(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  constexpr std::string_view kOptional = "optional";
  if (out.size() > kOptional.size() && out.ends_with(kOptional)) {
    out.resize(out.size() - kOptional.size());
  }
  return out;
}

// The names ATK files give a role where the API's name differs (normalized): PyTorch's for its
// functions' parameters (KlDivBackward's files say input and grad_output), CANN's abbreviations.
constexpr struct {
  const char* name;
  openaclnnOperandRole role;
} kRoleAliases[] = {{"self", OPENACLNN_ROLE_SELF},
                    {"input", OPENACLNN_ROLE_SELF},
                    {"target", OPENACLNN_ROLE_TARGET},
                    {"targets", OPENACLNN_ROLE_TARGET},
                    {"label", OPENACLNN_ROLE_TARGET},
                    {"weight", OPENACLNN_ROLE_WEIGHT},
                    {"posweight", OPENACLNN_ROLE_POS_WEIGHT},
                    {"gradoutput", OPENACLNN_ROLE_GRAD_OUTPUT},
                    {"gradout", OPENACLNN_ROLE_GRAD_OUTPUT}};

// The op's input operand the file's tensor `name` is: the one of that name, else the one whose
// role the name is an alias of.
const openaclnnOperand& OperandNamed(const openaclnnOpDescriptor& op, const std::string& name) {
  const std::string wanted = Normalized(name);
  for (size_t i = 0; i < op.operandCount; ++i) {
    if (!op.operands[i].output && Normalized(op.operands[i].name) == wanted) return op.operands[i];
  }
  for (const auto& alias : kRoleAliases) {
    if (wanted != alias.name) continue;
    for (size_t i = 0; i < op.operandCount; ++i) {
      if (!op.operands[i].output && op.operands[i].role == alias.role) return op.operands[i];
    }
  }
  std::string inputs;
  for (size_t i = 0; i < op.operandCount; ++i) {
    if (!op.operands[i].output)
      inputs += std::string(inputs.empty() ? "" : ", ") + op.operands[i].name;
  }
  throw std::runtime_error("input \"" + name + "\" is no operand of " + op.api + " (" + inputs +
                           ")");
}

// One value of "range_values": a number, or "inf", "-inf", "nan" or a number as text.
double SpecialValue(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (text == "inf" || text == "+inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    if (text == "nan" || text == "-nan") return std::numeric_limits<double>::quiet_NaN();
    size_t used = 0;
    try {
      const double number = std::stod(text, &used);
      if (used == text.size()) return number;
    } catch (const std::exception&) {
    }
  }
  throw std::runtime_error("range_values holds " + value.dump(-1).substr(0, 40) +
                           ", not a number, \"inf\", \"-inf\" or \"nan\"");
}

// An attribute's "range_values": a number or a bool, or [low, high] to draw one from (an
// integer, inclusive, for an integral attribute: reduction, ignoreIndex).
double AttributeValue(const Json& value, bool integral, std::mt19937_64& engine,
                      const std::string& name) {
  if (value.is_boolean()) return value.get<bool>() ? 1.0 : 0.0;
  if (value.is_array() && value.size() == 2 && value[0].is_number() && value[1].is_number()) {
    const double low = value[0].get<double>(), high = value[1].get<double>();
    if (!(low <= high) || !std::isfinite(low) || !std::isfinite(high)) {
      throw std::runtime_error("attribute \"" + name + "\" has no range [low, high]");
    }
    if (!integral) return std::uniform_real_distribution<double>(low, high)(engine);
    const double first = std::ceil(low), last = std::floor(high);
    if (first > last || std::fabs(first) > 0x1p62 || std::fabs(last) > 0x1p62) {
      throw std::runtime_error("attribute \"" + name + "\" has no integer in its range");
    }
    return static_cast<double>(std::uniform_int_distribution<int64_t>(
        static_cast<int64_t>(first), static_cast<int64_t>(last))(engine));
  }
  const double number = NumberOf(value, name.c_str());
  if (integral && number != std::floor(number)) {
    throw std::runtime_error("attribute \"" + name + "\" must be an integer");
  }
  return number;
}

// CANN's normal values, {"name": "nd", "mean": [lo, hi], "std": [lo, hi]}: the tensor's mean
// and standard deviation, each drawn from its range (or given as one number).
AtkValues NormalValues(const Json& range, const AtkTensor& tensor, std::mt19937_64& engine) {
  if (StringOf(Member(range, "name"), "range_values' name") != "nd") {
    throw std::runtime_error("range_values of \"" + tensor.file_name +
                             "\" name a distribution other than \"nd\" (normal)");
  }
  if (IsInteger(tensor.dtype)) {
    throw std::runtime_error(std::string("normal range_values for ") + DtypeName(tensor.dtype) +
                             " input \"" + tensor.file_name + "\"");
  }
  AtkValues values;
  values.kind = AtkValues::Kind::kNormal;
  values.mean = AttributeValue(Member(range, "mean"), false, engine, "mean");
  values.stddev = AttributeValue(Member(range, "std"), false, engine, "std");
  if (!std::isfinite(values.mean) || !std::isfinite(values.stddev) || values.stddev < 0) {
    throw std::runtime_error("range_values of \"" + tensor.file_name +
                             "\" need a finite mean and standard deviation, this one >= 0");
  }
  return values;
}

// A tensor's "range_values": [low, high] (two numbers) draws uniformly; {"name": "nd", ...}
// normal values; any other list, a bare number or a bare string gives each element one of its
// values (CANN's ["inf"], ["-inf", "inf"], 0, "nan").
AtkValues ParseValues(const Json& range, const AtkTensor& tensor, std::mt19937_64& engine) {
  if (range.is_object()) return NormalValues(range, tensor, engine);
  AtkValues values;
  const double bound = IntegerBound(tensor.dtype);
  const auto integral = [&](double value) {
    return std::isfinite(value) && value == std::floor(value) && std::fabs(value) <= bound;
  };
  if (range.is_array() && range.size() == 2 && range[0].is_number() && range[1].is_number()) {
    values.low = range[0].get<double>();
    values.high = range[1].get<double>();
    if (!(values.low <= values.high)) throw std::runtime_error("range_values' low is above high");
    if (IsInteger(tensor.dtype) &&
        (!std::isfinite(values.low) || !std::isfinite(values.high) ||
         std::ceil(values.low) > std::floor(values.high) || std::fabs(values.low) > bound ||
         std::fabs(values.high) > bound)) {
      throw std::runtime_error(std::string("range_values holds no ") + DtypeName(tensor.dtype) +
                               " value");
    }
    return values;
  }
  values.kind = AtkValues::Kind::kChoice;
  if (range.is_array()) {
    for (const Json& value : range) values.choices.push_back(SpecialValue(value));
  } else if (range.is_number() || range.is_string()) {
    values.choices.push_back(SpecialValue(range));
  }
  if (values.choices.empty()) {
    if (tensor.numel() == 0) return values;  // nothing to draw anyway
    throw std::runtime_error("input \"" + tensor.file_name + "\" has no usable range_values");
  }
  if (IsInteger(tensor.dtype) &&
      !std::all_of(values.choices.begin(), values.choices.end(), integral)) {
    throw std::runtime_error(std::string("range_values of ") + DtypeName(tensor.dtype) +
                             " input \"" + tensor.file_name + "\" holds a value that is no " +
                             DtypeName(tensor.dtype));
  }
  return values;
}

AtkTensor ParseTensor(const Json& input, const openaclnnOpDescriptor& op, std::mt19937_64& engine) {
  AtkTensor tensor;
  tensor.file_name = StringOf(Member(input, "name"), "name");
  const openaclnnOperand& operand = OperandNamed(op, tensor.file_name);
  tensor.name = operand.name;
  tensor.role = operand.role;
  tensor.dtype = ParseDtype(StringOf(Member(input, "dtype"), "dtype"));
  double elements = 1;  // in double, which a hostile shape cannot overflow
  for (const Json& dim : ArrayOf(Member(input, "shape"), "shape")) {
    tensor.shape.push_back(IntegerOf(dim, "a dimension"));
    if (tensor.shape.back() < 0) {
      throw std::runtime_error("input \"" + tensor.file_name + "\" has a negative dimension");
    }
    elements *= static_cast<double>(tensor.shape.back());
  }
  if (elements > static_cast<double>(kMaxElements)) {
    throw std::runtime_error("input \"" + tensor.file_name + "\" has more than " +
                             std::to_string(kMaxElements) + " elements");
  }
  tensor.values = ParseValues(Member(input, "range_values"), tensor, engine);
  return tensor;
}

// Sets attribute `name` of the case's op from the file's value.
void SetAttribute(AtkCase* atk_case, const std::string& name, const Json& value,
                  std::mt19937_64& engine) {
  const openaclnnOpDescriptor& op = *atk_case->op;
  for (size_t k = 0; k < op.attributeCount; ++k) {
    if (Normalized(op.attributes[k].name) != Normalized(name)) continue;
    const openaclnnAttributeType type = op.attributes[k].type;
    const bool boolean = type == OPENACLNN_ATTRIBUTE_BOOL;
    double number =
        AttributeValue(value, boolean || type == OPENACLNN_ATTRIBUTE_INT64, engine, name);
    if (boolean && number != 0 && number != 1) {
      throw std::runtime_error("attribute \"" + name + "\" must be true or false");
    }
    // The op table passes an int64 attribute as a double, exact up to 2^53.
    if (type == OPENACLNN_ATTRIBUTE_INT64 && std::fabs(number) > 0x1p53) {
      throw std::runtime_error("attribute \"" + name + "\" is beyond 2^53");
    }
    if (type == OPENACLNN_ATTRIBUTE_FLOAT) number = static_cast<float>(number);
    atk_case->attributes[k] = number;
    return;
  }
  throw std::runtime_error("attribute \"" + name + "\" is no attribute of " + op.api);
}

// The reduction CANN names ("none", "mean", "sum", "batchmean").
int64_t ReductionNamed(const std::string& name) {
  for (int64_t reduction = 0; reduction <= 3; ++reduction) {
    if (name == ReductionName(reduction)) return reduction;
  }
  throw std::runtime_error("reduction \"" + name +
                           "\" is none of \"none\", \"mean\", \"sum\" and \"batchmean\"");
}

// A reduction's "range_values": a name, a list of names to draw one from (CANN's ["mean", "sum",
// "none"]), or as an integral attribute's, a number or [low, high].
int64_t ReductionValue(const Json& value, std::mt19937_64& engine) {
  if (value.is_string()) return ReductionNamed(value.get<std::string>());
  if (value.is_array() && !value.empty() &&
      std::all_of(value.begin(), value.end(), [](const Json& item) { return item.is_string(); })) {
    const size_t pick = std::uniform_int_distribution<size_t>(0, value.size() - 1)(engine);
    return ReductionNamed(value[pick].get<std::string>());
  }
  const double reduction = AttributeValue(value, true, engine, "reduction");
  if (std::fabs(reduction) > 0x1p62) throw std::runtime_error("reduction is too large");
  return static_cast<int64_t>(reduction);
}

// The value of the op's ignoreIndex attribute in the case, if the op has one.
std::optional<double> IgnoreIndex(const AtkCase& atk_case) {
  const openaclnnOpDescriptor& op = *atk_case.op;
  for (size_t k = 0; k < op.attributeCount; ++k) {
    if (Normalized(op.attributes[k].name) == "ignoreindex") return atk_case.attributes[k];
  }
  return std::nullopt;
}

// Narrows `values` to the class indices in [0, classes) and `ignore`: a range to its part inside
// [0, classes), plus `ignore` where the range held it; special values to the valid ones.
void KeepClassIndices(int64_t classes, std::optional<double> ignore, AtkValues* values) {
  const auto valid = [&](double value) {
    return (value >= 0 && value < static_cast<double>(classes)) || value == ignore;
  };
  if (values->kind == AtkValues::Kind::kChoice) {
    std::erase_if(values->choices, [&](double value) { return !valid(value); });
    return;
  }
  const bool ignore_drawn = ignore && *ignore >= values->low && *ignore <= values->high;
  values->low = std::max(std::ceil(values->low), 0.0);
  values->high = std::min(std::floor(values->high), static_cast<double>(classes) - 1);
  const bool range_left = values->low <= values->high;
  if (ignore_drawn && !(range_left && *ignore >= values->low && *ignore <= values->high)) {
    values->extra.push_back(*ignore);
  }
  if (!range_left) {  // only the ignoreIndex, if that
    values->kind = AtkValues::Kind::kChoice;
    values->choices = std::move(values->extra);
    values->extra.clear();
  }
}

// A class-axis op's integer target holds class indices: self's dimension 1 (0 of a 1-D self) has
// the C classes (openaclnn/op_table.h). A target outside [0, C) that is not ignoreIndex is an
// error the library reports at synchronize (docs/contract/differences-from-cann.md D58) where
// CANN's golden zeroes its row, so the target draws only the valid part of its range_values
// (CANN's NLLLossBackward case 217: [-100, 100] with ignoreIndex -100 draws from [0, 100] and
// -100).
void KeepTargetsValid(AtkCase* atk_case) {
  const AtkTensor* self = atk_case->Find(OPENACLNN_ROLE_SELF);
  if (self == nullptr || self->shape.empty()) return;  // the op's checks refuse it
  const int64_t classes = self->shape[self->shape.size() == 1 ? 0 : 1];
  for (AtkTensor& target : atk_case->inputs) {
    if (target.role != OPENACLNN_ROLE_TARGET || !IsInteger(target.dtype)) continue;
    KeepClassIndices(classes, IgnoreIndex(*atk_case), &target.values);
    if (target.values.kind == AtkValues::Kind::kChoice && target.values.choices.empty() &&
        target.numel() > 0) {
      throw std::runtime_error("range_values of \"" + target.file_name +
                               "\" hold no class index in [0, " + std::to_string(classes) +
                               ") and not ignoreIndex");
    }
  }
}

AtkCase ParseCase(const Json& entry, uint64_t seed) {
  AtkCase atk_case;
  atk_case.id = IntegerOf(Member(entry, "id"), "id");
  atk_case.op = ParseOp(StringOf(Member(entry, "aclnn_name"), "aclnn_name"));
  const openaclnnOpDescriptor& op = *atk_case.op;
  for (size_t k = 0; k < op.attributeCount; ++k) {
    const openaclnnAttribute& attribute = op.attributes[k];
    atk_case.attributes.push_back(attribute.type == OPENACLNN_ATTRIBUTE_FLOAT
                                      ? static_cast<float>(attribute.defaultValue)
                                      : attribute.defaultValue);
  }
  // Ranged attributes draw from their own stream of (seed, id): the tensors' draws stay those of
  // a file without them.
  std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(atk_case.id), 1u};
  std::mt19937_64 engine(seeds);
  for (const Json& input : ArrayOf(Member(entry, "inputs"), "inputs")) {
    const std::string& type = StringOf(Member(input, "type"), "type");
    const std::string& name = StringOf(Member(input, "name"), "name");
    if (type == "tensor") {
      atk_case.inputs.push_back(ParseTensor(input, op, engine));
      for (size_t i = 0; i + 1 < atk_case.inputs.size(); ++i) {
        if (atk_case.inputs[i].name == atk_case.inputs.back().name) {
          throw std::runtime_error("two inputs are " + atk_case.inputs[i].name);
        }
      }
    } else if (type == "attr" && name == "reduction") {
      atk_case.reduction = ReductionValue(Member(input, "range_values"), engine);
    } else if (type == "attr") {
      SetAttribute(&atk_case, name, Member(input, "range_values"), engine);
    } else {
      throw std::runtime_error("unsupported input \"" + name + "\" of type \"" + type + "\"");
    }
  }
  // CANN's files give the zloss inputs shapes and values, but its executor passes NULL.
  std::erase_if(atk_case.inputs, [](const AtkTensor& input) { return Unused(input.role); });
  if (op.layout == OPENACLNN_LAYOUT_CLASS_AXIS) KeepTargetsValid(&atk_case);
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

int64_t AtkCase::LargestCount() const {
  int64_t largest = 0;
  std::vector<std::vector<int64_t>> shapes;
  for (const AtkTensor& input : inputs) {
    largest = std::max(largest, input.numel());
    shapes.push_back(input.shape);
  }
  std::vector<int64_t> broadcast;
  // A class-axis op's inputs do not broadcast: its output has self's shape.
  if (op->layout == OPENACLNN_LAYOUT_ELEMENTWISE && BroadcastShape(shapes, &broadcast)) {
    // In double: each input is bounded, their broadcast shape is not.
    double count = 1;
    for (int64_t dim : broadcast) count *= static_cast<double>(dim);
    largest = count > 0x1p62 ? int64_t{1} << 62 : std::max(largest, static_cast<int64_t>(count));
  }
  return largest;
}

const AtkTensor* AtkCase::Find(openaclnnOperandRole role) const {
  for (const AtkTensor& tensor : inputs) {
    if (tensor.role == role) return &tensor;
  }
  return nullptr;
}

std::vector<AtkCase> LoadAtkFile(const std::string& path, uint64_t seed) {
  const Json document = ParseJsonFile(path);
  std::vector<AtkCase> cases;
  try {
    for (const Json& entry : ArrayOf(document, "the file's top level")) {
      try {
        cases.push_back(ParseCase(entry, seed));
      } catch (const std::exception& error) {
        throw std::runtime_error("case " + std::to_string(cases.size()) + ": " + error.what());
      }
    }
  } catch (const std::exception& error) {
    throw std::runtime_error(path + ": " + error.what());
  }
  return cases;
}

std::string AbsentOp(const std::string& path) {
  try {
    std::string absent;
    const Json document = ParseJsonFile(path);
    for (const Json& entry : ArrayOf(document, "the file's top level")) {
      const std::string api = "aclnn" + StringOf(Member(entry, "aclnn_name"), "aclnn_name");
      if (openaclnnFindOp(api.c_str()) != nullptr || (!absent.empty() && api != absent)) {
        return "";
      }
      absent = api;
    }
    return absent;
  } catch (const std::exception&) {
    return "";
  }
}

bool Unused(openaclnnOperandRole role) {
  return role == OPENACLNN_ROLE_ZLOSS_OUT || role == OPENACLNN_ROLE_LSE_FOR_ZLOSS_OUT ||
         role == OPENACLNN_ROLE_GRAD_ZLOSS || role == OPENACLNN_ROLE_LSE_FOR_ZLOSS;
}

bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out) {
  size_t rank = 0;
  for (const auto& shape : shapes) rank = std::max(rank, shape.size());
  out->assign(rank, 1);
  for (const auto& shape : shapes) {
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t& dim = (*out)[rank - shape.size() + i];
      if (shape[i] == dim || shape[i] == 1) continue;
      if (dim != 1) return false;
      dim = shape[i];
    }
  }
  return true;
}

const char* DtypeName(AtkDtype dtype) {
  switch (dtype) {
    case AtkDtype::kFloat16:
      return "fp16";
    case AtkDtype::kBFloat16:
      return "bf16";
    case AtkDtype::kInt64:
      return "int64";
    case AtkDtype::kInt32:
      return "int32";
    default:
      return "fp32";
  }
}

size_t DtypeSize(AtkDtype dtype) {
  switch (dtype) {
    case AtkDtype::kFloat32:
    case AtkDtype::kInt32:
      return 4;
    case AtkDtype::kInt64:
      return 8;
    default:
      return 2;
  }
}

bool IsInteger(AtkDtype dtype) { return dtype == AtkDtype::kInt64 || dtype == AtkDtype::kInt32; }

AtkDtype PromotedDtype(const std::vector<AtkDtype>& dtypes) {
  bool fp16 = false, bf16 = false, fp32 = false, int64 = false;
  for (AtkDtype dtype : dtypes) {
    fp16 |= dtype == AtkDtype::kFloat16;
    bf16 |= dtype == AtkDtype::kBFloat16;
    fp32 |= dtype == AtkDtype::kFloat32;
    int64 |= dtype == AtkDtype::kInt64;
  }
  if (fp32 || (fp16 && bf16)) return AtkDtype::kFloat32;
  if (fp16) return AtkDtype::kFloat16;
  if (bf16) return AtkDtype::kBFloat16;
  if (dtypes.empty()) return AtkDtype::kFloat32;
  return int64 ? AtkDtype::kInt64 : AtkDtype::kInt32;
}

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
    case 3:
      return "batchmean";
    default:
      return "?";
  }
}

const char* RoleName(openaclnnOperandRole role) {
  switch (role) {
    case OPENACLNN_ROLE_SELF:
      return "self";
    case OPENACLNN_ROLE_TARGET:
      return "target";
    case OPENACLNN_ROLE_WEIGHT:
      return "weight";
    case OPENACLNN_ROLE_POS_WEIGHT:
      return "pos_weight";
    case OPENACLNN_ROLE_GRAD_OUTPUT:
      return "grad_output";
    case OPENACLNN_ROLE_OUT:
      return "out";
    case OPENACLNN_ROLE_GRAD_SELF_OUT:
      return "grad_self_out";
    case OPENACLNN_ROLE_TOTAL_WEIGHT:
      return "total_weight";
    case OPENACLNN_ROLE_TOTAL_WEIGHT_OUT:
      return "total_weight_out";
    case OPENACLNN_ROLE_LOG_PROB_OUT:
      return "log_prob_out";
    case OPENACLNN_ROLE_ZLOSS_OUT:
      return "zloss_out";
    case OPENACLNN_ROLE_LSE_FOR_ZLOSS_OUT:
      return "lse_for_zloss_out";
    case OPENACLNN_ROLE_GRAD_ZLOSS:
      return "grad_zloss";
    case OPENACLNN_ROLE_LSE_FOR_ZLOSS:
      return "lse_for_zloss";
    default:
      return "?";
  }
}

}  // namespace openaclnn::tools
