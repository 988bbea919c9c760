#include "kernels/bce.h"
#include "runtime/device.h"

namespace openaclnn {

const BceKernels* CurrentBceKernels() {
  const Backend& backend = ActiveBackend();
  if (!backend.unavailable_reason.empty()) return nullptr;
  // A backend without kernels of its own keeps tensors in host memory: the host kernels run them.
  return backend.kernels != nullptr ? static_cast<const BceKernels*>(backend.kernels)
                                    : &kCpuBceKernels;
}

}  // namespace openaclnn
