// The body of the SIMD EvaluateTile for one Highway target. Included by tile_math_simd.cc inside
// namespace openaclnn::HWY_NAMESPACE once per target (hence no include guard), with `hn` naming
// hwy::HWY_NAMESPACE.
// NOLINT(build/header_guard)

using D = hn::ScalableTag<float>;

// The vector policy for math.h's formulas over descriptor DV (fp32 lanes, or fp64 lanes for the
// exact-to-fp32 formulas): each member is the lane-wise IEEE operation of the same member of
// math::ScalarOpsOf.
template <class DV>
struct HwyOpsOf {
  using T = hn::TFromD<DV>;
  using V = hn::Vec<DV>;
  static constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52;
  static constexpr int kExponentBias = sizeof(T) == 4 ? 127 : 1023;

  static V Set(T c) { return hn::Set(DV(), c); }
  static V Neg(V a) { return hn::Neg(a); }
  static V Abs(V a) { return hn::Abs(a); }
  static V MulAdd(V a, V b, V c) { return hn::MulAdd(a, b, c); }
  template <class M>
  static V IfThenElse(M mask, V yes, V no) {
    return hn::IfThenElse(mask, yes, no);
  }
  static V RoundTo32(V a) {
    const hn::Rebind<float, DV> df;
    return hn::PromoteTo(DV(), hn::DemoteTo(df, a));
  }
  // 2^(i + k) for rounded = kRoundMagic + i: integer arithmetic on the exponent field.
  static V Pow2Rounded(V rounded, int k) {
    const hn::RebindToSigned<DV> di;
    using TI = hn::TFromD<decltype(di)>;
    const TI magic_bits =
        BitCast<TI>(static_cast<T>(sizeof(T) == 4 ? math::kRoundMagic : math::kRoundMagic64));
    const auto biased = hn::BitCast(di, rounded) + hn::Set(di, kExponentBias + k - magic_bits);
    return hn::BitCast(DV(), hn::ShiftLeft<kMantissaBits>(biased));
  }
  // table[i] per lane for rounded = kRoundMagic + i, i in [0, 15]. Tables hold 16 entries:
  // 16 lanes permute them in registers, 8 lanes permute each half and select, narrower gather.
  static V LookupRounded(const T* table, V rounded) {
    const hn::RebindToSigned<DV> di;
    const auto index = hn::BitCast(di, rounded) & hn::Set(di, 15);
    if constexpr (hn::MaxLanes(DV()) == 16) {
      return hn::TableLookupLanes(hn::LoadU(DV(), table), hn::IndicesFromVec(DV(), index));
    } else if constexpr (hn::MaxLanes(DV()) == 8) {
      const auto in_half = hn::IndicesFromVec(DV(), index & hn::Set(di, 7));
      const auto upper = hn::RebindMask(DV(), hn::TestBit(index, hn::Set(di, 8)));
      return hn::IfThenElse(upper, hn::TableLookupLanes(hn::LoadU(DV(), table + 8), in_half),
                            hn::TableLookupLanes(hn::LoadU(DV(), table), in_half));
    } else {
      return hn::GatherIndex(DV(), table, index);
    }
  }
};

using D64 = hn::Repartition<double, D>;
using HwyOps = HwyOpsOf<D>;
using HwyOps64 = HwyOpsOf<D64>;

#include "kernels/math_formulas.inc"
// Declared after the formulas, whose own local V would otherwise shadow it.
using V = hn::Vec<D>;

using V64 = hn::Vec<D64>;

// The fp64 lanes of each half of a float vector, and back, rounded once.
V64 Lower64(V v) { return hn::PromoteTo(D64(), hn::LowerHalf(hn::Half<D>(), v)); }
V64 Upper64(V v) { return hn::PromoteTo(D64(), hn::UpperHalf(hn::Half<D>(), v)); }
V Narrow(V64 lower, V64 upper) {
  const hn::Half<D> dh;
  return hn::Combine(D(), hn::DemoteTo(dh, upper), hn::DemoteTo(dh, lower));
}

// One input operand as the loop reads it: fp16/bf16 are widened in registers.
class Source {
 public:
  explicit Source(const TileOperand& operand) : operand_(operand) {
    if (operand.data == nullptr || operand.splat) {
      const float value =
          operand.data == nullptr ? 1.0f : cpu::LoadAs32(operand.data, operand.type, 0);
      splat_ = hn::Set(D(), value);
    }
  }

