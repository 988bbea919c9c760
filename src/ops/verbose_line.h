// What verbose mode says of one op call (base/verbose.h prints it at phase 2).
#pragma once

#include <cstdint>
#include <string>

#include "aclnn/acl_meta.h"
#include "openaclnn/op_table.h"

namespace openaclnn {

// "<api> backend=<name> simd=<target> <operand>=<dtype>:<shape>:<strides>:<offset>...
// reduction=<none|mean|sum|batchmean> [<attribute>=<value>...] workspace=<bytes>": each operand
// under its API name, in API order, "none" for an absent one, then each attribute (`attributes`,
// the op's values in API order) under its API name. simd is what the kernel table reports ("-" on
// a GPU).
std::string VerboseLine(const openaclnnOpDescriptor& op, const aclTensor* const* tensors,
                        int64_t reduction, const double* attributes, uint64_t workspace_size);

}  // namespace openaclnn
