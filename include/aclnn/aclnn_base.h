// aclnn library init/finalize plus everything an op header needs (CANN's aclnn/aclnn_base.h).
#ifndef OP_API_OP_API_COMMON_INC_EXTERNAL_ACLNN_BASE_H
#define OP_API_OP_API_COMMON_INC_EXTERNAL_ACLNN_BASE_H

#ifdef __cplusplus
#include <cstdint>
#include <cstdlib>
#else
#include <stdint.h>
#include <stdlib.h>
#endif

#include "aclnn/acl_meta.h"
// CANN does not include this here, but some of its own samples test ACLNN_SUCCESS after including
// only an op header; making the codes reachable lets those samples build unchanged.
#include "aclnn/opdev/op_errno.h"

#ifdef __cplusplus
extern "C" {
#endif

// Lighter alternative to aclInit/aclFinalize that sets up only aclnn state; configPath may be NULL.
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_OP_API_COMMON_INC_EXTERNAL_ACLNN_BASE_H