  V Load(int64_t i) const {
    if (operand_.data == nullptr || operand_.splat) return splat_;
    switch (operand_.type) {
      case FloatType::kFloat16: {
        const hn::Rebind<hwy::float16_t, D> dh;
        return hn::PromoteTo(D(), hn::LoadU(dh, At<hwy::float16_t>(i)));
      }
      case FloatType::kBFloat16: {
        const hn::Rebind<uint16_t, D> du16;
        const hn::RebindToUnsigned<D> du32;
        const auto bits = hn::PromoteTo(du32, hn::LoadU(du16, At<uint16_t>(i)));
        return hn::BitCast(D(), hn::ShiftLeft<16>(bits));
      }
      default:
        return hn::LoadU(D(), At<float>(i));
    }
  }

  // The `remaining` (< lanes) elements from i, the other lanes 0.
  V LoadPartial(int64_t i, int64_t remaining) const {
    if (operand_.data == nullptr || operand_.splat) return splat_;
    HWY_ALIGN float values[hn::MaxLanes(D())] = {};
    for (int64_t j = 0; j < remaining; ++j) {
      values[j] = cpu::LoadAs32(operand_.data, operand_.type, i + j);
    }
    return hn::Load(D(), values);
  }

 private:
  template <class T>
  const T* At(int64_t i) const {
    return static_cast<const T*>(operand_.data) + i;
  }

  TileOperand operand_;
  V splat_ = hn::Zero(D());
};

// fp32 -> bf16 bits, rounded to nearest even; NaN stays a quiet NaN (as FloatToBFloat16).
hn::Vec<hn::Rebind<uint16_t, D>> ToBFloat16(V v) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(du, v);
  const auto high = hn::ShiftRight<16>(bits);
  const auto rounded = hn::ShiftRight<16>(bits + hn::Set(du, 0x7fffu) + (high & hn::Set(du, 1u)));
  const auto quiet_nan = high | hn::Set(du, 0x40u);
  const auto result = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), quiet_nan, rounded);
  return hn::DemoteTo(hn::Rebind<uint16_t, D>(), hn::BitCast(di, result));
}

void Store(const TileOutput& output, int64_t i, V v) {
  switch (output.type) {
    case FloatType::kFloat16: {
      const hn::Rebind<hwy::float16_t, D> dh;
      hn::StoreU(hn::DemoteTo(dh, v), dh, static_cast<hwy::float16_t*>(output.data) + i);
      break;
    }
    case FloatType::kBFloat16: {
      const hn::Rebind<uint16_t, D> du16;
      hn::StoreU(ToBFloat16(v), du16, static_cast<uint16_t*>(output.data) + i);
      break;
    }
    default:
      hn::StoreU(v, D(), static_cast<float*>(output.data) + i);
  }
}

// Lanes where every value is finite: v*0 is 0 for finite v and NaN otherwise, so one test of
// their sum covers them all.
template <class... Vs>
auto AllFinite(V first, Vs... rest) {
  V zeros = first * hn::Zero(D());
  ((zeros = hn::MulAdd(rest, hn::Zero(D()), zeros)), ...);
  return hn::Eq(zeros, zeros);
}

// One vector of results: `value` as stored, `lower`/`upper` its halves before the last
// rounding (BceElementWide), as mean/sum add them.
struct Result {
  V value;
  V64 lower, upper;
};

// A loss kind's per-vector evaluation: the formulas on both fp64 halves; a gradient's lanes whose
// fp32 rounding is not certain are recomputed one at a time by the double-double formulas. Where
// some lane has an input that is not finite, that lane takes the reference formula, as the scalar
// code does.
template <LossKind kKind>
struct Evaluator {
  Source x, t, w, p, g;
  V scale;
  double scale64;

  Result At(int64_t i) const {
    return Compute(x.Load(i), t.Load(i), w.Load(i), p.Load(i), g.Load(i));
  }
  Result AtPartial(int64_t i, int64_t n) const {
    return Compute(x.LoadPartial(i, n), t.LoadPartial(i, n), w.LoadPartial(i, n),
                   p.LoadPartial(i, n), g.LoadPartial(i, n));
  }

