#include "ops/backend_checks.h"

#include "base/status.h"
#include "runtime/device.h"

namespace openaclnn {

aclnnStatus CheckBackend(const char* api, int family, int kind) {
  const LossKernels* kernels = CurrentLossKernels();
  if (kernels == nullptr) {
    return Fail(ACLNN_ERR_RUNTIME_ERROR, "%s: no device to run on. Reason: %s.", api,
                ActiveBackend().unavailable_reason.c_str());
  }
  return CheckImplements(api, *kernels, ActiveBackend().name.c_str(), family, kind);
}

aclnnStatus CheckImplements(const char* api, const LossKernels& kernels, const char* backend,
                            int family, int kind) {
  // openaclnnOpFamily's and openaclnnOpKind's values, which are LossFamily's and KernelOp's
  // (ops/op_table.cc checks).
  constexpr const char* kKinds[] = {"the loss", "the gradient with respect to self",
                                    "the gradient with respect to target",
                                    "the loss and the gradient with respect to self in one pass"};
  const uint64_t bit = KernelOpBit(static_cast<LossFamily>(family), static_cast<KernelOp>(kind));
  if ((kernels.ops & bit) != 0) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
              "%s: the %s backend does not implement this op (%s); run it on another backend "
              "(OPENACLNN_DEVICE).",
              api, backend, kKinds[kind]);
}

}  // namespace openaclnn
