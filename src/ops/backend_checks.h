// Phase 1's checks of the active backend, after the arguments' (docs/contract/checks-and-codes.md
// §9).
#pragma once

#include "aclnn/aclnn_base.h"
#include "kernels/loss_problem.h"

namespace openaclnn {

// B1, the backend has a device (else ACLNN_ERR_RUNTIME_ERROR naming why not); B2, its kernel
// table implements ops of `family` and `kind` (openaclnnOpFamily and openaclnnOpKind values;
// else as CheckImplements).
aclnnStatus CheckBackend(const char* api, int family, int kind);
// B2 for `kernels`, the table of the backend called `backend`: ACLNN_ERR_INNER_FIND_KERNEL_ERROR
// ("the <backend> backend does not implement ...") when it lacks ops of `family` and `kind`.
aclnnStatus CheckImplements(const char* api, const LossKernels& kernels, const char* backend,
                            int family, int kind);

}  // namespace openaclnn