 private:
  Result Compute(V xv, V tv, V wv, V pv, V gv) const {
    if constexpr (kKind == LossKind::kLoss) {
      Result r{V(), Loss64<HwyOps64>(Lower64(xv), Lower64(tv), Lower64(wv), Lower64(pv)),
               Loss64<HwyOps64>(Upper64(xv), Upper64(tv), Upper64(wv), Upper64(pv))};
      r.value = Narrow(r.lower, r.upper);
      const auto finite = AllFinite(xv, tv, wv, pv);
      if (HWY_UNLIKELY(!hn::AllTrue(D(), finite))) {
        r.value = hn::IfThenElse(finite, r.value, ReferenceLoss<HwyOps>(xv, tv, wv, pv));
        r.lower = Lower64(r.value);
        r.upper = Upper64(r.value);
      }
      return r;
    } else {
      const V value =
          kKind == LossKind::kGradSelf ? GradSelf(xv, tv, wv, pv, gv) : GradTarget(xv, wv, pv, gv);
      return {value, Lower64(value), Upper64(value)};
    }
  }

  V GradSelf(V xv, V tv, V wv, V pv, V gv) const {
    const V64 s = hn::Set(D64(), scale64);
    const V value = Settle(
        GradSelf64<HwyOps64>(Lower64(xv), Lower64(tv), Lower64(wv), Lower64(pv), Lower64(gv), s),
        GradSelf64<HwyOps64>(Upper64(xv), Upper64(tv), Upper64(wv), Upper64(pv), Upper64(gv), s),
        xv, tv, wv, pv, gv);
    const auto finite = AllFinite(xv, tv, wv, pv, gv);
    if (HWY_LIKELY(hn::AllTrue(D(), finite))) return value;
    return hn::IfThenElse(finite, value, ReferenceGradSelf<HwyOps>(xv, tv, wv, pv, gv) * scale);
  }

  V GradTarget(V xv, V wv, V pv, V gv) const {
    const V64 s = hn::Set(D64(), scale64);
    // Where every p is 1 (no pos_weight) the log term's coefficient is 0: skip computing it.
    const V64 x_lower = Lower64(xv), x_upper = Upper64(xv);
    V64 log_lower = hn::Zero(D64()), log_upper = hn::Zero(D64());
    if (!hn::AllTrue(D(), hn::Eq(pv, hn::Set(D(), 1.0f)))) {
      log_lower = Log1pExpNeg64<HwyOps64>(hn::Abs(x_lower));
      log_upper = Log1pExpNeg64<HwyOps64>(hn::Abs(x_upper));
    }
    const V value =
        Settle(GradTarget64<HwyOps64>(x_lower, Lower64(wv), Lower64(pv), Lower64(gv), s, log_lower),
               GradTarget64<HwyOps64>(x_upper, Upper64(wv), Upper64(pv), Upper64(gv), s, log_upper),
               xv, xv, wv, pv, gv);
    const auto finite = AllFinite(xv, wv, pv, gv);
    if (HWY_LIKELY(hn::AllTrue(D(), finite))) return value;
    return hn::IfThenElse(finite, value, ReferenceGradTarget<HwyOps>(xv, wv, pv, gv) * scale);
  }

  // The estimates rounded to fp32, where they settle every lane (nearly always).
  V Settle(const Estimate64<HwyOps64>& lower, const Estimate64<HwyOps64>& upper, V xv, V tv, V wv,
           V pv, V gv) const {
    const V value = Narrow(lower.value, upper.value);
    const auto settled_lower = Settled(lower), settled_upper = Settled(upper);
    if (HWY_LIKELY(hn::AllTrue(D64(), hn::And(settled_lower, settled_upper)))) return value;
    return SettleLanes(value, hn::VecFromMask(D64(), settled_lower),
                       hn::VecFromMask(D64(), settled_upper), xv, tv, wv, pv, gv);
  }

