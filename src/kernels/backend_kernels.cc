#include "kernels/loss_problem.h"
#include "runtime/device.h"

namespace openaclnn {

const LossKernels* CurrentLossKernels() {
  const Backend& backend = ActiveBackend();
  return backend.unavailable_reason.empty() ? backend.kernels : nullptr;
}

}  // namespace openaclnn
