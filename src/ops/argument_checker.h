// Checks of an aclnn call's arguments, in CANN's words and codes, that any op family shares.
#pragma once

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "base/status.h"

namespace openaclnn {

// Names the API in every message, so a user who reads aclGetRecentErrMsg() knows which call.
struct ArgumentChecker {
  const char* api;

  // 161001 for a null tensor (CANN's message), 161002 for a handle that is not a live aclTensor.
  aclnnStatus Present(const char* name, const aclTensor* tensor) const;
  aclnnStatus OutputPointers(uint64_t* workspace_size, aclOpExecutor** executor) const;
  // The dtype is one the SoC profile supports for this op (fp32, fp16 and, where the SoC has it,
  // bf16). Absent optional tensors pass.
  aclnnStatus SupportedType(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameType(const char* name, const aclTensor* tensor, const char* other_name,
                       const aclTensor* other) const;
  aclnnStatus Reduction(int64_t reduction) const;
  // Rank at most 8 and a view that stays inside its storage with non-negative strides.
  aclnnStatus Layout(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameShape(const char* name, const aclTensor* tensor, const char* other_name,
                        const aclTensor* other) const;
  aclnnStatus BroadcastsInto(const char* name, const aclTensor* tensor,
                             const aclTensor* self) const;
  // For a reduced result: exactly one element, any rank.
  aclnnStatus SingleElement(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameFormat(const char* name, const aclTensor* tensor, const char* other_name,
                         const aclTensor* other) const;
};

}  // namespace openaclnn
