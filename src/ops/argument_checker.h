// Checks of an aclnn call's arguments, in CANN's words and codes, that any op family shares.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

namespace openaclnn {

// A set of aclDataTypes: an op's support list on the current SoC.
struct DtypeSet {
  uint64_t bits = 0;
  constexpr DtypeSet With(int64_t dtype) const { return {bits | (uint64_t{1} << dtype)}; }
  constexpr bool Contains(int64_t dtype) const {
    return dtype >= 0 && dtype < 64 && (bits >> dtype & 1u) != 0;
  }
  // CANN's spelling of every member, e.g. "DT_FLOAT, DT_FLOAT16"; "none" for the empty set.
  std::string Names() const;
};

// CANN's usual list: fp32, fp16, and bf16 where the SoC has it.
DtypeSet FloatTypesOfSoc();

// A tensor argument and the name CANN's messages give it.
struct NamedTensor {
  const char* name;
  const aclTensor* tensor;
};

// Names the API in every message, so a user who reads aclGetRecentErrMsg() knows which call.
// The cheap checks are defined below, inline: phase 1 of a small call is well under a
// microsecond, and each op's checks call them several times.
struct ArgumentChecker {
  const char* api;

  // 161001 for a null tensor (CANN's message), 161002 for a handle that is not a live aclTensor.
  aclnnStatus Present(const char* name, const aclTensor* tensor) const;
  // Present (Layout) of each tensor in turn: the first that fails, as a run of single calls.
  aclnnStatus Present(std::initializer_list<NamedTensor> tensors) const;
  aclnnStatus Layout(std::initializer_list<NamedTensor> tensors) const;
  aclnnStatus OutputPointers(uint64_t* workspace_size, aclOpExecutor** executor) const;
  // The dtype is one the SoC profile supports for this op (fp32, fp16 and, where the SoC has it,
  // bf16). Absent optional tensors pass.
  aclnnStatus SupportedType(const char* name, const aclTensor* tensor) const;
  // The dtype is in `allowed`. Absent optional tensors pass.
  aclnnStatus TypeIn(const char* name, const aclTensor* tensor, DtypeSet allowed) const;
  aclnnStatus SameType(const char* name, const aclTensor* tensor, const char* other_name,
                       const aclTensor* other) const;
  // *promoted = PromoteType(a, b), which must exist (`what` names the pair in the message).
  aclnnStatus Promoted(const char* what, int64_t a, int64_t b, int64_t* promoted) const;
  // The promoted type `from` (named `what`) is in `allowed` / may be cast to the tensor's dtype.
  aclnnStatus PromotedIn(const char* what, int64_t from, DtypeSet allowed) const;
  aclnnStatus CastsTo(const char* what, int64_t from, const char* name,
                      const aclTensor* tensor) const;
  aclnnStatus Reduction(int64_t reduction) const;
  // 0 none, 1 mean, 2 sum, 3 batchmean (the KL divergence ops).
  aclnnStatus ReductionWithBatchmean(int64_t reduction) const;
  // Rank at most 8 and a view that stays inside its storage with non-negative strides.
  aclnnStatus Layout(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameShape(const char* name, const aclTensor* tensor, const char* other_name,
                        const aclTensor* other) const;
  // The tensor broadcasts into self's shape (an absent optional one passes).
  aclnnStatus BroadcastsInto(const char* name, const aclTensor* tensor,
                             const aclTensor* self) const;
  // The same into `shape`, which `what` names ("self shape"): broadcasting the tensor's shape
  // with it gives `shape` itself.
  aclnnStatus BroadcastsInto(const char* name, const aclTensor* tensor,
                             const std::vector<int64_t>& shape, const char* what) const;
  // The symmetric NumPy broadcast of `shape` (named `what`) and the tensor's shape, into *result.
  aclnnStatus Broadcast(const char* what, const std::vector<int64_t>& shape, const char* name,
                        const aclTensor* tensor, std::vector<int64_t>* result) const;
  // The tensor's shape is `shape` (`what` says where that shape comes from).
  aclnnStatus ShapeIs(const char* name, const aclTensor* tensor, const std::vector<int64_t>& shape,
                      const char* what) const;
  // Rank 0 (a reduced result where CANN wants a 0-D tensor).
  aclnnStatus RankZero(const char* name, const aclTensor* tensor) const;
  // For a reduced result: exactly one element, any rank.
  aclnnStatus SingleElement(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameFormat(const char* name, const aclTensor* tensor, const char* other_name,
                         const aclTensor* other) const;
  // The storage format is not one of CANN's private (device-tiled) formats: NC1HWC0, FRACTAL_Z,
  // NDC1HWC0, FRACTAL_Z_3D, FRACTAL_NZ and its C0 variants, NC1HWC0_C04 (opbase's
  // IsPrivateFormat), for ops that refuse them.
  aclnnStatus PublicFormat(const char* name, const aclTensor* tensor) const;
};

inline aclnnStatus ArgumentChecker::Present(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "%s: Expected a proper Tensor but got null for argument %s.", api, name);
  }
  if (!IsLiveTensor(tensor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: argument %s (%p) is not a live aclTensor; was it destroyed?", api, name,
                static_cast<const void*>(tensor));
  }
  return ACLNN_SUCCESS;
}

inline aclnnStatus ArgumentChecker::Present(std::initializer_list<NamedTensor> tensors) const {
  for (const NamedTensor& each : tensors) {
    OPENACLNN_RETURN_IF_ERROR(Present(each.name, each.tensor));
  }
  return ACLNN_SUCCESS;
}

inline aclnnStatus ArgumentChecker::Layout(std::initializer_list<NamedTensor> tensors) const {
  for (const NamedTensor& each : tensors) OPENACLNN_RETURN_IF_ERROR(Layout(each.name, each.tensor));
  return ACLNN_SUCCESS;
}

inline aclnnStatus ArgumentChecker::OutputPointers(uint64_t* workspace_size,
                                                   aclOpExecutor** executor) const {
  if (workspace_size == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize is nullptr.", api);
  }
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is nullptr.", api);
  return ACLNN_SUCCESS;
}

inline aclnnStatus ArgumentChecker::SameType(const char* name, const aclTensor* tensor,
                                             const char* other_name, const aclTensor* other) const {
  if (tensor->dtype == other->dtype) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s must equal %s dtype %s.", api, name,
              DataTypeName(tensor->dtype), other_name, DataTypeName(other->dtype));
}

inline aclnnStatus ArgumentChecker::Reduction(int64_t reduction) const {
  if (reduction >= 0 && reduction <= 2) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: reduction is %lld; Reduction only support [0, 1, 2] (0 none, 1 mean, 2 sum).",
              api, static_cast<long long>(reduction));
}

inline aclnnStatus ArgumentChecker::SingleElement(const char* name, const aclTensor* tensor) const {
  if (ElementCount(tensor->view_shape) == 1) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: with reduction mean or sum, %s must hold exactly one element (shape [] or "
              "[1]), but its shape is %s.",
              api, name, ShapeString(tensor->view_shape).c_str());
}

inline aclnnStatus ArgumentChecker::SameFormat(const char* name, const aclTensor* tensor,
                                               const char* other_name,
                                               const aclTensor* other) const {
  if (tensor->format == other->format) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format %d must equal %s format %d.", api, name,
              static_cast<int>(tensor->format), other_name, static_cast<int>(other->format));
}

}  // namespace openaclnn
