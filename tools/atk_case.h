// ATK case files: the JSON lists of cases CANN's ATK feeds an operator (see tests/atk/cases/ and
// the README's ATK section), read into plain structs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "openaclnn/op_table.h"

namespace openaclnn::tools {

enum class AtkDtype { kFloat32, kFloat16, kBFloat16 };

struct AtkTensor {
  std::string name;  // the C API parameter: self, target, weightOptional, ...
  AtkDtype dtype = AtkDtype::kFloat32;
  std::vector<int64_t> shape;
  double low = 0, high = 0;  // inputs are drawn uniformly from [low, high]

  int64_t numel() const;
};

struct AtkCase {
  int64_t id = 0;
  // The library's op the case's "aclnn_name" names (one with a single output, which the golden
  // judges).
  const openaclnnOpDescriptor* op = nullptr;
  std::vector<AtkTensor> inputs;
  int64_t reduction = 0;  // 0 none, 1 mean, 2 sum
  // Non-empty for a negative case ("expected_error_msg"): the API must return a non-zero status
  // whose aclGetRecentErrMsg() contains this text; nothing is compared with a golden.
  std::string expected_error;

  // The input named `name`, or nullptr when the case does not pass it.
  const AtkTensor* Find(const std::string& name) const;
};

// Reads every case of an ATK JSON file; throws std::runtime_error naming the file and case on
// anything it does not understand, rather than running a case it cannot reproduce.
std::vector<AtkCase> LoadAtkFile(const std::string& path);

const char* DtypeName(AtkDtype dtype);  // "fp32", "fp16", "bf16" (ATK's spelling)
size_t DtypeSize(AtkDtype dtype);
// The library's op named `api`; throws std::runtime_error if it has none.
const openaclnnOpDescriptor& OpNamed(const char* api);
const char* ReductionName(int64_t reduction);

}  // namespace openaclnn::tools
