#include "kernels/bce.h"
#include "runtime/device.h"

namespace openaclnn {

const BceKernels* CurrentBceKernels() {
  const Backend& backend = ActiveBackend();
  return backend.unavailable_reason.empty() ? backend.kernels : nullptr;
}

}  // namespace openaclnn
