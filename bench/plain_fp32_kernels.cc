// The plain fp32 kernels per Highway target, chosen at run time (plain_fp32_kernels.h).
#include "plain_fp32_kernels.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "plain_fp32_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The formulas on a vector of differences d (and on one float, for the tails).
// `limit` is beta (smooth L1: d^2 / (2 beta) = d^2 * half_over, half_over = 0.5 / beta) or delta
// (Huber), a run-time value as the ops take it, so that no product by 1 folds away.
template <PlainFormula kFormula, class D, class V = hn::Vec<D>>
HWY_INLINE V Loss(D d, V diff, float limit) {
  const V half = hn::Set(d, 0.5f), bound = hn::Set(d, limit), size = hn::Abs(diff);
  if constexpr (kFormula == PlainFormula::kMse) return hn::Mul(diff, diff);
  if constexpr (kFormula == PlainFormula::kL1) return size;
  if constexpr (kFormula == PlainFormula::kSmoothL1) {
    const V half_over = hn::Set(d, 0.5f / limit);
    return hn::IfThenElse(hn::Lt(size, bound), hn::Mul(half_over, hn::Mul(diff, diff)),
                          hn::Sub(size, hn::Mul(half, bound)));
  }
  if constexpr (kFormula == PlainFormula::kHuber) {
    return hn::IfThenElse(hn::Lt(size, bound), hn::Mul(half, hn::Mul(diff, diff)),
                          hn::Mul(bound, hn::Sub(size, hn::Mul(half, bound))));
  }
}

// sign(d) times `g`: g with d's sign, 0 where d is 0.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V SignTimes(D d, V diff, V g) {
  const V signed_g = hn::Xor(hn::And(diff, hn::Set(d, -0.0f)), g);
  return hn::IfThenZeroElse(hn::Eq(diff, hn::Zero(d)), signed_g);
}

template <PlainFormula kFormula, class D, class V = hn::Vec<D>>
HWY_INLINE V Gradient(D d, V diff, V g, float limit) {
  const V bound = hn::Set(d, limit);
  if constexpr (kFormula == PlainFormula::kMse) return hn::Mul(hn::Add(g, g), diff);
  if constexpr (kFormula == PlainFormula::kL1) return SignTimes(d, diff, g);
  if constexpr (kFormula == PlainFormula::kSmoothL1) {
    return hn::IfThenElse(hn::Lt(hn::Abs(diff), bound), hn::Mul(g, hn::Div(diff, bound)),
                          SignTimes(d, diff, g));
  }
  if constexpr (kFormula == PlainFormula::kHuber) {
    return hn::IfThenElse(hn::Lt(hn::Abs(diff), bound), hn::Mul(g, diff),
                          SignTimes(d, diff, hn::Mul(g, bound)));
  }
}

template <PlainFormula kFormula>
void LossLoop(const float* x, const float* t, int64_t n, float limit, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(Loss<kFormula>(d, hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, t + i)), limit), d,
               out + i);
  }
  const hn::CappedTag<float, 1> one;
  for (; i < n; ++i) {
    hn::StoreU(Loss<kFormula>(one, hn::Sub(hn::LoadU(one, x + i), hn::LoadU(one, t + i)), limit),
               one, out + i);
  }
}

template <PlainFormula kFormula>
float MeanLoop(const float* x, const float* t, int64_t n, float limit) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto sum = hn::Zero(d);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    sum = hn::Add(sum, Loss<kFormula>(d, hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, t + i)), limit));
  }
  float total = hn::GetLane(hn::SumOfLanes(d, sum));
  const hn::CappedTag<float, 1> one;
  for (; i < n; ++i) {
    total += hn::GetLane(
        Loss<kFormula>(one, hn::Sub(hn::LoadU(one, x + i), hn::LoadU(one, t + i)), limit));
  }
  return total / static_cast<float>(n);
}

template <PlainFormula kFormula>
void GradientLoop(const float* x, const float* t, const float* g, float scale, int64_t n,
                  float limit, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto diff = hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, t + i));
    const auto factor = g != nullptr ? hn::LoadU(d, g + i) : hn::Set(d, scale);
    hn::StoreU(Gradient<kFormula>(d, diff, factor, limit), d, out + i);
  }
  const hn::CappedTag<float, 1> one;
  for (; i < n; ++i) {
    const auto diff = hn::Sub(hn::LoadU(one, x + i), hn::LoadU(one, t + i));
    const auto factor = g != nullptr ? hn::LoadU(one, g + i) : hn::Set(one, scale);
    hn::StoreU(Gradient<kFormula>(one, diff, factor, limit), one, out + i);
  }
}

void PlainLossImpl(PlainFormula formula, const float* x, const float* t, int64_t n, float limit,
                   float* out) {
  switch (formula) {
    case PlainFormula::kMse:
      return LossLoop<PlainFormula::kMse>(x, t, n, limit, out);
    case PlainFormula::kL1:
      return LossLoop<PlainFormula::kL1>(x, t, n, limit, out);
    case PlainFormula::kSmoothL1:
      return LossLoop<PlainFormula::kSmoothL1>(x, t, n, limit, out);
    case PlainFormula::kHuber:
      return LossLoop<PlainFormula::kHuber>(x, t, n, limit, out);
  }
}

float PlainLossMeanImpl(PlainFormula formula, const float* x, const float* t, int64_t n,
                        float limit) {
  switch (formula) {
    case PlainFormula::kMse:
      return MeanLoop<PlainFormula::kMse>(x, t, n, limit);
    case PlainFormula::kL1:
      return MeanLoop<PlainFormula::kL1>(x, t, n, limit);
    case PlainFormula::kSmoothL1:
      return MeanLoop<PlainFormula::kSmoothL1>(x, t, n, limit);
    case PlainFormula::kHuber:
      return MeanLoop<PlainFormula::kHuber>(x, t, n, limit);
  }
  return 0;
}

void PlainGradientImpl(PlainFormula formula, const float* x, const float* t, const float* g,
                       float scale, int64_t n, float limit, float* out) {
  switch (formula) {
    case PlainFormula::kMse:
      return GradientLoop<PlainFormula::kMse>(x, t, g, scale, n, limit, out);
    case PlainFormula::kL1:
      return GradientLoop<PlainFormula::kL1>(x, t, g, scale, n, limit, out);
    case PlainFormula::kSmoothL1:
      return GradientLoop<PlainFormula::kSmoothL1>(x, t, g, scale, n, limit, out);
    case PlainFormula::kHuber:
      return GradientLoop<PlainFormula::kHuber>(x, t, g, scale, n, limit, out);
  }
}

}  // namespace openaclnn::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::bench {

HWY_EXPORT(PlainLossImpl);
HWY_EXPORT(PlainLossMeanImpl);
HWY_EXPORT(PlainGradientImpl);

void PlainLoss(PlainFormula formula, const float* x, const float* t, int64_t n, float limit,
               float* out) {
  HWY_DYNAMIC_DISPATCH(PlainLossImpl)(formula, x, t, n, limit, out);
}

float PlainLossMean(PlainFormula formula, const float* x, const float* t, int64_t n, float limit) {
  return HWY_DYNAMIC_DISPATCH(PlainLossMeanImpl)(formula, x, t, n, limit);
}

void PlainGradient(PlainFormula formula, const float* x, const float* t, const float* g,
                   float scale, int64_t n, float limit, float* out) {
  HWY_DYNAMIC_DISPATCH(PlainGradientImpl)(formula, x, t, g, scale, n, limit, out);
}

}  // namespace openaclnn::bench
#endif  // HWY_ONCE
