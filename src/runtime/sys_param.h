// aclSysParamOpt values (ACL_OPT_DETERMINISTIC and friends), for the layers above.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace openaclnn {

// The process-level value of `opt` (0 when never set), as aclrtGetSysParamOpt reports it.
int64_t SysParam(const aclSysParamOpt& opt);

}  // namespace openaclnn
