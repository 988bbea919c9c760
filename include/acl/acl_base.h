// Aggregate of the ACL base headers (types, status codes), mirroring CANN's acl/acl_base.h.
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

// CANN's order: a real acl_base_mdl.h replacing the placeholder may rely on acl_base_rt.h first.
// clang-format off
#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"
// clang-format on

#endif  // INC_EXTERNAL_ACL_ACL_BASE_H_
