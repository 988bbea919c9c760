// What verbose mode says of one op call (base/verbose.h prints it at phase 2).
#pragma once

#include <cstdint>
#include <string>

#include "aclnn/acl_meta.h"
#include "openaclnn/op_table.h"

namespace openaclnn {

// "<api> backend=<name> simd=<target> <operand>=<dtype>:<shape>:<strides>:<offset>...
// reduction=<none|mean|sum> workspace=<bytes>": each operand under its API name, in API order,
// "none" for an absent one. simd is what the kernel table reports ("-" on a GPU).
std::string VerboseLine(const openaclnnOpDescriptor& op, const aclTensor* const* tensors,
                        int64_t reduction, uint64_t workspace_size);

}  // namespace openaclnn
