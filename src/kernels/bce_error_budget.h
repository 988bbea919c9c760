// The error budget of the BCE-with-logits formulas (bce_formulas.inc): every relative error bound
// their estimates carry, with its derivation from the element math's fitted errors (math_tables.h)
// and its roundings. The rounding tests (Settled, SettledOnGrid, the CPU's bit tests) are exactly
// as sound as these bounds; tests/unit/kernels/rounding_test.cc measures each against binary128.
#pragma once

namespace openaclnn::math {

// Relative error bound of the fp64 estimates (of their terms before any cancellation), which
// decides whether their rounding is certain. The parts: exp 2^-45.6 (fit) plus 2^-53.4 (table)
// and four roundings, so exp(-|x|) within 2^-45.3; log1p(e) adds its fit, 2^-48.8, and carries
// exp's error at most once (d log1p(e) / log1p(e) <= de / e), the centers' rounding (at most
// 2^-49.7 of log1p(e) >= log(1 + 1/30) where j > 0) and three roundings: within 2^-45.1; the
// loss and the gradients add at most six roundings of 2^-53: every estimate is within 2^-44.9 of
// its terms. 1/(1+e) (Reciprocal1pSplit) is within 2^-50.
// 2^-43 leaves a margin of 3.7, which also covers the bounds' own fp64 arithmetic (a few
// roundings, within 2^-50 of 2^-43 times the terms); rounding_test.cc measures the estimates
// against binary128.
inline constexpr double kEstimateError64 = 0x1p-43;

// Bounds on the relative errors of the fp32 exp(-a) and log1p(exp(-a)): rounding_test.cc
// (Transcendentals32) measures both over every fp16 and bf16 |x| <= kExpArgMax32 against
// binary128 and checks that each stays below half of its bound. The fp64 formulas take the fp32
// log1p with kLog1pExpError32 (the loss, the target gradient), and the self gradient, whose
// 1/(1 + e) is formed in fp64 from the fp32 e (within kExpError32 / 2 of the exact one), with
// kSelfGradientError32; each plus kEstimateError64 for their own arithmetic.
inline constexpr double kExpError32 = 0x1p-22;
inline constexpr double kLog1pExpError32 = 0x1p-21;
inline constexpr double kLossError32 = kLog1pExpError32 + kEstimateError64;
inline constexpr double kSelfGradientError32 = 1.5 * kExpError32 + kEstimateError64;
// WeightedLoss32's error relative to the exact loss: the log term's and four roundings,
// (1 + 2^-24)^4 (1 + 2^-21) - 1 < 2^-21 + 2^-22 + 2^-42, plus 2^-41 for fp32's subnormal range;
// 2^-39 covers those and a bound formed as this fraction of the estimate rather than of the exact
// value (up to 2^-20 smaller).
inline constexpr double kWeightedLoss32Error = kLog1pExpError32 + 0x1p-22 + 0x1p-39;
// The bound of each UnweightedLoss32 or WeightedLoss32 term of a 16-bit mean or sum
// (BceLossTerm32), as a fraction of its value: at least either's error, and a power of two, so that
// a term's bound is exact and a sum of such bounds is this fraction of the sum of their values, bit
// for bit (the CPU forms it from that sum: SumTerms32).
inline constexpr double kLossTerm32Bound = 0x1p-20;
static_assert(kLossTerm32Bound >= kWeightedLoss32Error);
// sigmoid(-|x|) = e/(1 + e) wholly in fp32 (the CPU's 16-bit self gradients without weights): e
// times 1/(1 + e), the sum and the quotient each rounded, is within the fp32 e's error and those
// two roundings; Transcendentals32 measures it over the same values.
inline constexpr double kSigmoidComplementError32 = kExpError32 + 0x1p-23;

}  // namespace openaclnn::math
