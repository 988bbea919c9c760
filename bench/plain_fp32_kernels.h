// Plain fp32 kernels of the rational losses' formulas, the yardstick of issue 37's item 5: each
// evaluated in fp32 lanes and rounded at every step, as a kernel that makes no promise about its
// last bit would be, with Highway's run-time dispatch to the best SIMD target of the machine (as
// the library's kernels), compiled in the same build. What correct rounding costs is the
// library's rate over these. beta (smooth L1) and delta (Huber) are 1, the ops' defaults.
#pragma once

#include <cstdint>

namespace openaclnn::bench {

enum class PlainFormula {
  kMse,       // (x - t)^2;  2 g (x - t)
  kL1,        // |x - t|;  g sign(x - t)
  kSmoothL1,  // |d| < beta ? d^2 / (2 beta) : |d| - beta / 2;  |d| < beta ? g d / beta : g sign(d)
  kHuber      // |d| < delta ? d^2 / 2 : delta (|d| - delta / 2);  g d, or g delta sign(d)
};

// out[i] = loss(x[i] - t[i]).
void PlainLoss(PlainFormula formula, const float* x, const float* t, int64_t n, float limit,
               float* out);

// The mean of the losses: summed in fp32 lanes, divided once.
float PlainLossMean(PlainFormula formula, const float* x, const float* t, int64_t n, float limit);

// out[i] = g[i] * loss'(x[i] - t[i]) (reduction none); with g == nullptr, scale * loss'(d) (a
// mean's: scale = g / n).
void PlainGradient(PlainFormula formula, const float* x, const float* t, const float* g,
                   float scale, int64_t n, float limit, float* out);

}  // namespace openaclnn::bench
