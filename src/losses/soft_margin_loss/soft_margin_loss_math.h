// The soft margin loss's element math (aclnnSoftMarginLoss, aclnnSoftMarginLossBackward), written
// once for every backend: the fp64 estimates (soft_margin_loss_formulas.inc) for scalar code, the
// exact terms (a rational part exact, a transcendental rest in double-double) for what the
// estimates leave open and for the exact pass of a mean or sum, and the class of a result whose
// inputs are not all finite. With z = x t (exact in fp64):
//   loss      l = log(1 + exp(-z)) = max(-z, 0) + log1p(exp(-|z|))  (softplus(-z); any real t)
//   gradient  d l / d x = -t g sigmoid(-z) = -t g / (1 + exp(z))
// each divided by the reduction's divisor d and rounded once.
#pragma once

#include <cmath>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"
#include "losses/soft_margin_loss/soft_margin_loss_error_budget.h"

namespace openaclnn::math {

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/soft_margin_loss/soft_margin_loss_formulas.inc"

}  // namespace openaclnn::math

namespace openaclnn::math::exact {

// The loss of finite x, t into `sum`: max(-z, 0) exactly (z is a double) and log1p(exp(-|z|)) in
// double-double, within about 2^-96 of itself for |z| <= 600; beyond, within 2^-1000 absolute
// (the low part subnormal; past kExpArgMax64 the double-double ExpNeg takes e^-700 for e^-|z|),
// which no rounding of a result or total can see: a value within 2^-1000 of a rounding boundary
// of a type lies within 2^-849 of its own size of it, and the loss is never exactly on one (see
// the numerics contract).
OPENACLNN_HOST_DEVICE inline void AddSoftMarginLoss(float x, float t, ExactSum& sum) {
  const double z = static_cast<double>(x) * t;
  sum.Add(z < 0.0 ? -z : 0.0);
  sum.Add(Log1p(ExpNeg(std::fabs(z))));
}

// a * b in double-double (Mul) where |a.hi * b| >= 2^-969; below, Mul keeps the product alone
// but still adds its cross terms, each of which may round to 2^-1074 of its own sign and cancel
// the product's (an e^-690 times a t g near 2^-125 came out 0), so there the product alone,
// with its sign kept (MulKeepingSign): a value that small decides a rounding by its sign only.
OPENACLNN_HOST_DEVICE inline DD ProductKeepingSign(DD a, double b) {
  const double product = MulKeepingSign(a.hi, b);
  return std::fabs(product) < 0x1p-969 ? DD{product, 0.0} : Mul(a, b);
}

// The gradient of finite x, t, g into `sum`, over s = sigmoid(-|z|) = e/(1 + e), e = exp(-|z|) in
// double-double: -(t g) s for z > 0; for z <= 0, -(t g) (1 - s) as the exact product -(t g) plus
// (t g) s, so that a t g / d on a rounding boundary is decided by the rest's sign (at z = 0,
// s = 1/2 exactly and the whole value is rational: its ties round to even). A value or rest
// below 2^-969 keeps only its sign (ProductKeepingSign); where z < -700 the rest is e^-700 (t g)
// for e^-|z| (t g), which changes no rounding: -(t g) / d is a multiple of 2^-298 / d, so it
// lies on a boundary or at least 2^-361 from one, and the rest is below 2^256 * 2^-1009.
OPENACLNN_HOST_DEVICE inline void AddSoftMarginGradSelf(float x, float t, float g, ExactSum& sum) {
  const double z = static_cast<double>(x) * t, tg = static_cast<double>(t) * g;
  const DD e = ExpNeg(std::fabs(z));
  const DD sigmoid = Div(e, Add(DD{1.0, 0.0}, e));
  if (z > 0.0) {
    sum.Add(ProductKeepingSign(sigmoid, -tg));
    return;
  }
  sum.Add(-tg);
  sum.Add(ProductKeepingSign(sigmoid, tg));
}

}  // namespace openaclnn::math::exact