  // `value` with its lanes that the estimates left unsettled (settled_* lanes 0) recomputed by
  // the double-double formula; out of line, so the common path keeps its registers.
  HWY_NOINLINE V SettleLanes(V value, V64 settled_lower, V64 settled_upper, V xv, V tv, V wv, V pv,
                             V gv) const {
    constexpr size_t kLanes = hn::MaxLanes(D());
    HWY_ALIGN float inputs[kOut][kLanes];
    HWY_ALIGN float values[kLanes];
    HWY_ALIGN double settled[kLanes];
    const V operands[kOut] = {xv, tv, wv, pv, gv};
    for (int which = 0; which < kOut; ++which) hn::Store(operands[which], D(), inputs[which]);
    hn::Store(value, D(), values);
    hn::Store(settled_lower, D64(), settled);
    hn::Store(settled_upper, D64(), settled + kLanes / 2);
    for (size_t lane = 0; lane < kLanes; ++lane) {
      if (BitCast<uint64_t>(settled[lane]) != 0) continue;
      const float xs = inputs[kSelf][lane], ws = inputs[kWeight][lane],
                  ps = inputs[kPosWeight][lane], gs = inputs[kGradOutput][lane];
      values[lane] = kKind == LossKind::kGradSelf
                         ? math::exact::GradSelf(xs, inputs[kTarget][lane], ws, ps, gs, scale64)
                         : math::exact::GradTarget(xs, ws, ps, gs, scale64);
    }
    return hn::Load(D(), values);
  }
};

// Operands a kind does not read (gradOutput for the loss, target for the target gradient) are
// made absent, so they cost no memory traffic.
template <LossKind kKind>
Evaluator<kKind> MakeEvaluator(double gradient_scale, const TileInputs& in) {
  const TileOperand none;
  const TileOperand& t = kKind == LossKind::kGradTarget ? none : in.operand[kTarget];
  const TileOperand& g = kKind == LossKind::kLoss ? none : in.operand[kGradOutput];
  return {Source(in.operand[kSelf]),
          Source(t),
          Source(in.operand[kWeight]),
          Source(in.operand[kPosWeight]),
          Source(g),
          hn::Set(D(), static_cast<float>(gradient_scale)),
          gradient_scale};
}

// The 16 fp64 lanes of the block order (element i to lane i % 16) as 32/N vectors of N/2
// doubles, N the float lanes: a float vector at a multiple of 16 plus k*N feeds vectors 2k, 2k+1.
class BlockAccumulator {
 public:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  static_assert(kLanes <= 16 && 16 % kLanes == 0, "the block order needs N dividing 16");
  static constexpr size_t kGroups = 16 / kLanes;

  BlockAccumulator() {
    for (auto& sum : sums_) sum = hn::Zero(D64());
  }

  void Add(size_t group, const Result& r) {
    sums_[2 * group] = sums_[2 * group] + r.lower;
    sums_[2 * group + 1] = sums_[2 * group + 1] + r.upper;
  }

  void StoreLanes(double* lanes) const {
    for (size_t k = 0; k < 2 * kGroups; ++k) hn::StoreU(sums_[k], D64(), lanes + k * (kLanes / 2));
  }

 private:
  V64 sums_[2 * kGroups];
};

// Elements [i, count), fewer than 16: whole vectors then one partial one, summed per element.
template <LossKind kKind>
void RunRemainder(const Evaluator<kKind>& eval, int64_t i, int64_t count, const TileOutput& output,
                  bool sum, double* lanes) {
  constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
  for (; i < count; i += kLanes) {
    const int64_t n = count - i < kLanes ? count - i : kLanes;
    const Result r = n == kLanes ? eval.At(i) : eval.AtPartial(i, n);
    HWY_ALIGN float values[kLanes];
    HWY_ALIGN double wide[kLanes];
    hn::Store(r.value, D(), values);
    hn::Store(r.lower, D64(), wide);
    hn::Store(r.upper, D64(), wide + kLanes / 2);
    for (int64_t j = 0; j < n; ++j) {
      if (output.data != nullptr) cpu::StoreFrom32(output.data, output.type, i + j, values[j]);
      if (sum) lanes[(i + j) % 16] += wide[j];
    }
  }
}

template <LossKind kKind>
double RunTile(double gradient_scale, const TileInputs& inputs, int64_t count,
               const TileOutput& output, bool sum) {
  const Evaluator<kKind> eval = MakeEvaluator<kKind>(gradient_scale, inputs);
  constexpr size_t kLanes = BlockAccumulator::kLanes;
  BlockAccumulator accumulator;
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    for (size_t group = 0; group < BlockAccumulator::kGroups; ++group) {
      const int64_t at = i + static_cast<int64_t>(group * kLanes);
      const Result r = eval.At(at);
      if (output.data != nullptr) Store(output, at, r.value);
      if (sum) accumulator.Add(group, r);
    }
  }
  double lanes[16];
  accumulator.StoreLanes(lanes);
  RunRemainder(eval, i, count, output, sum, lanes);
  return sum ? FoldLanes(lanes) : 0.0;
}
