// What the tests of the class-axis ops share: a dtype's FloatType, and the comparison of a result
// with the exact value rounded once (NaN equal to NaN), saying where it differs and by what.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "acl/acl.h"
#include "base/dtype.h"

namespace openaclnn::testing {

inline FloatType FloatTypeOf(aclDataType dtype) {
  return dtype == ACL_FLOAT     ? FloatType::kFloat32
         : dtype == ACL_FLOAT16 ? FloatType::kFloat16
                                : FloatType::kBFloat16;
}

inline ::testing::AssertionResult SameAsExact(double got, double expected,
                                              const std::string& where) {
  if ((std::isnan(got) && std::isnan(expected)) || got == expected) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << where << ": got " << got << ", exact rounded " << expected;
}

}  // namespace openaclnn::testing
