// The error budget of the BCE-with-logits formulas (bce_with_logits_formulas.inc): every relative
// error bound their estimates carry, with its derivation from the element math's fitted errors
// (math_tables.h) and its roundings. The rounding tests (Settled, SettledOnGrid, the CPU's bit
// tests and their reaches, below) are exactly as sound as these bounds; the family's rounding
// tests (tests/unit/losses/binary_cross_entropy_with_logits/) measure each against binary128.
// Every derivation of a bound or a reach is written here and nowhere else.
#pragma once

#include <cstdint>

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

// Bounds on the relative errors of the fp32 exp(-a) and log1p(exp(-a)): rounding_bounds_test.cc
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

// ---- The reaches: the same bounds in ulps of the value, as the CPU's bit tests take them
// (backends/cpu/simd/rounding_bits-inl.h: a value farther than its reach from every rounding
// boundary of its output type rounds as the exact result does). rounding_bounds_test.cc
// (TheLossBitTestSettlesOnlyWhatTheBoundDecides) checks the loss reaches at every distance
// around them.

// The loss reaches in fp64 ulps of the value (its bound a fraction f of it, below f * 2^53 ulps):
// kEstimateError64 (2^-43) and the 16-bit losses' kLossError32 (2^-21 + 2^-43).
inline constexpr uint64_t kLossReach = uint64_t{1} << 10;
inline constexpr uint64_t kLoss32Reach = (uint64_t{1} << 32) + (uint64_t{1} << 10);
static_assert(kEstimateError64 == 0x1p-43 && kLossError32 == 0x1p-21 + 0x1p-43,
              "the reaches are 2^53 times the loss's relative bounds");

// The 16-bit losses in fp32 lanes, in fp32 ulps of the value: without weights (Loss16InFp32) the
// fp32 log term's kLog1pExpError32 (2^-21) and two roundings of 2^-24, below 2^-20.6 of v, 10
// ulps; 12 with the margin. With weights (WeightedLoss16InFp32) four roundings instead of two, and
// 2^-41 for subnormal intermediates: below 1.5 * 2^-21 + 2^-40 of v, 12 ulps; 14 with the margin
// (each: and half an ulp for fp16's subnormal shift).
inline constexpr uint64_t kLoss32Reach32 = 12, kWeightedLoss32Reach32 = 14;
static_assert(kWeightedLoss32Error * 0x1p24 + 0.5 < kWeightedLoss32Reach32 - 1);

// The 16-bit self gradient in fp32 lanes without weights (GradSelf16InFp32) is (c - sign*m) * g,
// m = e/(1 + e) = sigmoid(-|x|) within kSigmoidComplementError32 of itself, c = 1 - t or
// -t: the result is within that error of m (m/|d| of it, d the difference) plus two roundings
// (the fused difference and the product), 2 fp32 ulps. Its reach in fp32 ulps is then m/|d| * 2^24
// * 1.5 * 2^-22 = 6 m/|d|, taken as 7 m/|d| (the approximate reciprocal of |d|, within 2^-8 on
// every target, and margin), plus 6 (the two roundings; 1 - t, exact for every fp16 t and every
// bf16 t in [2^-17, 2^24], else within 2^-24 of a |d| >= 1/2; fp16's subnormal shift; the reach's
// rounding to an integer), plus 2 where the scale is not a power of two (its rounding to fp32,
// and that of g*scale, which is a normal fp32 wherever the test settles).
inline constexpr float kGradSelf32ReachPerRatio = 7.0f, kGradSelf32ReachFloor = 6.0f,
                       kGradSelf32ScaleReach = 2.0f;
static_assert(kSigmoidComplementError32 * 0x1p24 * 1.01 < kGradSelf32ReachPerRatio,
              "the reach per m/|d| covers the fp32 sigmoid's error");
// With weights (GradSelf16InFp32) it is (c - sign*l*m) * g*w*scale, l = (1 - t) + p*t, c = 1 - t
// or -p*t, each of them within three roundings for fp32 t and p: l*e*r is within the sigmoid's
// error and four roundings of l*m, c within one of itself (|c| <= l*m + |d|), so d is within
// (6 + 5) * 2^-24 of l*m plus two roundings of itself: a reach of 11 l*m/|d|, taken as 12 (the
// approximate reciprocal; |d| within 2^-4 of the exact one wherever the reach is below the cap,
// rounding_bits-inl.h's kReachCap32),
// plus the same floor (g*w rounded in place of g).
inline constexpr float kWeightedGradSelf32ReachPerRatio = 12.0f;
static_assert((kSigmoidComplementError32 + 5 * 0x1p-24) * 0x1p24 * (1 + 0x1p-8) / (1 - 0x1p-4) <
                  kWeightedGradSelf32ReachPerRatio,
              "the reach per l*m/|d| covers the fp32 sigmoid's error and the weights' roundings");
// The 16-bit target gradient with weights in fp32 lanes (GradTarget16InFp32) is
// g*w*scale * ((p - 1)*L + K*|x|), K = p for x < 0 and -1 otherwise, L the fp32 log term
// within kLog1pExpError32 (2^-21): the inner sum is within 2^-21 + 2^-24 (p - 1 rounded) of its
// terms |p - 1|*L + |K*x| (K*|x| within 2^-24 of itself) plus its own rounding. Its reach in
// fp32 ulps is then (8 + 1) * terms/|inner|, taken as 10 (the approximate reciprocal of |inner|,
// the fp32 terms, and |inner| within 2^-4 of the exact one wherever the reach is below the cap),
// plus kGradSelf32ReachFloor (the inner sum's rounding, g*w's, the product's; fp16's subnormal
// shift; the reach's rounding) and kGradSelf32ScaleReach where the scale is not a power of two.
inline constexpr float kGradTarget32ReachPerRatio = 10.0f;
static_assert(9.0 * (1 + 0x1p-8) * (1 + 0x1p-22) / (1 - 0x1p-4) < kGradTarget32ReachPerRatio,
              "the reach per terms/|inner| covers the fp32 log term's error");

}  // namespace openaclnn::math
