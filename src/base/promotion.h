// CANN's dtype algebra (opdev's PromoteType and CanCast): the type two tensors compute in, and
// whether a result may be written to a tensor of another type.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace openaclnn {

bool IsFloatingType(int64_t dtype);  // fp16, bf16, fp32, fp64
bool IsIntegralType(int64_t dtype);  // the signed and unsigned integers, not bool
bool IsComplexType(int64_t dtype);

// The promoted type of a and b (symmetric), or ACL_DT_UNDEFINED where CANN has none (unsigned
// 16/32/64-bit integers with any other type, a type outside the table).
int64_t PromoteType(int64_t a, int64_t b);

// Whether a result of type `from` may be cast to `to`: never complex to real, floating to
// integral, or anything but bool to bool.
bool CanCast(int64_t from, int64_t to);

}  // namespace openaclnn
