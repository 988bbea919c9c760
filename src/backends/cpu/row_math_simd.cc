// EstimateLogSumExp32 and WriteLogProbabilities32 (row_math.h) per Highway target. The vector
// loops take whole vectors of fp64 lanes (each from half a vector of floats); the tail, and
// targets without a fused multiply-add, go through the scalar definitions of
// kernels/log_sum_exp.h with the same bounds.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cmath>
#include <cstdint>

#include "backends/cpu/row_math.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/row_math_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/vector_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
namespace {

namespace lse = log_sum_exp;

// A contiguous fp32 row as kernels/log_sum_exp.h's scalar code reads it.
struct FloatRow {
  const float* data;
  double At(int64_t c) const { return data[c]; }
};

#if HWY_NATIVE_FMA
using O64 = HwyOpsOf<D64>;
using DF = hn::Rebind<float, D64>;  // as many floats as a vector holds doubles
using DU = hn::RebindToUnsigned<DF>;

hn::Vec<D64> Load(const float* from) { return hn::PromoteTo(D64(), hn::LoadU(DF(), from)); }

// The row's maximum and its first index, special where a value is NaN or +inf or none is finite
// (RowMaximum's), in full vectors of floats: the maximum of floats is exact.
lse::LogSumExp Maximum(const float* row, int64_t classes) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto infinity = hn::Set(df, INFINITY);
  auto max = hn::Set(df, -INFINITY);
  auto special = hn::FirstN(df, 0);
  int64_t c = 0;
  for (; c + lanes <= classes; c += lanes) {
    const auto x = hn::LoadU(df, row + c);
    max = hn::Max(max, x);
    special = hn::Or(special, hn::Not(hn::Lt(x, infinity)));
  }
  lse::LogSumExp result;
  float m = hn::GetLane(hn::MaxOfLanes(df, max));
  result.special = !hn::AllFalse(df, special);
  for (; c < classes; ++c) {
    result.special = result.special || !(row[c] < INFINITY);
    m = row[c] > m ? row[c] : m;
  }
  result.special = result.special || m == -INFINITY;  // no finite value: no first maximum
  result.max = m;
  if (result.special) return result;
  const auto top = hn::Set(df, m);
  for (c = 0; c + lanes <= classes; c += lanes) {
    const intptr_t lane = hn::FindFirstTrue(df, hn::Eq(hn::LoadU(df, row + c), top));
    if (lane >= 0) {
      result.top = c + lane;
      return result;
    }
  }
  for (; c < classes; ++c) {
    if (row[c] == m) {
      result.top = c;
      break;
    }
  }
  return result;
}

// Neumaier's compensated addition of `term` into sum + compensation, lane by lane.
template <class V>
void AddCompensated(V term, V& sum, V& compensation) {
  const V next = hn::Add(sum, term);
  const auto larger = hn::Ge(hn::Abs(sum), hn::Abs(term));
  compensation = hn::Add(compensation, hn::IfThenElse(larger, hn::Add(hn::Sub(sum, next), term),
                                                      hn::Add(hn::Sub(term, next), sum)));
  sum = next;
}
#endif

}  // namespace

