// ATK case files: the JSON lists of cases CANN's ATK feeds an operator (see tests/atk/cases/ and
// the README's ATK section), read into plain structs. Every op of the library's table can be
// named: a case's tensors are matched to the op's operands by name (or role), its attributes to
// the op's attributes by name, so nothing here knows one op from another.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "openaclnn/op_table.h"

namespace openaclnn::tools {

enum class AtkDtype { kFloat32, kFloat16, kBFloat16, kInt64, kInt32 };

// How a tensor's elements are drawn from its "range_values".
struct AtkValues {
  enum class Kind {
    kUniform,  // [low, high]: uniform reals, or uniform integers in it for an integer dtype
    kChoice,   // every element one of `choices` (["inf"], ["-inf", "inf"], 0, "nan": CANN's
               // special-value cases), drawn uniformly where there are several
    kNormal    // normal reals of `mean` and `stddev` (CANN's {"name": "nd", ...}, see LoadAtkFile)
  };
  Kind kind = Kind::kUniform;
  double low = 0, high = 0;
  std::vector<double> choices;
  double mean = 0, stddev = 0;
  // kUniform of an integer dtype: values outside [low, high], each drawn as often as one integer
  // in it (a class-axis target's ignoreIndex, see LoadAtkFile).
  std::vector<double> extra;
};

struct AtkTensor {
  std::string name;       // the op's operand it is (self, gradOutput, weightOptional, ...)
  std::string file_name;  // as the case file names it (KlDivBackward's say grad_output, input)
  openaclnnOperandRole role = OPENACLNN_ROLE_SELF;
  AtkDtype dtype = AtkDtype::kFloat32;
  std::vector<int64_t> shape;
  AtkValues values;

  int64_t numel() const;
};

struct AtkCase {
  int64_t id = 0;
  // The library's op the case's "aclnn_name" names.
  const openaclnnOpDescriptor* op = nullptr;
  // In the file's order (the order the values are drawn in), without the inputs the op never
  // reads (Unused): those are passed as NULL.
  std::vector<AtkTensor> inputs;
  // 0 none, 1 mean, 2 sum, 3 batchmean (or their names); a range or a list of names is drawn once
  int64_t reduction = 0;
  // One value per attribute of the op, in its API order: the case's, else the op's default (a
  // float attribute narrowed to float, a bool one 0 or 1, as the C API takes them).
  std::vector<double> attributes;
  // Non-empty for a negative case ("expected_error_msg"): the API must return a non-zero status
  // whose aclGetRecentErrMsg() contains this text; nothing is compared with a golden.
  std::string expected_error;

  // The input that plays `role` for the op, or nullptr when the case does not pass one.
  const AtkTensor* Find(openaclnnOperandRole role) const;
  // The elements of its largest tensor: an input, or for an element-wise op the inputs'
  // broadcast shape (the output's, or the element-wise work's before a reduction).
  int64_t LargestCount() const;
};

// Reads every case of an ATK JSON file; throws std::runtime_error naming the file and case on
// anything it does not understand, rather than running a case it cannot reproduce. Attributes
// given as a range or a list of choices are drawn here, from (seed, case id), so a case is the
// same whichever others run; so are the mean and standard deviation of a tensor whose values are
// normal (range_values {"name": "nd", "mean": [lo, hi], "std": [lo, hi]}: each drawn uniformly
// from its range, once per tensor). An integer target of a class-axis op draws only the valid
// values of its range_values: class indices in [0, C) and the op's ignoreIndex.
std::vector<AtkCase> LoadAtkFile(const std::string& path, uint64_t seed);

// Whether the op never reads (an input) or writes (an output) its operand of this role: CANN's
// zloss operands (openaclnn/op_table.h). Such an input is passed as NULL, as CANN's executor
// passes it; such an output is allocated but never compared, its contents unspecified.
bool Unused(openaclnnOperandRole role);

// The broadcast shape of `shapes` (numpy's rules), or false when they do not broadcast.
bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out);

// The API every case of the file names ("aclnn" + aclnn_name) where the library has no such op,
// else "" (also for a file it cannot read: LoadAtkFile says what is wrong with it).
std::string AbsentOp(const std::string& path);

// "fp32", "fp16", "bf16", "int64", "int32" (ATK's spelling)
const char* DtypeName(AtkDtype dtype);
size_t DtypeSize(AtkDtype dtype);
bool IsInteger(AtkDtype dtype);
// The type a result over these inputs computes in, as CANN's PromoteType: the widest float
// (fp16 with bf16 is fp32), an integer with a float the float; integers alone the widest.
AtkDtype PromotedDtype(const std::vector<AtkDtype>& dtypes);
// The library's op named `api`; throws std::runtime_error if it has none.
const openaclnnOpDescriptor& OpNamed(const char* api);
const char* ReductionName(int64_t reduction);
// The role's name in the golden script's manifest: "self", "grad_output", "total_weight", ...
const char* RoleName(openaclnnOperandRole role);

}  // namespace openaclnn::tools
