// The body of the SIMD EvaluateTile for one Highway target. Included by tile_math_simd.cc inside
// namespace openaclnn::HWY_NAMESPACE once per target (hence no include guard), with `hn` naming
// hwy::HWY_NAMESPACE.
// NOLINT(build/header_guard)

using D = hn::ScalableTag<float>;

// The vector policy for math.h's formulas over descriptor DV (fp32 lanes, or fp64 lanes for
// GradSelf64): each member is the lane-wise IEEE operation of the same member of
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

// GradSelf64 on the float lanes of v: each half widened to fp64, evaluated, rounded back once.
V GradSelfInFp64(V x, V t, V w, V p, V g, hn::Vec<D64> scale) {
  const hn::Half<D> dh;
  const D64 d64;
  auto half = [&](auto take) {
    const auto wide = GradSelf64<HwyOps64>(hn::PromoteTo(d64, take(x)), hn::PromoteTo(d64, take(t)),
                                           hn::PromoteTo(d64, take(w)), hn::PromoteTo(d64, take(p)),
                                           hn::PromoteTo(d64, take(g)));
    return hn::DemoteTo(dh, wide * scale);
  };
  const auto lower = half([&](V v) { return hn::LowerHalf(dh, v); });
  const auto upper = half([&](V v) { return hn::UpperHalf(dh, v); });
  return hn::Combine(D(), upper, lower);
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

// Lanes where the kNear formulas apply (|x| <= kExpNearMax) and gave a finite result. That
// result is not finite wherever another input is not (inf*0 and inf-inf are NaN, and the
// log1p(exp(-|x|)) factor is never 0 there), so those lanes need no test of their own.
auto NearAndFinite(V x, V result) {
  return hn::And(hn::Le(hn::Abs(x), hn::Set(D(), math::kExpNearMax)), hn::IsFinite(result));
}

// Lanes where every value is finite: v*0 is 0 for finite v and NaN otherwise, so one test of
// their sum covers them all.
template <class... Vs>
auto AllFinite(V first, Vs... rest) {
  V zeros = first * hn::Zero(D());
  ((zeros = hn::MulAdd(rest, hn::Zero(D()), zeros)), ...);
  return hn::Eq(zeros, zeros);
}

// A loss kind's per-vector evaluation. Where some lane has an input that is not finite, that
// lane takes the reference formula, as the scalar code does.
template <LossKind kKind>
struct Evaluator {
  Source x, t, w, p, g;
  V scale;
  hn::Vec<D64> scale64;

  V At(int64_t i) const { return Compute(x.Load(i), t.Load(i), w.Load(i), p.Load(i), g.Load(i)); }
  V AtPartial(int64_t i, int64_t n) const {
    return Compute(x.LoadPartial(i, n), t.LoadPartial(i, n), w.LoadPartial(i, n),
                   p.LoadPartial(i, n), g.LoadPartial(i, n));
  }

 private:
  V Compute(V xv, V tv, V wv, V pv, V gv) const {
    if constexpr (kKind == LossKind::kLoss) {
      const V fast = Loss<HwyOps, Range::kNear>(xv, tv, wv, pv);
      if (HWY_LIKELY(hn::AllTrue(D(), NearAndFinite(xv, fast)))) return fast;
      return hn::IfThenElse(AllFinite(xv, tv, wv, pv), Loss<HwyOps>(xv, tv, wv, pv),
                            ReferenceLoss<HwyOps>(xv, tv, wv, pv));
    } else if constexpr (kKind == LossKind::kGradSelf) {
      const auto finite = AllFinite(xv, tv, wv, pv, gv);
      const V fast = GradSelfInFp64(xv, tv, wv, pv, gv, scale64);
      if (HWY_LIKELY(hn::AllTrue(D(), finite))) return fast;
      return hn::IfThenElse(finite, fast, ReferenceGradSelf<HwyOps>(xv, tv, wv, pv, gv) * scale);
    } else {
      V grad = GradTarget<HwyOps, Range::kNear>(xv, wv, pv, gv);
      if (HWY_UNLIKELY(!hn::AllTrue(D(), NearAndFinite(xv, grad)))) {
        grad = hn::IfThenElse(AllFinite(xv, wv, pv, gv), GradTarget<HwyOps>(xv, wv, pv, gv),
                              ReferenceGradTarget<HwyOps>(xv, wv, pv, gv));
      }
      return grad * scale;
    }
  }
};

// Operands a kind does not read (gradOutput for the loss, target for the target gradient) are
// made absent, so they cost no memory traffic.
template <LossKind kKind>
Evaluator<kKind> MakeEvaluator(double gradient_scale, const TileInputs& in) {
  const TileOperand none;
  const TileOperand& t = kKind == LossKind::kGradTarget ? none : in.operand[kTarget];
  const TileOperand& g = kKind == LossKind::kLoss ? none : in.operand[kGradOutput];
  return {
      Source(in.operand[kSelf]),      Source(t), Source(in.operand[kWeight]),
      Source(in.operand[kPosWeight]), Source(g), hn::Set(D(), static_cast<float>(gradient_scale)),
      hn::Set(D64(), gradient_scale)};
}

// The 16 fp64 lanes of the block order (element i to lane i % 16) as 32/N vectors of N/2
// doubles, N the float lanes: a float vector at a multiple of 16 plus k*N feeds vectors 2k, 2k+1.
class BlockAccumulator {
 public:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  static_assert(kLanes <= 16 && 16 % kLanes == 0, "the block order needs N dividing 16");
  static constexpr size_t kGroups = 16 / kLanes;
  using DD = hn::Rebind<double, hn::Half<D>>;

  BlockAccumulator() {
    for (auto& sum : sums_) sum = hn::Zero(DD());
  }

  void Add(size_t group, V v) {
    const hn::Half<D> dh;
    sums_[2 * group] = sums_[2 * group] + hn::PromoteTo(DD(), hn::LowerHalf(dh, v));
    sums_[2 * group + 1] = sums_[2 * group + 1] + hn::PromoteTo(DD(), hn::UpperHalf(dh, v));
  }

  void StoreLanes(double* lanes) const {
    for (size_t k = 0; k < 2 * kGroups; ++k) hn::StoreU(sums_[k], DD(), lanes + k * (kLanes / 2));
  }

 private:
  hn::Vec<DD> sums_[2 * kGroups];
};

// Elements [i, count), fewer than 16: whole vectors then one partial one, summed per element.
template <LossKind kKind>
void RunRemainder(const Evaluator<kKind>& eval, int64_t i, int64_t count, const TileOutput& output,
                  bool sum, double* lanes) {
  constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
  for (; i < count; i += kLanes) {
    const int64_t n = count - i < kLanes ? count - i : kLanes;
    const V v = n == kLanes ? eval.At(i) : eval.AtPartial(i, n);
    HWY_ALIGN float values[kLanes];
    hn::Store(v, D(), values);
    for (int64_t j = 0; j < n; ++j) {
      if (output.data != nullptr) cpu::StoreFrom32(output.data, output.type, i + j, values[j]);
      if (sum) lanes[(i + j) % 16] += static_cast<double>(values[j]);
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
      const V v = eval.At(at);
      if (output.data != nullptr) Store(output, at, v);
      if (sum) accumulator.Add(group, v);
    }
  }
  double lanes[16];
  accumulator.StoreLanes(lanes);
  RunRemainder(eval, i, count, output, sum, lanes);
  return sum ? FoldLanes(lanes) : 0.0;
}
