// The loss and gradient math of the BCE-with-logits family, written once for every backend.
//
// Each function is a template over an "arithmetic" policy O that supplies the vector type
// O::V (float for scalar code, a SIMD vector for Highway kernels) and the few operations C++
// operators do not cover. Every step is an IEEE-exact operation (+, -, *, /, fused multiply-add,
// min/max, select, exponent-field arithmetic), so the scalar, SIMD and CUDA instantiations
// return the same bits for every finite input, whatever the vector width.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/dtype.h"

namespace openaclnn::math {

// 1.5 * 2^23: x + M rounds x to an integer i (for |x| < 2^22) and holds i in its low mantissa
// bits, which the exponent arithmetic (Pow2Rounded) and the table lookups (LookupRounded) read.
inline constexpr float kRoundMagic = 12582912.0f;
// 1.5 * 2^19 (fp32) and 1.5 * 2^48 (fp64): x + M rounds x to a multiple k = n/16 of 1/16 (for
// 0 <= x < 2^18, 2^47) and holds the integer n in its low mantissa bits, so that M - (x + M) is
// -k exactly (exp's reductions: ExpNeg64, ExpNeg32).
inline constexpr float kSixteenthsMagic32 = 786432.0f;
inline constexpr double kSixteenthsMagic64 = 422212465065984.0;

// fp64 constants of the correctly rounded formulas (ExpNeg64, Log1pReduced, Reciprocal1p,
// Loss64, GradSelf64, GradTarget64). Tables and polynomials come from
// scripts/fit-element-math.py (mpmath), which prints them with their fitted error. Every table
// has 16 entries: two AVX-512 registers of fp64, one permute per lookup.
inline constexpr double kLog2E64 = 1.4426950408889634;
inline constexpr double kRoundMagic64 = 6755399441055744.0;  // 1.5 * 2^52
inline constexpr double kLn2Hi64 = 0x1.62e42fefa39efp-1;     // ln 2 rounded to fp64
inline constexpr double kLn2Lo64 = 0x1.abc9e3b39803fp-56;    // ln 2 - kLn2Hi64
// 2^((-r mod 16)/16), r = 0..15 (1, 2^(15/16), 2^(14/16), ...), each rounded to fp64 (2^-53.4
// relative): the factor of 2^(-n/16) beside 2^floor(-n/16), indexed by n mod 16.
OPENACLNN_TABLE double kExp2NegSixteenths64[16] = {
    0x1.0000000000000p+0, 0x1.ea4afa2a490dap+0, 0x1.d5818dcfba487p+0, 0x1.c199bdd85529cp+0,
    0x1.ae89f995ad3adp+0, 0x1.9c49182a3f090p+0, 0x1.8ace5422aa0dbp+0, 0x1.7a11473eb0187p+0,
    0x1.6a09e667f3bcdp+0, 0x1.5ab07dd485429p+0, 0x1.4bfdad5362a27p+0, 0x1.3dea64c123422p+0,
    0x1.306fe0a31b715p+0, 0x1.2387a6e756238p+0, 0x1.172b83c7d517bp+0, 0x1.0b5586cf9890fp+0};
// exp(s) = 1 + s + s^2 * P(s) on |s| <= ln2/32, P of degree 3 (kExpPoly64[i] is the coefficient
// of s^(3-i)): relative error 2^-45.6.
OPENACLNN_TABLE double kExpPoly64[] = {0x1.1111d8fc2d6fep-7, 0x1.5556b330ec55bp-5,
                                       0x1.55555555254ecp-3, 0x1.ffffffff57e8ep-2};
// 1 + e (e in [0, 1]) is split at the nearest c_j = 1 + j/15: kLogReciprocal64[j] = 1/c_j
// rounded to fp64, kLogCenter64[j] = -log(kLogReciprocal64[j]) rounded to fp64 (2^-54.6).
OPENACLNN_TABLE double kLogReciprocal64[16] = {
    0x1.0000000000000p+0, 0x1.e000000000000p-1, 0x1.c3c3c3c3c3c3cp-1, 0x1.aaaaaaaaaaaabp-1,
    0x1.9435e50d79436p-1, 0x1.8000000000000p-1, 0x1.6db6db6db6db7p-1, 0x1.5d1745d1745d1p-1,
    0x1.4de9bd37a6f4ep-1, 0x1.4000000000000p-1, 0x1.3333333333333p-1, 0x1.2762762762762p-1,
    0x1.1c71c71c71c72p-1, 0x1.1249249249249p-1, 0x1.08d3dcb08d3ddp-1, 0x1.0000000000000p-1};
OPENACLNN_TABLE double kLogCenter64[16] = {0x0.0p+0,
                                           0x1.08598b59e3a07p-4,
                                           0x1.005588ad375aep-3,
                                           0x1.7565011e49675p-3,
                                           0x1.e41fccb76b0d7p-3,
                                           0x1.269621134db92p-2,
                                           0x1.588c2d913348fp-2,
                                           0x1.882f1ef83ed45p-2,
                                           0x1.b5b3e24235e88p-2,
                                           0x1.e148a1a2726cep-2,
                                           0x1.058aefa811452p-1,
                                           0x1.199fac68b4ab8p-1,
                                           0x1.2cf25fad8f1c3p-1,
                                           0x1.3f91275240811p-1,
                                           0x1.5188a4a02d7fep-1,
                                           0x1.62e42fefa39efp-1};
// log1p(y) = y + y^2 * Q(y) on y in [-1/32, 1/30] (what the split leaves), Q of degree 6
// (kLog1pPoly64[i] is the coefficient of y^(6-i)): relative error 2^-48.8.
OPENACLNN_TABLE double kLog1pPoly64[] = {
    -0x1.fd6f908a737adp-4, 0x1.24fb2e1fb5548p-3, -0x1.5555d54ac7a67p-3, 0x1.99998bbd09ff8p-3,
    -0x1.fffffff532d6dp-3, 0x1.55555555902eep-2, -0x1.0000000000080p-1};
// exp(-a) is formed for a <= kExpArgMax64 (2^-1010 < e^-700 stays normal); beyond, e^-a is taken
// as e^-700, which changes no result: every factor it meets is below 2^256, and where such a rest
// would underflow fp64 the double-double path keeps its sign (math_exact.h: MulKeepingSign).
inline constexpr double kExpArgMax64 = 700.0;
// Relative error bound of the fp64 estimates (of their terms before any cancellation), which
// decides whether their rounding is certain. The parts: exp 2^-45.6 (fit) plus 2^-53.4 (table)
// and four roundings, so exp(-|x|) within 2^-45.3; log1p(e) adds its fit, 2^-48.8, and carries
// exp's error at most once (d log1p(e) / log1p(e) <= de / e), the centers' rounding (at most
// 2^-49.7 of log1p(e) >= log(1 + 1/30) where j > 0) and three roundings: within 2^-45.1; the
// loss and the gradients add at most six roundings of 2^-53: every estimate is within 2^-44.9 of
// its terms. 1/(1+e) (Reciprocal1p) is within 2^-50.
// 2^-43 leaves a margin of 3.7, which also covers the bounds' own fp64 arithmetic (a few
// roundings, within 2^-50 of 2^-43 times the terms); rounding_test.cc measures the estimates
// against binary128.
inline constexpr double kEstimateError64 = 0x1p-43;

// fp32 constants of the transcendentals of 16-bit results (ExpNeg32, Log1pSplit32), from
// scripts/fit-element-math.py: the fp64 formulas' reductions with fp32
// tables, exp of degree 3 (fit 2^-27.7), log1p of degree 5 (fit 2^-29.9), ln 2 in two parts whose
// first has 9 bits (m times it is exact for every m of a <= kExpArgMax32).
inline constexpr float kLog2E32 = 1.44269504f;
inline constexpr float kLn2Hi32 = 0x1.63p-1f, kLn2Lo32 = -0x1.bd0106p-13f;
OPENACLNN_TABLE float kExp2NegSixteenths32[16] = {
    0x1p+0f,        0x1.ea4afap+0f, 0x1.d5818ep+0f, 0x1.c199bep+0f, 0x1.ae89fap+0f, 0x1.9c4918p+0f,
    0x1.8ace54p+0f, 0x1.7a1148p+0f, 0x1.6a09e6p+0f, 0x1.5ab07ep+0f, 0x1.4bfdaep+0f, 0x1.3dea64p+0f,
    0x1.306fep+0f,  0x1.2387a6p+0f, 0x1.172b84p+0f, 0x1.0b5586p+0f};
OPENACLNN_TABLE float kExpPoly32[] = {0x1.55565cp-3f, 0x1.000148p-1f};
OPENACLNN_TABLE float kLogReciprocal32[16] = {
    0x1p+0f,        0x1.ep-1f,      0x1.c3c3c4p-1f, 0x1.aaaaaap-1f, 0x1.9435e6p-1f, 0x1.8p-1f,
    0x1.6db6dcp-1f, 0x1.5d1746p-1f, 0x1.4de9bep-1f, 0x1.4p-1f,      0x1.333334p-1f, 0x1.276276p-1f,
    0x1.1c71c8p-1f, 0x1.124924p-1f, 0x1.08d3dcp-1f, 0x1p-1f};
OPENACLNN_TABLE float kLogCenter32[16] = {
    0x0p+0f,        0x1.08598cp-4f, 0x1.005588p-3f, 0x1.756504p-3f, 0x1.e41fc8p-3f, 0x1.269622p-2f,
    0x1.588c2cp-2f, 0x1.882f1ep-2f, 0x1.b5b3ep-2f,  0x1.e148a2p-2f, 0x1.058aeep-1f, 0x1.199facp-1f,
    0x1.2cf25ep-1f, 0x1.3f9128p-1f, 0x1.5188a6p-1f, 0x1.62e43p-1f};
OPENACLNN_TABLE float kLog1pPoly32[] = {0x1.987c0ep-3f, -0x1.002d3ap-2f, 0x1.55556cp-2f,
                                        -0x1.fffffep-2f};
// The fp32 transcendentals serve |x| <= kExpArgMax32 (exp(-80) is a normal fp32); beyond, the
// fp64 formulas run.
inline constexpr float kExpArgMax32 = 80.0f;
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

// The formulas live in math_formulas.inc so that each Highway target can compile its own copy of
// them (see the note there); the fp32 reference formulas, scalar only, in math_reference.h.
#include "kernels/math_formulas.inc"

// The policy for one element at a time (host loops, tails of SIMD loops, CUDA threads), in fp32
// (ScalarOps) or fp64 (ScalarOps64, for the exact-to-fp32 formulas).
template <class T>
struct ScalarOpsOf {
  using V = T;
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52;
  static constexpr int64_t kExponentBias = sizeof(T) == 4 ? 127 : 1023;