lse::LogSumExp LogSumExpRow(const float* row, int64_t classes) {
#if HWY_NATIVE_FMA
  const D64 d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t whole = classes / lanes * lanes;
  lse::LogSumExp result = Maximum(row, classes);
  if (result.special) return result;
  const auto max = hn::Set(d, result.max);
  const auto top = hn::Set(d, static_cast<double>(result.top));
  auto sum = hn::Zero(d), compensation = hn::Zero(d), shifted = hn::Zero(d);
  auto index = hn::Iota(d, 0.0);
  for (int64_t c = 0; c < whole; c += lanes) {
    const auto a = hn::Sub(max, Load(row + c));
    // The top's own term (1) is not part of rest; ExpNeg64's clamp bounds the rest's far tail.
    const auto term = hn::IfThenZeroElse(hn::Eq(index, top), ExpNeg64<O64>(a));
    AddCompensated(term, sum, compensation);
    shifted = hn::MulAdd(hn::IfThenZeroElse(hn::IsInf(a), a), term, shifted);
    index = hn::Add(index, hn::Set(d, static_cast<double>(lanes)));
  }
  // The lanes, then the tail, into one compensated scalar sum.
  alignas(64) double sums[HWY_MAX_BYTES / sizeof(double)];
  alignas(64) double compensations[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(sum, d, sums);
  hn::Store(compensation, d, compensations);
  double total = 0.0, total_compensation = 0.0;
  auto add = [&](double term) {
    const double next = total + term;
    total_compensation +=
        std::fabs(total) >= std::fabs(term) ? (total - next) + term : (term - next) + total;
    total = next;
  };
  for (int64_t k = 0; k < lanes; ++k) {
    add(sums[k]);
    total_compensation += compensations[k];
  }
  double shifted_total = hn::GetLane(hn::SumOfLanes(d, shifted));
  for (int64_t c = whole; c < classes; ++c) {
    const double a = result.max - row[c];
    if (c == result.top || !(a < lse::kNegligibleShift)) continue;
    const double term = math::ExpNeg64<math::ScalarOps64>(a);
    add(term);
    shifted_total = std::fma(a, term, shifted_total);
  }
  return lse::WithLog1pRest(result, total + total_compensation, shifted_total, classes);
#else
  return lse::EstimateLogSumExp(FloatRow{row}, classes);
#endif
}

// LogSumExpRow of `count` short rows, `stride` floats apart, one row per fp64 lane: the per-row
// costs (the lanes' sums, log1p, the tails) are shared by a vector of rows. Each lane's sums are
// LogSumExpRow's, term by term (Neumaier's compensation, the same `shifted`), and WithLog1pRest's
// bound is formed lane by lane; a group holding a special row takes LogSumExpRow row by row.
void LogSumExpRows(const float* rows, int64_t count, int64_t classes, int64_t stride,
                   lse::LogSumExp* out) {
  int64_t r = 0;
#if HWY_NATIVE_FMA
  const D64 d;
  const DF df;
  const hn::RebindToSigned<DF> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<int32_t>(stride)));
  const auto gather = [&](const float* base, int64_t c) {
    return hn::PromoteTo(d, hn::GatherIndex(df, base + c, offsets));
  };
  const auto none = hn::Set(d, static_cast<double>(classes));
  alignas(64) double maxes[HWY_MAX_BYTES / sizeof(double)], tops[HWY_MAX_BYTES / sizeof(double)];
  alignas(64) double logs[HWY_MAX_BYTES / sizeof(double)], bounds[HWY_MAX_BYTES / sizeof(double)];
  // The group's values, gathered once (classes < kShortRow).
  alignas(64) double values[cpu::kShortRow * HWY_MAX_BYTES / sizeof(double)];
  const auto value = [&](int64_t c) { return hn::Load(d, values + c * lanes); };
  for (; r + lanes <= count; r += lanes) {
    const float* base = rows + r * stride;
    auto max = hn::Set(d, -INFINITY);
    auto special = hn::FirstN(d, 0);
    for (int64_t c = 0; c < classes; ++c) {
      const auto x = gather(base, c);
      hn::Store(x, d, values + c * lanes);
      max = hn::Max(max, x);
      special = hn::Or(special, hn::Not(hn::Lt(x, hn::Set(d, INFINITY))));
    }
    if (!hn::AllFalse(d, hn::Or(special, hn::Eq(max, hn::Set(d, -INFINITY))))) {
      for (int64_t k = 0; k < lanes; ++k) out[r + k] = LogSumExpRow(base + k * stride, classes);
      continue;
    }
    auto top = none;  // the first index of the maximum
    for (int64_t c = classes - 1; c >= 0; --c) {
      top = hn::IfThenElse(hn::Eq(value(c), max), hn::Set(d, static_cast<double>(c)), top);
    }
    auto sum = hn::Zero(d), compensation = hn::Zero(d), shifted = hn::Zero(d);
    for (int64_t c = 0; c < classes; ++c) {
      const auto a = hn::Sub(max, value(c));
      const auto term =
          hn::IfThenZeroElse(hn::Eq(hn::Set(d, static_cast<double>(c)), top), ExpNeg64<O64>(a));
      AddCompensated(term, sum, compensation);
      shifted = hn::MulAdd(hn::IfThenZeroElse(hn::IsInf(a), a), term, shifted);
    }
    // WithLog1pRest, lane by lane.
    const auto rest = hn::Add(sum, compensation);
    const auto rest_bound = hn::Add(hn::MulAdd(rest, hn::Set(d, lse::kExpError + 0x1p-51),
                                               hn::Mul(shifted, hn::Set(d, 0x1p-52))),
                                    hn::Set(d, static_cast<double>(classes) * lse::kTermFloor));
    const auto small = hn::Le(rest, hn::Set(d, 1.0));
    auto log = Log1p64<O64>(hn::Min(rest, hn::Set(d, 1.0)));
    auto bound = rest_bound;
    if (!hn::AllTrue(d, small)) {
      log = hn::IfThenElse(small, log, Log64<O64>(hn::Add(hn::Set(d, 1.0), rest)));
      bound = hn::IfThenElse(small, bound, hn::Add(bound, hn::Set(d, 0x1p-53)));
    }
    hn::Store(max, d, maxes);
    hn::Store(top, d, tops);
    hn::Store(log, d, logs);
    hn::Store(hn::MulAdd(log, hn::Set(d, lse::kLogError), bound), d, bounds);
    for (int64_t k = 0; k < lanes; ++k) {
      out[r + k] = {maxes[k], static_cast<int64_t>(tops[k]), {logs[k], bounds[k]}, false};
    }
  }
