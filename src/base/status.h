// aclnn status codes with their error-manager messages.
#pragma once

#include "aclnn/aclnn_base.h"

namespace openaclnn {

// Records `format` for aclGetRecentErrMsg() under the CANN title that goes with `code`'s class
// (161xxx parameter, 361xxx runtime, 561xxx inner) and returns `code`, so that a check reads
// `return Fail(ACLNN_ERR_PARAM_INVALID, "...", ...);`.
aclnnStatus Fail(aclnnStatus code, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace openaclnn

// Returns the status of `expression` from the calling function unless it is ACLNN_SUCCESS.
#define OPENACLNN_RETURN_IF_ERROR(expression)                     \
  do {                                                            \
    if (const aclnnStatus status_ = (expression)) return status_; \
  } while (false)