namespace openaclnn {

// Whether the inputs `kind` reads are finite (the estimates' and the exact terms' domain): x and
// t for the loss, and g for the gradient.
OPENACLNN_HOST_DEVICE inline bool SoftMarginInputsFinite(LossKind kind, const ElementInputs& in) {
  return std::isfinite(in.x) && std::isfinite(in.t) &&
         (kind == LossKind::kLoss || std::isfinite(in.g));
}

// The fp64 estimate of `kind` (kLoss, else the gradient) times `scale`, and its bound (NaN where
// an input is not finite).
OPENACLNN_HOST_DEVICE inline ElementEstimate SoftMarginEstimate(LossKind kind, double scale,
                                                                const ElementInputs& in) {
  using O64 = math::ScalarOps64;
  return kind == LossKind::kLoss ? math::SoftMarginLoss64<O64>(in.x, in.t, scale)
                                 : math::SoftMarginGradSelf64<O64>(in.x, in.t, in.g, scale);
}

// Where an input is not finite (so z = x t is +-inf or NaN, or g is not finite): the class of the
// term (not divided), from the stable forms in IEEE arithmetic, as CANN's stable forward has it:
// the loss max(-z, 0) + log1p(exp(-|z|)) is NaN for a NaN z (0 * inf included), +0 for z = +inf,
// +inf for z = -inf; the gradient (-(t g)) sigmoid(-z) with sigmoid(-z) 0 at z = +inf, 1 at
// z = -inf and positive elsewhere: NaN for a NaN z or where an infinity meets a zero, +-inf where
// t g is infinite, and for finite t, g the zero of -(t g)'s sign (z = +inf) or -(t g) itself
// (z = -inf, finite). NaN as kCanonicalNaN.
OPENACLNN_HOST_DEVICE inline double SoftMarginReference(LossKind kind, const ElementInputs& in) {
  const double z = static_cast<double>(in.x) * in.t;
  if (z != z) return kCanonicalNaN;
  if (kind == LossKind::kLoss) return z < 0.0 ? HUGE_VAL : 0.0;
  const double coef = -(static_cast<double>(in.t) * in.g);
  return CanonicalNaN(z == HUGE_VAL ? coef * 0.0 : coef);
}

// The exact term of `kind` (not divided) into `sum`: for finite inputs the exact terms above,
// else the reference value, which must be finite (a non-finite term makes a total that never
// takes the exact pass, and an element that never comes here).
OPENACLNN_HOST_DEVICE inline void AddSoftMarginExactTerm(LossKind kind, const ElementInputs& in,
                                                         math::exact::ExactSum& sum) {
  if (!SoftMarginInputsFinite(kind, in)) {
    sum.Add(SoftMarginReference(kind, in));
  } else if (kind == LossKind::kLoss) {
    math::exact::AddSoftMarginLoss(in.x, in.t, sum);
  } else {
    math::exact::AddSoftMarginGradSelf(in.x, in.t, in.g, sum);
  }
}

// The element the estimate leaves open, as a double whose one rounding to `type` is the result:
// the exact term divided by p.divisor exactly and rounded by exact comparisons (RoundedQuotient).
// A reference value that is NaN, infinite or zero is its own quotient (its sign kept).
OPENACLNN_HOST_DEVICE inline double SoftMarginRoundedExactly(LossKind kind,
                                                             const ElementParameters& p,
                                                             const ElementInputs& in,
                                                             FloatType type) {
  if (!SoftMarginInputsFinite(kind, in)) {
    const double reference = SoftMarginReference(kind, in);
    if (!std::isfinite(reference) || reference == 0.0) return reference;
  }
  math::exact::ExactSum sum;
  AddSoftMarginExactTerm(kind, in, sum);
  return math::exact::RoundedQuotient(sum, math::exact::DivisorOf(1.0, p.divisor), type);
}

}  // namespace openaclnn