#endif
  for (; r < count; ++r) out[r] = LogSumExpRow(rows + r * stride, classes);
}

void LogProbabilitiesRow(const float* row, int64_t classes, const lse::LogSumExp& estimate,
                         float* out) {
  const FloatRow source{row};
  lse::LogProbabilityRounder<FloatRow> rounder{source, classes, estimate, FloatType::kFloat32};
  int64_t c = 0;
#if HWY_NATIVE_FMA
  const D64 d;
  const DF df;
  const DU du;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto max = hn::Set(d, estimate.max);
  const auto log1p_rest = hn::Set(d, estimate.log1p_rest.value);
  const auto rest_bound = hn::Set(d, estimate.log1p_rest.bound);
  const auto widen = hn::Set(d, kWiden);
  for (; c + lanes <= classes; c += lanes) {
    const auto shift = hn::Sub(max, Load(row + c));
    const auto value = hn::Neg(hn::Add(shift, log1p_rest));
    // LogProbability's bound, widened as Settles widens it (EndsBound).
    const auto bound =
        hn::MulAdd(hn::MulAdd(hn::Sub(shift, value), hn::Set(d, 0x1p-53), rest_bound), widen,
                   hn::Mul(hn::Abs(value), hn::Set(d, 0x1p-52)));
    const auto low = hn::BitCast(du, hn::DemoteTo(df, hn::Sub(value, bound)));
    const auto high = hn::BitCast(du, hn::DemoteTo(df, hn::Add(value, bound)));
    hn::StoreU(hn::DemoteTo(df, value), df, out + c);
    const auto open = hn::Not(hn::Eq(low, high));
    if (hn::AllFalse(du, open)) continue;
    for (int64_t k = c; k < c + lanes; ++k) out[k] = static_cast<float>(rounder(row[k]));
  }
#endif
  for (; c < classes; ++c) out[c] = static_cast<float>(rounder(row[c]));
}

void ExponentialsRow(const float* row, int64_t classes, double* e) {
  int64_t c = 0;
#if HWY_NATIVE_FMA
  const D64 d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (; c + lanes <= classes; c += lanes) {
    const auto a = hn::Neg(Load(row + c));  // ExpOfNonPositive's, lane by lane
    const auto negligible = hn::Not(hn::Lt(a, hn::Set(d, lse::kNegligibleShift)));
    hn::StoreU(hn::IfThenZeroElse(negligible, ExpNeg64<O64>(a)), d, e + c);
  }
#endif
  for (; c < classes; ++c) e[c] = row[c] <= 0.0f ? lse::ExpOfNonPositive(row[c]) : 0.0;
}

