// The loss and the gradients in double-double arithmetic (double_double.h), for the rare elements
// whose fp64 estimate (bce_with_logits_formulas.inc: Loss64, GradSelf64, GradTarget64) lies too
// near a rounding boundary of the output type to be rounded with certainty: near a midpoint between
// two of its values, or where the terms cancel deeply (near a gradient's zero); and for the rare
// mean or sum whose fp64 total does. Scalar code only, used by every backend for those elements, so
// the scalar and SIMD paths agree bit for bit. Finite inputs.
#pragma once

#include <cmath>

#include "kernels/double_double.h"

namespace openaclnn::math::exact {

// Loss64's formula in double-double.
OPENACLNN_HOST_DEVICE inline DD Loss(float x, float t, float w, float p) {
  const double a = std::fabs(static_cast<double>(x));
  const DD neg_part = TwoSum(1.0, -static_cast<double>(t));  // 1 - t, inexact in fp64 for tiny t
  const DD pos_part{static_cast<double>(p) * t, 0.0};        // exact: 48 significant bits
  const DD log_coef = Mul(Add(pos_part, neg_part), static_cast<double>(w));
  const DD linear_coef = Mul(x < 0.0f ? pos_part : neg_part, static_cast<double>(w));
  return Add(Mul(linear_coef, a), Mul(log_coef, Log1p(ExpNeg(a))));
}

// GradSelf64's formula in double-double.
OPENACLNN_HOST_DEVICE inline DD GradSelf(float x, float t, float w, float p, float g,
                                         double scale) {
  const DD e = ExpNeg(std::fabs(static_cast<double>(x)));
  const DD neg_part = TwoSum(1.0, -static_cast<double>(t));
  const DD pos_part{static_cast<double>(p) * t, 0.0};
  const bool negative = x < 0.0f;
  const DD numerator =
      negative ? Add(Mul(e, neg_part), Neg(pos_part)) : Add(neg_part, Neg(Mul(e, pos_part)));
  const DD quotient = Div(numerator, Add(DD{1.0, 0.0}, e));
  return Mul(Mul(quotient, static_cast<double>(g) * w), scale);
}

// GradTarget64's formula in double-double.
OPENACLNN_HOST_DEVICE inline DD GradTarget(float x, float w, float p, float g, double scale) {
  const double a = std::fabs(static_cast<double>(x));
  // p = 1: the log term's coefficient is 0, and g*w*x alone often lands on an fp32 midpoint
  // (short inputs such as fp16's), so this path must stay cheap there.
  const DD log_term = p == 1.0f ? DD{} : Log1p(ExpNeg(a));
  const double linear_coef = x < 0.0f ? static_cast<double>(p) : -1.0;
  // (p - 1) * log_term as p * log_term - log_term: p - 1 is not exact in fp64 for tiny p.
  const DD inner =
      Add(Add(Mul(log_term, static_cast<double>(p)), Neg(log_term)), DD{linear_coef * a, 0.0});
  return Mul(Mul(inner, static_cast<double>(g) * w), scale);
}

}  // namespace openaclnn::math::exact
