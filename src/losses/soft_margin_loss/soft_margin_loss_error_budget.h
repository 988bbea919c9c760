// The error budget of the soft margin loss (soft_margin_loss_formulas.inc): the bounds its fp64
// estimates carry, each with its derivation, and why the fp64 transcendentals, whose bounds
// (kernels/bce_error_budget.h) were derived for fp32 arguments, keep them for the argument here,
// z = t x, a product of two fp32 values (up to 48 significant bits): they hold for every double.
// The rounding tests are exactly as sound as these bounds; tests/unit/losses/soft_margin_loss/
// measures each against binary128.
#pragma once

namespace openaclnn::math {

// ---- The transcendentals at a = |z| (transcendentals.inc), for every double a in
// [0, kExpArgMax64], z = t x's up to 48 significant bits included.
// ExpNeg64's reduction takes n/16 = RN(a log2e) on the grid of sixteenths (the product exact in
// the fused addition of kSixteenthsMagic64), k = -n/16 (|n| <= 16160), and s = -a - k ln2hi in one
// fused rounding. That rounding is exact: ln2hi's last bit is 2^-53, so k ln2hi is a multiple of
// 2^-57; n != 0 needs a log2e >= 1/32, so a > 2^-6, where every double is a multiple of 2^-58; and
// |s| <= ln2/32 + 700 * 2^-53 < 2^-5.5, so s is an integer below 2^52.5 times 2^-58: a double.
// (For n = 0, s = -a.) The derivation in bce_error_budget.h, written for fp32 arguments, used no
// more of a than that: every later step depends on s alone (|s| as before), on the table and on
// 2^floor(k) (a <= kExpArgMax64 keeps it normal), so exp(-a) is within 2^-45.3, log1p(exp(-a))
// (Log1pExpNeg64) within 2^-45.1 and Reciprocal1pSplit within 2^-50 of 1/(1 + e) for its e.
// The double-double ExpNeg (double_double.h) needs nothing of a's bits: r = m ln2 - a is an
// accurate double-double sum of m ln2 (m <= 1010, ln 2 in two parts, m ln2lo rounded) and -a, so
// exp(-a) is within about 2^-96.5 of itself (the test measures 2^-96.6 at a near 568) while its
// low part is normal, a <= 600; beyond, that part lies in fp64's subnormal range (2^-1074
// absolute), far below anything a result's rounding sees (the floor's argument below).
// As doubles: 1.625 * 2^-46 = 2^-45.2996, 1.875 * 2^-46 = 2^-45.093.
inline constexpr double kExpNegError64 = 0x1.ap-46;
inline constexpr double kLog1pExpNegError64 = 0x1.ep-46;
inline constexpr double kReciprocal1pError64 = 0x1p-50;

// ---- The floor of the transcendental factor. Below kSoftMarginFloor (2^-600), the loss's log
// term log1p(exp(-a)) and the gradient's sigmoid are taken as the floor itself. Where that factor
// is the whole value (z > 415.9: the loss is the log term times the scale, the gradient
// -(t g) scale times the sigmoid), the result lies below 2^256 * 2^-600, far below the least
// half-ulp of every output type (2^-150), so it rounds to the zero of its sign; its exact value
// has the estimate's sign and at most (1 + 2^-44) times its magnitude, so the bound |v| (the
// interval [0, 2v]) holds it. Max(kError |v|, |coef| floor) is that bound there, and at least
// kError |v| everywhere. Beside the loss's m = -z > 415 the floor moves the sum by less than
// 2^-600 (below). The floor keeps every estimate normal: its coefficient (the scale for the
// loss; -(t g) * scale for the gradient, t g >= 2^-298 where not 0) is at least 2^-361, times a
// factor of at least 2^-600. Beyond kExpArgMax64 (e^-700 < 2^-1009), where ExpNeg64 stops, the
// factor is floored anyway.
inline constexpr double kSoftMarginFloor = 0x1p-600;

// ---- The estimates, relative to their value (no term cancels: softplus is a sum of two
// non-negative terms, the gradient a product).
// Loss: v = (m + P) * scale, m = max(-z, 0) exact, P = Log1pExpNeg64(a) within kLog1pExpNegError64;
// m + P rounded once (2^-53 of the non-negative sum), scale = fl(1/d) within 2^-52 of 1/d, the
// product rounded (2^-53): within 2^-45.09 + 2^-53 + 2^-52 + 2^-53 + (products) < 2^-45.06 of
// the exact value, while v is normal (P >= 2^-600, scale >= 2^-63: v >= 2^-663). Where the
// floor replaces P beside m > 0 (z < -415), it moves the sum by less than 2^-600, below 2^-608
// of it: inside the 2^-90 the sum below allows for products of errors.
// Gradient: v = (-(t g) * scale) * s, t g exact (48 bits), s = sigma(-z): for z > 0 e * r, the
// product within kExpNegError64 (d ln(e/(1+e)) = de/e / (1 + e)) + kReciprocal1pError64 + 2^-53;
// for z <= 0 r itself, within kExpNegError64 / 2 (e/(1+e) <= 1/2) + kReciprocal1pError64; the
// scale, its product and the last product 2^-52 + 2 * 2^-53: below 2^-45.21 of the exact value,
// v normal (s >= 2^-600).
// A bound of kSoftMarginError64 = 2^-43 of |v| is at least 2^-43 (1 - 2^-45) of the exact value:
// a margin of 4.2 over 2^-45.06, which also covers the bound's own rounding (one product by a
// power of two: exact while normal) and that of the interval's ends (2^-53 of v each). It is
// also the term error of a mean or sum: every bound is at least this fraction of its value.
inline constexpr double kSoftMarginLossEstimateError64 =
    kLog1pExpNegError64 + 0x1p-53 + 0x1p-52 + 0x1p-53 + 0x1p-90;
inline constexpr double kSoftMarginGradEstimateError64 =
    kExpNegError64 + kReciprocal1pError64 + 0x1p-53 + 0x1p-52 + 2 * 0x1p-53 + 0x1p-90;
inline constexpr double kSoftMarginError64 = 0x1p-43;
static_assert(kSoftMarginLossEstimateError64 < 0x1.ecp-46 &&    // 2^-45.06
                  kSoftMarginGradEstimateError64 < 0x1.bcp-46,  // 2^-45.21
              "the parts add up as derived");
static_assert(kSoftMarginError64 * (1 - 0x1p-45) - 2 * 0x1p-53 >
                  3 * (kSoftMarginLossEstimateError64 > kSoftMarginGradEstimateError64
                           ? kSoftMarginLossEstimateError64
                           : kSoftMarginGradEstimateError64),
              "a margin of 3 over the worst estimate, the interval's roundings paid");
static_assert(kSoftMarginFloor * 0x1p256 < 0x1p-151 && kSoftMarginFloor * 0x1p-361 > 0x1p-1022,
              "a floored result rounds to zero in every type, and its estimate stays normal");

}  // namespace openaclnn::math
