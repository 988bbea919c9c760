// aclSetDynamic*TensorAddr: rebinding an element of a tensor-list argument of a repeatable
// executor. No op this library ships takes a tensor list, so every live call names an argument
// the executor does not have.
#include "base/containers.h"
#include "base/status.h"

namespace openaclnn {
namespace {

aclnnStatus SetDynamicAddress(const char* api, const aclOpExecutor* executor, size_t ir_index,
                              size_t relative_index, const aclTensorList* tensors) {
  if (executor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is nullptr.", api);
  if (tensors == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: tensors is nullptr.", api);
  if (!IsLiveTensorList(tensors)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live aclTensorList.", api,
                static_cast<const void*>(tensors));
  }
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: this executor has no tensor-list argument at irIndex %zu (relativeIndex %zu).",
              api, ir_index, relative_index);
}

}  // namespace
}  // namespace openaclnn

using openaclnn::SetDynamicAddress;

extern "C" {

aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                         const size_t relativeIndex, aclTensorList* tensors,
                                         void* /*addr*/) {
  return SetDynamicAddress("aclSetDynamicInputTensorAddr", executor, irIndex, relativeIndex,
                           tensors);
}

aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                          const size_t relativeIndex, aclTensorList* tensors,
                                          void* /*addr*/) {
  return SetDynamicAddress("aclSetDynamicOutputTensorAddr", executor, irIndex, relativeIndex,
                           tensors);
}

aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                    const size_t relativeIndex, aclTensorList* tensors,
                                    void* /*addr*/) {
  return SetDynamicAddress("aclSetDynamicTensorAddr", executor, irIndex, relativeIndex, tensors);
}

aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                         const size_t relativeIndex, aclTensorList* tensors,
                                         void* addr) {
  return aclSetDynamicInputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                          const size_t relativeIndex, aclTensorList* tensors,
                                          void* addr) {
  return aclSetDynamicOutputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                    const size_t relativeIndex, aclTensorList* tensors,
                                    void* addr) {
  return aclSetDynamicTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

}  // extern "C"
