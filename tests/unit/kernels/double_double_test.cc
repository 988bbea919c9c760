// Double-double products at the bottom of fp64's range (kernels/double_double.h), where the exact
// paths meet tiny weights times exp(-700): a product below 2^-969 keeps its own sign, whatever its
// cross terms (rounded to +-2^-1074 where they underflow) would add.
#include <gtest/gtest.h>

#include "kernels/double_double.h"

namespace openaclnn::math::exact {
namespace {

TEST(DoubleDouble, ATinyProductKeepsItsSign) {
  // sigma ~ 2^-998 with a negative low part, times t g ~ 2^-125 (the soft margin family's case):
  // the product underflows to 2^-1074, its one cross term to -2^-1074.
  const DD sigma{0x1p-998, -0x1p-1052};
  EXPECT_EQ(Mul(sigma, 0x1p-125).hi, 0x1p-1074);
  EXPECT_EQ(Mul(Neg(sigma), 0x1p-125).hi, -0x1p-1074);
  // A product of exactly 2^-1074, (1 - 2^-55)^2 of it in all, whose two cross terms each round to
  // -2^-1074: summed, they turned it into -2^-1074.
  const DD a{0x1p-600, -0x1p-655}, b{0x1p-474, -0x1p-529};
  EXPECT_EQ(Mul(a, b).hi, 0x1p-1074);
  EXPECT_EQ(Mul(a, Neg(b)).hi, -0x1p-1074);
  // Above 2^-969 the cross terms stay: they are the product's low part.
  const DD product = Mul(DD{1.0, 0x1p-60}, DD{1.0, 0x1p-70});
  EXPECT_EQ(product.hi, 1.0);
  EXPECT_EQ(product.lo, 0x1p-60 + 0x1p-70);
}

}  // namespace
}  // namespace openaclnn::math::exact
