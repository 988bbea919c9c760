// Umbrella header for the ACL runtime API, at CANN's path so user code needs no change.
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

// CANN's order: packages that replace the placeholders may rely on acl_rt.h coming first.
// clang-format off
#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"
// clang-format on

#endif  // INC_EXTERNAL_ACL_ACL_H_
