// The constants of the element math (transcendentals.inc): the magic numbers of its rounding and
// exponent arithmetic, and the fp64 and fp32 tables and polynomials of exp and log1p, with the
// fitted error of each.
#pragma once

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

// fp64 constants of the fp64 transcendentals (ExpNeg64, Log1pSplit, LogOf, Reciprocal1pSplit; also
// the double-double ExpNeg, double_double.h). Tables and polynomials come from
// scripts/fit_element_math.py (mpmath), which prints them with their fitted error. Every table
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
// as e^-700, which changes no result where every factor it meets is below 2^256 (a product of two
// fp32 values), and where such a rest would underflow fp64 the double-double path keeps its sign
// (double_double.h: MulKeepingSign).
inline constexpr double kExpArgMax64 = 700.0;

// fp32 constants of the transcendentals of 16-bit results (ExpNeg32, Log1pSplit32), from
// scripts/fit_element_math.py: the fp64 formulas' reductions with fp32 tables, exp of degree 3
// (fit 2^-27.7), log1p of degree 5 (fit 2^-29.9), ln 2 in two parts whose first has 9 bits (m
// times it is exact for every m of a <= kExpArgMax32).
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

}  // namespace openaclnn::math
