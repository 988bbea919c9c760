// The row math of kernels/log_sum_exp.h over a contiguous fp32 row, in SIMD (Highway, one copy per
// target, chosen at run time; the scalar definitions where a target has no fused multiply-add).
// The estimates keep the scalar ones' error bounds, so every result they round is the same bits.
#pragma once

#include <cstdint>

#include "kernels/log_sum_exp.h"

namespace openaclnn::cpu {

// The row's log-sum-exp estimate (log_sum_exp::EstimateLogSumExp).
log_sum_exp::LogSumExp EstimateLogSumExp32(const float* row, int64_t classes);

// EstimateLogSumExp32 of `count` rows of C values each, `stride` floats apart, into out[0..count):
// one row per vector lane, for rows too short to fill vectors themselves (C below kShortRow, and
// stride below 2^24).
void EstimateLogSumExpRows32(const float* rows, int64_t count, int64_t classes, int64_t stride,
                             log_sum_exp::LogSumExp* out);
inline constexpr int64_t kShortRow = 32;

// Each log-probability rounded once into `out` (log_sum_exp::WriteLogProbabilities): lanes whose
// bound settles them from the vector estimate, the others one at a time.
void WriteLogProbabilities32(const float* row, int64_t classes, const log_sum_exp::LogSumExp& lse,
                             float* out);

// log_sum_exp::Exponentials of the row into e[0..C).
void Exponentials32(const float* row, int64_t classes, double* e);

// An element's result computed one at a time (a double whose one rounding is the result), for
// what a vector estimate leaves open: round(context, c).
struct OpenElement {
  const void* context;
  double (*round)(const void* context, int64_t c);
};

// out_c = log_sum_exp::LogSoftmaxGradient of an fp32 row of log-probabilities `row`, weights
// `weights` (nullptr: ones), each rounded once into fp32: the vector estimate where its bound
// settles the rounding, else `open` (a vector holding an lp > 0 or NaN takes `open` whole).
// exponentials[0..C) receives e^lp of each lp <= 0 (what `open` reads).
void WriteLogSoftmaxGradient32(const float* row, int64_t classes, const float* weights,
                               int64_t target, const log_sum_exp::LogSoftmaxGradient& factors,
                               double* exponentials, float* out, OpenElement open);

}  // namespace openaclnn::cpu
