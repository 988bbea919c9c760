// The error budget of the smooth L1 family (smooth L1 and Huber, smooth_l1_loss_math.h): the
// relative error bound of every fp64 estimate (smooth_l1_loss_formulas.inc) with its derivation,
// the reach a bit test may settle with, and the parameter ranges where the estimates and the exact
// numerators stay clear of underflow and inside TwoProd's domain. The rounding tests are exactly
// as sound as these bounds; tests/unit/losses/smooth_l1_loss/ measures each against exact
// rationals (GMP).
//
// Notation: u = 2^-53; d = x - t of fp32 x, t (a multiple of 2^-149, |d| < 2^129); b the parameter
// (smooth L1's beta, an fp32 value, or Huber's delta, any positive double); s = fl64(1/N), within
// 2u of 1/N (p.scale; exact where N is a power of two). Every estimate rounds d once
// (d~ = d (1 + e), |e| <= u; exact where x's and t's exponents are within 28 of each other), then
// forms one branch with fp64 products and one subtraction, and takes its branch by |d~| < T (T the
// threshold, b): since T is a double and rounding is monotonic, |d~| < T implies |d| < T, so the
// quadratic branch is never taken wrongly; the linear one may be, where |d| < T <= |d~|, i.e.
// |d| in [T / (1 + u), T), whose quadratic and linear values differ by (T - |d|)^2 / (2 T) (smooth
// L1) or (T - |d|)^2 / 2 (Huber): below u^2 of the value, folded into the counts below.
#pragma once

#include <cstdint>

namespace openaclnn::math {

// ---- The estimates' bound. Every estimate is fl(n c): a numerator n of one or two fp64 operations
// on the inputs, times a scale c that stands for 1 / divisor. Relative errors, in units of u, of
// the estimate against the exact value (an element's: c carries s, 2u; a mean's or sum's term's:
// s = 1, exact):
// - smooth L1 loss, |d| < beta: fl(fl(d~ d~) Q), Q = fl(s / beta) / 2 (halving exact):
//   d~ twice (2), the square (1), s (2), the quotient (1), the product (1): 7.
// - smooth L1 loss, |d| >= beta: fl(fl(|d~| - beta/2) s): |d| <= 2 (|d| - beta/2) / (1 - u) on this
//   branch, so d~'s error is 2 of the difference, whose rounding adds 1, s 2, the product 1: 6
//   (beta = 0: the difference is |d~| itself, 4).
// - Huber loss, |d| < delta: fl(fl(d~ d~) (s/2)): 2 + 1 + 2 + 1 = 6.
// - Huber loss, |d| >= delta: fl(fl(fl(|d~| - delta/2) delta) s): 2 + 1 + 1 + 2 + 1 = 7.
// - gradients, quadratic branch: fl(fl(g d~) G), G = fl(s / beta) (smooth L1) or s (Huber):
//   1 + 1 + 2 + 1 + 1 = 6 (Huber 5).
// - gradients, linear branch: +-fl(g s) or +-fl(fl(g delta) s): 3 or 4, plus 1 where the branch
//   is taken wrongly (the exact g d / T has |d| / T in [1 / (1 + u), 1)): 5 at most.
// The worst, 7u + 30u^2 < 7.001u, holds wherever no intermediate is subnormal: in the domain
// (beta an fp32 value, delta >= kHuberTinyDelta, N < 2^63) every nonzero one is above 2^-700.
// A bound of f |v| (exact in fp64: f is a power of two) on an estimate v within 7.001u of the exact
// E covers E once the interval's ends v -+ f |v| are rounded (each moves by at most u (1 + f) |v|)
// where f - u (1 + f) >= 7.001u / (1 - 7.001u): f = 16u leaves a margin of 2. It is also the term
// error of a mean or sum (reduction.h: SettleReduction): every term's bound is this fraction of it.
inline constexpr double kSmoothL1Error64 = 0x1p-49;
static_assert(kSmoothL1Error64 - 0x1p-53 * (1 + kSmoothL1Error64) >= 7.001 * 0x1p-53 * 1.001);

// The same bound in fp64 ulps of the value, for a bit test on the value alone (the with-logits
// family's FarFromBoundaries): a value v in [2^e, 2^(e+1)) within 7.001u |v| of the exact one is
// within 7.001 ulps (2^(e-52)) of it, so a v farther than 16 ulps from every rounding boundary of
// its binade rounds as the exact value does.
inline constexpr uint64_t kSmoothL1Reach = 16;
static_assert(static_cast<double>(kSmoothL1Reach) * 0x1p-53 == kSmoothL1Error64,
              "the reach is 2^53 times the estimates' relative bound");

// ---- The parameter's ends.
// beta = 0 (L1) takes the quadratic branch only at d = 0 (both branches give 0 there; the gradient
// g d G is then g times a signed zero, g sign(0) = 0 with d's sign): every nonzero |d| is at least
// 2^-149, above this threshold.
inline constexpr double kSmoothL1ZeroBetaThreshold = 0x1p-150;

// Huber below this delta (the "tiny" range) has every element result a zero in every type: a loss
// is at most delta |d| < 2^-450 * 2^129 = 2^-321, a gradient at most |g| delta < 2^-322, both far
// below fp32's least subnormal. At and above it (the "regular" range, huge deltas and +inf
// included: a delta above 2^129 > |d| leaves only the quadratic branch), every estimate is free of
// underflow (numerators of at least 2^-600, scales of at least 2^-192), and every product whose
// rounding error a numerator's rest takes by a fused multiply-add lies in TwoProd's domain: the
// lowest set bits of delta and of |d~| - delta/2 are at least 2^-502 and 2^-503, their product's
// 2^-1005 >= 2^-1074 (d~ d~, g d~, g delta: above 2^-700). The product with a scale needs no rest:
// a scale that is exactly 1 / divisor is a power of two, and the product with it exact.
inline constexpr double kHuberTinyDelta = 0x1p-450;
// A bound on every term of the tiny range: |term| < 2^-321 (above).
inline constexpr double kHuberTinyTermBound = 0x1p-320;
// The exact numerators of the tiny range are scaled by 2^k (their TermDenominator), k =
// min(-ilogb(delta), kHuberTinyScaleLimit): delta' = 2^k delta in [1, 2) down to 2^-800, below
// that 2^800 delta. The limit keeps RoundedQuotient's comparisons in TwoProd's domain: a midpoint
// (below 2^128) times 2^k times a count's part (below 2^63) stays below 2^991.
inline constexpr int kHuberTinyScaleLimit = 800;
static_assert(128 + kHuberTinyScaleLimit + 63 < 1023);

}  // namespace openaclnn::math