void LogSoftmaxGradientRow(const float* row, int64_t classes, const float* weights, int64_t target,
                           const lse::LogSoftmaxGradient& f, double* e, float* out,
                           cpu::OpenElement open) {
  int64_t c = 0;
#if HWY_NATIVE_FMA
  const D64 d;
  const DF df;
  const DU du;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto a = hn::Set(d, f.a), b = hn::Set(d, f.b), omega = hn::Set(d, f.omega);
  const auto inverse = hn::Set(d, f.inverse_divisor);
  const auto scale = hn::Add(hn::Mul(b, omega), a);  // fl(a + b Omega), as the scalar estimate
  const auto magnitude = hn::Set(d, std::fabs(f.a) + std::fabs(f.b * f.omega));
  const auto one = hn::Set(d, 1.0), target_index = hn::Set(d, static_cast<double>(target));
  auto index = hn::Iota(d, 0.0);
  for (; c + lanes <= classes;
       c += lanes, index = hn::Add(index, hn::Set(d, static_cast<double>(lanes)))) {
    const auto lp = Load(row + c);
    const auto shift = hn::Neg(lp);  // ExpOfNonPositive's, lane by lane
    const auto exponential = hn::IfThenZeroElse(
        hn::Not(hn::Lt(shift, hn::Set(d, lse::kNegligibleShift))), ExpNeg64<O64>(shift));
    hn::StoreU(exponential, d, e + c);
    const auto w = weights != nullptr ? Load(weights + c) : one;
    const auto delta = hn::IfThenElseZero(hn::Eq(index, target_index), one);
    // EstimateLogSoftmaxGradient lane by lane: its value's operations in its order, its bound.
    const auto value = hn::Mul(
        hn::Sub(hn::Sub(hn::Mul(scale, exponential), hn::Mul(a, delta)), hn::Mul(b, w)), inverse);
    const auto parts = hn::MulAdd(hn::Abs(b), hn::MulAdd(hn::Abs(omega), exponential, hn::Abs(w)),
                                  hn::Mul(hn::Abs(a), hn::Add(exponential, delta)));
    const auto exp_error =
        hn::MulAdd(exponential, hn::Set(d, lse::kExpError), hn::Set(d, lse::kTermFloor));
    const auto bound =
        hn::MulAdd(hn::MulAdd(hn::MulAdd(magnitude, exp_error, hn::Mul(parts, hn::Set(d, 0x1p-50))),
                              hn::Abs(inverse), hn::Mul(hn::Abs(value), hn::Set(d, 0x1p-51))),
                   hn::Set(d, kWiden), hn::Mul(hn::Abs(value), hn::Set(d, 0x1p-52)));  // EndsBound
    const auto low = hn::BitCast(du, hn::DemoteTo(df, hn::Sub(value, bound)));
    const auto high = hn::BitCast(du, hn::DemoteTo(df, hn::Add(value, bound)));
    hn::StoreU(hn::DemoteTo(df, value), df, out + c);
    const bool settled = hn::AllTrue(du, hn::Eq(low, high)) &&
                         hn::AllTrue(d, hn::Le(lp, hn::Zero(d))) &&
                         hn::AllTrue(d, hn::IsFinite(value));
    if (settled) continue;
    for (int64_t k = c; k < c + lanes; ++k)
      out[k] = static_cast<float>(CanonicalNaN(open.round(open.context, k)));
  }
#else
  (void)weights, (void)target, (void)f;  // the scalar elements of `open` hold them
#endif
  for (int64_t k = c; k < classes; ++k) e[k] = row[k] <= 0.0f ? lse::ExpOfNonPositive(row[k]) : 0.0;
  for (; c < classes; ++c) out[c] = static_cast<float>(CanonicalNaN(open.round(open.context, c)));
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(LogSumExpRow);
HWY_EXPORT(LogSumExpRows);
HWY_EXPORT(LogProbabilitiesRow);
HWY_EXPORT(ExponentialsRow);
HWY_EXPORT(LogSoftmaxGradientRow);

void WriteLogSoftmaxGradient32(const float* row, int64_t classes, const float* weights,
                               int64_t target, const log_sum_exp::LogSoftmaxGradient& factors,
                               double* exponentials, float* out, OpenElement open) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxGradientRow)
  (row, classes, weights, target, factors, exponentials, out, open);
}

void Exponentials32(const float* row, int64_t classes, double* e) {
  HWY_DYNAMIC_DISPATCH(ExponentialsRow)(row, classes, e);
}

log_sum_exp::LogSumExp EstimateLogSumExp32(const float* row, int64_t classes) {
  return HWY_DYNAMIC_DISPATCH(LogSumExpRow)(row, classes);
}

void EstimateLogSumExpRows32(const float* rows, int64_t count, int64_t classes, int64_t stride,
                             log_sum_exp::LogSumExp* out) {
  HWY_DYNAMIC_DISPATCH(LogSumExpRows)(rows, count, classes, stride, out);
}

void WriteLogProbabilities32(const float* row, int64_t classes, const log_sum_exp::LogSumExp& lse,
                             float* out) {
  HWY_DYNAMIC_DISPATCH(LogProbabilitiesRow)(row, classes, lse, out);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE
