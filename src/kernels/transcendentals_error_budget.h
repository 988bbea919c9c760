// The error bounds of the element math (transcendentals.inc) that a family's error budget takes
// as given: the fp64 logarithm of an exact argument (Log64, LogOneMinus64), with its derivation
// from the fitted errors (math_tables.h) and its roundings. Generic: it names no loss; a budget
// that rests on it includes this header.
#pragma once

namespace openaclnn::math {

// Log64 and LogOneMinus64 form R = ln a = k*ln2 + c_j + log1p(y*) from an
// exact split a = 2^k (1 + e) (LogArgumentOf), c_j = -log(r_j) for the table's r_j, y* = (1 + e)
// r_j - 1 within one rounding (y, |y| <= 1/30), as C = fl(k*ln2hi + T_j), T_j the table's c_j
// (within 2^-54.6 of it), P = fl(k*ln2lo + y), H = fl(C + P), and fl(H + y^2*Q(y)), Q's fit within
// 2^-48.8 of log1p(y) (|log1p(y)| <= 0.034); ln2hi + ln2lo is within 2^-109 of ln 2. Cases:
// - k = 0, e < 0: C = 0 and H = y = e exactly: the fit and the last rounding, 2^-48.7 of R.
// - k = 0, e >= 0: every part is non-negative, R >= log(31/30) where j > 0 (j = 0: the case
//   above), so c_j <= 2.01 R and |y| <= 1.02 R: the fit (2^-48.8 * 1.01), the table (2^-53.6),
//   y's rounding (2^-52.9), H's and the last rounding (2^-53 * 1.02, 2^-53): below 2^-48.3 of R.
// - k = -1: R = ln(m/2) in [-ln2, -ln(32/31)]. For j >= 7 (T_j >= ln2hi/2) C is exact (Sterbenz):
//   the cancellation of the two constants costs nothing. Worst at |R| = ln(32/31) = 0.0317: the
//   table's error (2^-55.1 absolute) is 2^-50.1 of R, the fit's (2^-48.8 * 0.0328) 2^-48.75, y's,
//   P's, H's and the last rounding 2^-52.8 each: below 2^-48.05 of R. For j < 7, |R| >= 0.333 and
//   C's rounding adds 2^-53 * 2.08: below 2^-50.
// - k <= -2 or k >= 1: |R| >= 0.66, C within 1.05 |R|: below 2^-50.5 of R.
// 2^-47 leaves a margin of 2 over the worst case, 2^-48.05; the test measures the worst over
// every decoded fp16 and bf16 x and millions of fp32 x against binary128
// (binary_cross_entropy_loss_test.cc: BinaryCrossEntropyLog).
inline constexpr double kLogError64 = 0x1p-47;

}  // namespace openaclnn::math
