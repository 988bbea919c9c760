#include "ops/verbose_line.h"

#include <cstdio>

#include "base/dtype.h"
#include "base/tensor.h"
#include "openaclnn/op_table.h"
#include "runtime/device.h"

namespace openaclnn {
namespace {

std::string DescribeOperand(const aclTensor* tensor) {
  if (tensor == nullptr) return "none";
  return std::string(DataTypeName(tensor->dtype)) + ":" + ShapeString(tensor->view_shape) + ":" +
         ShapeString(tensor->strides) + ":" + std::to_string(tensor->offset);
}

const char* ReductionName(int64_t reduction) {
  constexpr const char* kNames[] = {"none", "mean", "sum", "batchmean"};
  return kNames[reduction];  // the checks admitted only these
}

}  // namespace

std::string VerboseLine(const openaclnnOpDescriptor& op, const aclTensor* const* tensors,
                        int64_t reduction, const double* attributes, uint64_t workspace_size) {
  std::string line = std::string(op.api) + " backend=" + ActiveBackend().name +
                     " simd=" + openaclnnKernelSimdTarget();
  for (size_t slot = 0; slot < op.operandCount; ++slot) {
    line += std::string(" ") + op.operands[slot].name + "=" + DescribeOperand(tensors[slot]);
  }
  line += std::string(" reduction=") + ReductionName(reduction);
  for (size_t k = 0; k < op.attributeCount; ++k) {
    char value[32];
    std::snprintf(value, sizeof value, "%.17g", attributes[k]);
    line += std::string(" ") + op.attributes[k].name + "=" + value;
  }
  return line + " workspace=" + std::to_string(workspace_size);
}

}  // namespace openaclnn
