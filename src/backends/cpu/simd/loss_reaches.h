// How far from a rounding boundary the SIMD evaluators' bit tests (simd/rounding_bits-inl.h) need a
// value to be, per kernel: each reach bounds the kernel's error in ulps of the value, derived
// below and checked against the error bounds of kernels/math.h. rounding_test.cc
// (TheLossBitTestSettlesOnlyWhatTheBoundDecides) checks the loss reaches at every distance around
// them.
#pragma once

#include <cstdint>

#include "kernels/math.h"

namespace openaclnn {

// The loss reaches in fp64 ulps of the value (its bound a fraction f of it, below f * 2^53 ulps):
// kEstimateError64 (2^-43) and the 16-bit losses' kLossError32 (2^-21 + 2^-43).
inline constexpr uint64_t kLossReach = uint64_t{1} << 10;
inline constexpr uint64_t kLoss32Reach = (uint64_t{1} << 32) + (uint64_t{1} << 10);
static_assert(math::kEstimateError64 == 0x1p-43 && math::kLossError32 == 0x1p-21 + 0x1p-43,
              "the reaches are 2^53 times the loss's relative bounds");

// The ranges of InNormalRange: fp32's normal numbers (limit: infinity); fp16's (2^-14 to 2^16,
// where it overflows); bf16's up to 2^100 (RoundToGrid in fp32 lanes, which serves |r| < 2^100).
inline constexpr uint32_t kFp32LeastNormalBits = 0x00800000u, kFp32InfinityBits = 0x7f800000u;
inline constexpr uint32_t kFp16LeastNormalBits = 0x38800000u, kFp16LimitBits = 0x47800000u;
inline constexpr uint32_t kBf16LimitBits = 0x71800000u;

// The 16-bit losses in fp32 lanes, in fp32 ulps of the value: without weights (Loss16InFp32) the
// fp32 log term's kLog1pExpError32 (2^-21) and two roundings of 2^-24, below 2^-20.6 of v, 10
// ulps; 12 with the margin. With weights (WeightedLoss16InFp32) four roundings instead of two, and
// 2^-41 for subnormal intermediates: below 1.5 * 2^-21 + 2^-40 of v, 12 ulps; 14 with the margin
// (each: and half an ulp for fp16's subnormal shift).
inline constexpr uint64_t kLoss32Reach32 = 12, kWeightedLoss32Reach32 = 14;
static_assert(math::kWeightedLoss32Error * 0x1p24 + 0.5 < kWeightedLoss32Reach32 - 1);

// The 16-bit self gradient in fp32 lanes without weights (GradSelf16InFp32) is (c - sign*m) * g,
// m = e/(1 + e) = sigmoid(-|x|) within math::kSigmoidComplementError32 of itself, c = 1 - t or
// -t: the result is within that error of m (m/|d| of it, d the difference) plus two roundings
// (the fused difference and the product), 2 fp32 ulps. Its reach in fp32 ulps is then m/|d| * 2^24
// * 1.5 * 2^-22 = 6 m/|d|, taken as 7 m/|d| (the approximate reciprocal of |d|, within 2^-8 on
// every target, and margin), plus 6 (the two roundings; 1 - t, exact for every fp16 t and every
// bf16 t in [2^-17, 2^24], else within 2^-24 of a |d| >= 1/2; fp16's subnormal shift; the reach's
// rounding to an integer), plus 2 where the scale is not a power of two (its rounding to fp32,
// and that of g*scale, which is a normal fp32 wherever the test settles).
inline constexpr float kGradSelf32ReachPerRatio = 7.0f, kGradSelf32ReachFloor = 6.0f,
                       kGradSelf32ScaleReach = 2.0f;
static_assert(math::kSigmoidComplementError32 * 0x1p24 * 1.01 < kGradSelf32ReachPerRatio,
              "the reach per m/|d| covers the fp32 sigmoid's error");
// With weights (GradSelf16InFp32) it is (c - sign*l*m) * g*w*scale, l = (1 - t) + p*t, c = 1 - t
// or -p*t, each of them within three roundings for fp32 t and p: l*e*r is within the sigmoid's
// error and four roundings of l*m, c within one of itself (|c| <= l*m + |d|), so d is within
// (6 + 5) * 2^-24 of l*m plus two roundings of itself: a reach of 11 l*m/|d|, taken as 12 (the
// approximate reciprocal; |d| within 2^-4 of the exact one wherever the reach is below the cap),
// plus the same floor (g*w rounded in place of g).
inline constexpr float kWeightedGradSelf32ReachPerRatio = 12.0f;
static_assert((math::kSigmoidComplementError32 + 5 * 0x1p-24) * 0x1p24 * (1 + 0x1p-8) /
                      (1 - 0x1p-4) <
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

// The cap of a per-lane reach (ReachBits): a reach of half a 16-bit grid spacing or more is never
// far, so capping loses nothing.
inline constexpr uint32_t kReachCap32 = uint32_t{1} << 20;

}  // namespace openaclnn
