// The row math of kernels/log_sum_exp.h over a contiguous fp32 row, in SIMD (Highway, one copy per
// target, chosen at run time; the scalar definitions where a target has no fused multiply-add).
// The estimates keep the scalar ones' error bounds, so every result they round is the same bits.
#pragma once

#include <cstdint>

#include "kernels/log_sum_exp.h"

namespace openaclnn::cpu {

// The row's log-sum-exp estimate (log_sum_exp::EstimateLogSumExp).
log_sum_exp::LogSumExp EstimateLogSumExp32(const float* row, int64_t classes);

// Each log-probability rounded once into `out` (log_sum_exp::WriteLogProbabilities): lanes whose
// bound settles them from the vector estimate, the others one at a time.
void WriteLogProbabilities32(const float* row, int64_t classes, const log_sum_exp::LogSumExp& lse,
                             float* out);

// log_sum_exp::Exponentials of the row into e[0..C).
void Exponentials32(const float* row, int64_t classes, double* e);

}  // namespace openaclnn::cpu