  OPENACLNN_HOST_DEVICE static V Set(T c) { return c; }
  OPENACLNN_HOST_DEVICE static V Neg(V a) { return -a; }
  OPENACLNN_HOST_DEVICE static V Abs(V a) { return std::fabs(a); }
  OPENACLNN_HOST_DEVICE static V MulAdd(V a, V b, V c) { return std::fma(a, b, c); }
  OPENACLNN_HOST_DEVICE static V IfThenElse(bool mask, V yes, V no) { return mask ? yes : no; }
  OPENACLNN_HOST_DEVICE static V NegMulAdd(V a, V b, V c) { return std::fma(-a, b, c); }
  OPENACLNN_HOST_DEVICE static V NegMulSub(V a, V b, V c) { return std::fma(-a, b, -c); }
  // b where a is NaN (as x86's minimum and maximum).
  OPENACLNN_HOST_DEVICE static V Min(V a, V b) { return a < b ? a : b; }
  OPENACLNN_HOST_DEVICE static V Max(V a, V b) { return a > b ? a : b; }
  // The nearest fp32 of a, held as T.
  OPENACLNN_HOST_DEVICE static V RoundTo32(V a) { return static_cast<T>(static_cast<float>(a)); }
  // 2^(i + k) for rounded = kRoundMagic + i (the integer i in its low mantissa bits) and i + k in
  // the normal exponent range. Integer arithmetic on the bits: no float-to-int conversion.
  OPENACLNN_HOST_DEVICE static V Pow2Rounded(V rounded, int k) {
    const Bits magic_bits =
        BitCast<Bits>(static_cast<T>(sizeof(T) == 4 ? kRoundMagic : kRoundMagic64));
    const Bits offset = static_cast<Bits>(kExponentBias + k) - magic_bits;
    return BitCast<T>((BitCast<Bits>(rounded) + offset) << kMantissaBits);
  }
  // 2^floor(-n/16) for rounded = kSixteenthsMagic64 + n/16, 0 <= n < 16368 (exp's reduction
  // keeps n <= 16160), or in fp32 kSixteenthsMagic32 + n/16, n < 2032 (a <= kExpArgMax32 keeps
  // n <= 1847): 16 * bias - n is positive, so a logical shift divides it.
  OPENACLNN_HOST_DEVICE static V Pow2NegSixteenths(V rounded) {
    const Bits magic_bits =
        BitCast<Bits>(static_cast<T>(sizeof(T) == 4 ? kSixteenthsMagic32 : kSixteenthsMagic64));
    const Bits biased =
        (static_cast<Bits>(16 * kExponentBias) + magic_bits) - BitCast<Bits>(rounded);
    return BitCast<T>((biased >> 4) << kMantissaBits);
  }
  // value * 2^floor(k) for k = kSixteenthsMagic - rounded (-n/16; Pow2NegSixteenths): exact
  // while the product stays normal.
  OPENACLNN_HOST_DEVICE static V ScaleByFloor(V value, V k, V rounded) {
    (void)k;
    return value * Pow2NegSixteenths(rounded);
  }
  // a rounded to nearest, ties to even, on the grid of a binary format of `precision`
  // significant bits whose normal range starts at 2^min_exponent (fp16: 11, -14; bf16: 8, -126),
  // subnormal spacing below it, held as T (fp64 only; |a| below 2^900): (a + M) - M with
  // M = 1.5 * 2^(e + 53 - precision), e the exponent of a floored at min_exponent, so M's ulp
  // is the grid's spacing at a; a's sign is kept (a tiny negative a gives -0, as IEEE's rounding).
  // An integer on its own is the exponent field: no conversion, no division.
  OPENACLNN_HOST_DEVICE static V RoundToGrid(V a, int precision, int min_exponent) {
    constexpr Bits kExponentMask = Bits{0x7ff} << kMantissaBits;
    constexpr Bits kSign = Bits{1} << 63;
    const Bits exponent = BitCast<Bits>(a) & kExponentMask;
    const Bits floor = static_cast<Bits>(min_exponent + kExponentBias) << kMantissaBits;
    const Bits scale = static_cast<Bits>(kMantissaBits + 1 - precision) << kMantissaBits;
    const T magic = BitCast<T>(((exponent > floor ? exponent : floor) + scale) |
                               (Bits{1} << (kMantissaBits - 1)));
    return BitCast<T>(BitCast<Bits>((a + magic) - magic) | (BitCast<Bits>(a) & kSign));
  }
  // table[i mod 16] for rounded = kRoundMagic + i (kRoundMagic's low 4 bits are 0; i may be
  // negative).
  OPENACLNN_HOST_DEVICE static V LookupRounded(const T* table, V rounded) {
    return table[BitCast<Bits>(rounded) & 15];
  }
};

using ScalarOps = ScalarOpsOf<float>;
using ScalarOps64 = ScalarOpsOf<double>;

}  // namespace openaclnn::math
