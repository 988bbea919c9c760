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

// kParts fp64 vectors evaluated side by side (the halves of several float vectors), and the
// policy that applies every operation to each: a step of a formula then issues kParts independent
// instructions, which the core overlaps. exp and log are long dependency chains; evaluated one
// vector after another they leave the core waiting (measured on Zen 5: 2 parts +6%, 4 parts
// +30% over 1; tile_bench).
template <size_t kParts>
struct Wide64 {
  hn::Vec<D64> part[kParts];
};
template <size_t kParts>
struct WideMask64 {
  hn::Mask<D64> part[kParts];
};

// Written as pack expansions, not loops: GCC then keeps every part in a register.
template <size_t kParts, class Op, size_t... kIndex>
HWY_INLINE Wide64<kParts> EachPartOf(Op op, std::index_sequence<kIndex...>) {
  return {{op(kIndex)...}};
}
template <size_t kParts, class Op>
HWY_INLINE Wide64<kParts> EachPart(Op op) {
  return EachPartOf<kParts>(op, std::make_index_sequence<kParts>());
}
template <size_t kParts, class Compare, size_t... kIndex>
HWY_INLINE WideMask64<kParts> CompareEach(Wide64<kParts> a, Wide64<kParts> b, Compare compare,
                                          std::index_sequence<kIndex...>) {
  return {{compare(a.part[kIndex], b.part[kIndex])...}};
}
template <size_t kParts, class Compare>
HWY_INLINE WideMask64<kParts> CompareParts(Wide64<kParts> a, Wide64<kParts> b, Compare compare) {
  return CompareEach(a, b, compare, std::make_index_sequence<kParts>());
}
template <size_t kParts>
inline Wide64<kParts> operator+(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] + b.part[k]; });
}
template <size_t kParts>
inline Wide64<kParts> operator-(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] - b.part[k]; });
}
template <size_t kParts>
inline Wide64<kParts> operator*(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] * b.part[k]; });
}
template <size_t kParts>
inline Wide64<kParts> operator/(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] / b.part[k]; });
}
template <size_t kParts>
inline WideMask64<kParts> operator<(Wide64<kParts> a, Wide64<kParts> b) {
  return CompareParts(a, b, [](auto u, auto v) { return hn::Lt(u, v); });
}
template <size_t kParts>
inline WideMask64<kParts> operator>(Wide64<kParts> a, Wide64<kParts> b) {
  return b < a;
}
template <size_t kParts>
inline WideMask64<kParts> operator==(Wide64<kParts> a, Wide64<kParts> b) {
  return CompareParts(a, b, [](auto u, auto v) { return hn::Eq(u, v); });
}

template <size_t kParts>
struct WideOps64 {
  using V = Wide64<kParts>;
  using Part = HwyOpsOf<D64>;

  static V Set(double c) {
    return EachPart<kParts>([&](size_t) { return Part::Set(c); });
  }
  static V Neg(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::Neg(a.part[k]); });
  }
  static V Abs(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::Abs(a.part[k]); });
  }
  static V MulAdd(V a, V b, V c) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::MulAdd(a.part[k], b.part[k], c.part[k]); });
  }
  static V IfThenElse(WideMask64<kParts> mask, V yes, V no) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::IfThenElse(mask.part[k], yes.part[k], no.part[k]); });
  }
  static V RoundTo32(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::RoundTo32(a.part[k]); });
  }
  static V Pow2Rounded(V rounded, int k2) {
    return EachPart<kParts>([&](size_t k) { return Part::Pow2Rounded(rounded.part[k], k2); });
  }
};

#include "kernels/math_formulas.inc"
// Declared after the formulas, whose own local V would otherwise shadow it.
using V = hn::Vec<D>;

using V64 = hn::Vec<D64>;

// The fp64 lanes of each half of a float vector, and back, rounded once.
HWY_INLINE V64 Lower64(V v) { return hn::PromoteTo(D64(), hn::LowerHalf(hn::Half<D>(), v)); }
HWY_INLINE V64 Upper64(V v) { return hn::PromoteTo(D64(), hn::UpperHalf(hn::Half<D>(), v)); }
V Narrow(V64 lower, V64 upper) {
  const hn::Half<D> dh;
  return hn::Combine(D(), hn::DemoteTo(dh, upper), hn::DemoteTo(dh, lower));
}

// kStep of T (float vectors, or Results) as a plain array in a struct of this target's namespace:
// std::array's constructors are compiled without the target's options, which NEON's vectors
// refuse (GCC: "inlining failed ... target specific option mismatch").
template <class T, size_t kStep>
struct Step {
  Step() {}  // user-provided, so compiled with this target's options (an implicit one is not)
  T item[kStep];
  T& operator[](size_t j) { return item[j]; }
  const T& operator[](size_t j) const { return item[j]; }
};
template <size_t kStep>
using Vectors = Step<V, kStep>;

// kStep float vectors as the 2*kStep fp64 parts of a Wide64 (vector j: parts 2j, 2j+1), and back.
template <size_t kStep, size_t... kIndex>
HWY_INLINE Wide64<2 * kStep> WidenEach(const Vectors<kStep>& v, std::index_sequence<kIndex...>) {
  return {{(kIndex % 2 == 0 ? Lower64(v[kIndex / 2]) : Upper64(v[kIndex / 2]))...}};
}
template <size_t kStep>
HWY_INLINE Wide64<2 * kStep> Widen(const Vectors<kStep>& v) {
  return WidenEach<kStep>(v, std::make_index_sequence<2 * kStep>());
}
template <size_t kParts>
V Narrow(const Wide64<kParts>& v, size_t j) {
  return Narrow(v.part[2 * j], v.part[2 * j + 1]);
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

// v with every NaN lane made kCanonicalNaN (see there).
V CanonicalNaN(V v) {
  return hn::IfThenElse(hn::IsNaN(v), hn::Set(D(), static_cast<float>(kCanonicalNaN)), v);
}

// One vector of results: `value` as stored, `lower`/`upper` its halves before the last
// rounding (BceElementWide), as mean/sum add them; `gradient` the self gradient of the fused pass.
// (User-provided constructors: see Step.)
struct Result {
  Result() {}
  Result(V v, V64 low, V64 high, V grad) : value(v), lower(low), upper(high), gradient(grad) {}
  V value;
  V64 lower, upper;
  V gradient;
};

// The operands of kStep consecutive float vectors.
template <size_t kStep>
struct Operands {
  Operands() {}
  Vectors<kStep> x, t, w, p, g;
};

// A loss kind's evaluation of kStep float vectors at once: the formulas on their fp64 halves side
// by side; a gradient's lanes whose fp32 rounding is not certain are recomputed one at a time by
// the double-double formulas. Where some lane has an input that is not finite, that lane takes
// the reference formula, as the scalar code does. kFused (with kLoss): the self gradient too,
// from the same exp(-|x|). kUnweighted: weight and pos_weight are absent, and read as the
// constant 1 the compiler folds away (x * 1 is x): 15-20% of the loss's time without weights.
template <LossKind kKind, bool kFused = false, bool kUnweighted = false>
struct Evaluator {
  static constexpr bool kWithGradient = kFused;
  Source x, t, w, p, g;
  V scale;
  double scale64;

  template <size_t kStep>
  Step<Result, kStep> At(int64_t i) const {
    Operands<kStep> in;
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j * hn::MaxLanes(D()));
      in.x[j] = x.Load(at), in.t[j] = t.Load(at), in.g[j] = g.Load(at);
      in.w[j] = kUnweighted ? hn::Set(D(), 1.0f) : w.Load(at);
      in.p[j] = kUnweighted ? hn::Set(D(), 1.0f) : p.Load(at);
    }
    return Compute(in);
  }
  // The n < kStep * lanes elements from i, in a step whose other lanes read 0 (or the splat).
  template <size_t kStep>
  Step<Result, kStep> AtPartial(int64_t i, int64_t n) const {
    constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
    Operands<kStep> in;
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j) * kLanes;
      const int64_t part = std::clamp<int64_t>(n - static_cast<int64_t>(j) * kLanes, 0, kLanes);
      in.x[j] = x.LoadPartial(at, part), in.t[j] = t.LoadPartial(at, part);
      in.w[j] = w.LoadPartial(at, part), in.p[j] = p.LoadPartial(at, part);
      in.g[j] = g.LoadPartial(at, part);
    }
    return Compute(in);
  }

 private:
  template <size_t kStep>
  Step<Result, kStep> Compute(const Operands<kStep>& in) const {
    Step<Result, kStep> results;
    if constexpr (kKind == LossKind::kLoss) {
      using O64 = WideOps64<2 * kStep>;
      const auto x64 = Widen(in.x), t64 = Widen(in.t), w64 = Widen(in.w), p64 = Widen(in.p);
      const auto e = ExpNeg64<O64>(O64::Abs(x64));
      const auto loss = Loss64FromExp<O64>(x64, t64, w64, p64, e);
      Vectors<kStep> gradients;
      if constexpr (kFused) {
        const auto estimate =
            GradSelf64FromExp<O64>(x64, t64, w64, p64, Widen(in.g), O64::Set(scale64), e);
        gradients = Settle(estimate, in, LossKind::kGradSelf);
      }
      for (size_t j = 0; j < kStep; ++j) {
        results[j] = {Narrow(loss, j), loss.part[2 * j], loss.part[2 * j + 1], hn::Zero(D())};
        if constexpr (kFused) {
          results[j].gradient = FiniteOr<LossKind::kGradSelf>(gradients[j], in, j);
        }
        const auto finite = AllFinite(in.x[j], in.t[j], in.w[j], in.p[j]);
        if (HWY_UNLIKELY(!hn::AllTrue(D(), finite))) {
          const V reference = ReferenceLoss<HwyOps>(in.x[j], in.t[j], in.w[j], in.p[j]);
          const V value = CanonicalNaN(hn::IfThenElse(finite, results[j].value, reference));
          results[j].value = value;
          results[j].lower = Lower64(value);
          results[j].upper = Upper64(value);
        }
      }
    } else {
      const Vectors<kStep> values = kKind == LossKind::kGradSelf ? GradSelf(in) : GradTarget(in);
      for (size_t j = 0; j < kStep; ++j) {
        results[j] = {values[j], Lower64(values[j]), Upper64(values[j]), hn::Zero(D())};
      }
    }
    return results;
  }

  template <size_t kStep>
  Vectors<kStep> GradSelf(const Operands<kStep>& in) const {
    using O64 = WideOps64<2 * kStep>;
    const auto estimate = GradSelf64<O64>(Widen(in.x), Widen(in.t), Widen(in.w), Widen(in.p),
                                          Widen(in.g), O64::Set(scale64));
    Vectors<kStep> values = Settle(estimate, in, LossKind::kGradSelf);
    for (size_t j = 0; j < kStep; ++j) values[j] = FiniteOr<LossKind::kGradSelf>(values[j], in, j);
    return values;
  }

  template <size_t kStep>
  Vectors<kStep> GradTarget(const Operands<kStep>& in) const {
    using O64 = WideOps64<2 * kStep>;
    // Where every p is 1 (no pos_weight) the log term's coefficient is 0: skip computing it.
    const auto x64 = Widen(in.x);
    auto log_term = O64::Set(0.0);
    bool every_p_is_one = true;
    for (size_t j = 0; j < kStep; ++j) {
      every_p_is_one = every_p_is_one && hn::AllTrue(D(), hn::Eq(in.p[j], hn::Set(D(), 1.0f)));
    }
    if (!every_p_is_one) log_term = Log1pExpNeg64<O64>(O64::Abs(x64));
    const auto estimate =
        GradTarget64<O64>(x64, Widen(in.w), Widen(in.p), Widen(in.g), O64::Set(scale64), log_term);
    Vectors<kStep> values = Settle(estimate, in, LossKind::kGradTarget);
    for (size_t j = 0; j < kStep; ++j) {
      values[j] = FiniteOr<LossKind::kGradTarget>(values[j], in, j);
    }
    return values;
  }

  // A gradient's vector j, with the lanes that have an input that is not finite taken from the
  // reference formula.
  template <LossKind kGradient, size_t kStep>
  V FiniteOr(V value, const Operands<kStep>& in, size_t j) const {
    const V x_j = in.x[j], t_j = in.t[j], w_j = in.w[j], p_j = in.p[j], g_j = in.g[j];
    const auto finite = kGradient == LossKind::kGradSelf ? AllFinite(x_j, t_j, w_j, p_j, g_j)
                                                         : AllFinite(x_j, w_j, p_j, g_j);
    if (HWY_LIKELY(hn::AllTrue(D(), finite))) return value;
    const V reference = kGradient == LossKind::kGradSelf
                            ? ReferenceGradSelf<HwyOps>(x_j, t_j, w_j, p_j, g_j)
                            : ReferenceGradTarget<HwyOps>(x_j, w_j, p_j, g_j);
    return CanonicalNaN(hn::IfThenElse(finite, value, reference * scale));
  }

  // The estimates rounded to fp32, with the lanes they leave unsettled (rarely any) recomputed.
  template <size_t kStep>
  Vectors<kStep> Settle(const Estimate64<WideOps64<2 * kStep>>& estimate, const Operands<kStep>& in,
                        LossKind gradient) const {
    const auto settled = Settled(estimate);
    Vectors<kStep> values;
    for (size_t j = 0; j < kStep; ++j) {
      values[j] = Narrow(estimate.value, j);
      const auto lower = settled.part[2 * j], upper = settled.part[2 * j + 1];
      if (HWY_LIKELY(hn::AllTrue(D64(), hn::And(lower, upper)))) continue;
      values[j] =
          SettleLanes(gradient, values[j], hn::VecFromMask(D64(), lower),
                      hn::VecFromMask(D64(), upper), in.x[j], in.t[j], in.w[j], in.p[j], in.g[j]);
    }
    return values;
  }

  // `value` with its lanes that the estimates left unsettled (settled_* lanes 0) recomputed by
  // the double-double formula; out of line, so the common path keeps its registers.
  HWY_NOINLINE V SettleLanes(LossKind gradient, V value, V64 settled_lower, V64 settled_upper, V xv,
                             V tv, V wv, V pv, V gv) const {
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
      values[lane] = gradient == LossKind::kGradSelf
                         ? math::exact::GradSelf(xs, inputs[kTarget][lane], ws, ps, gs, scale64)
                         : math::exact::GradTarget(xs, ws, ps, gs, scale64);
    }
    return hn::Load(D(), values);
  }
};

// Operands a kind does not read (gradOutput for the loss alone, target for the target gradient)
// are made absent, so they cost no memory traffic.
template <LossKind kKind, bool kFused, bool kUnweighted>
Evaluator<kKind, kFused, kUnweighted> MakeEvaluator(double gradient_scale, const TileInputs& in) {
  const TileOperand none;
  const TileOperand& t = kKind == LossKind::kGradTarget ? none : in.operand[kTarget];
  const TileOperand& g = kKind == LossKind::kLoss && !kFused ? none : in.operand[kGradOutput];
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

// Where a tile's results go: the output, the fused pass's gradient, the block sum.
struct TileSinks {
  const TileOutput& output;
  const TileOutput& gradient;
  bool sum;
};

// Elements [i, count), fewer than a step: one step with partial loads, stored and summed per
// element (one instantiation of the formulas per evaluator keeps compile time in bounds: under
// the sanitizers each one costs minutes).
template <size_t kStep, class Eval>
void RunRemainder(const Eval& eval, int64_t i, int64_t count, const TileSinks& sinks,
                  double* lanes) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  if (i >= count) return;
  const auto results = eval.template AtPartial<kStep>(i, count - i);
  HWY_ALIGN float values[kStep * kLanes];
  HWY_ALIGN float gradients[kStep * kLanes];
  HWY_ALIGN double wide[kStep * kLanes];
  for (size_t j = 0; j < kStep; ++j) {
    hn::Store(results[j].value, D(), values + j * kLanes);
    hn::Store(results[j].gradient, D(), gradients + j * kLanes);
    hn::Store(results[j].lower, D64(), wide + j * kLanes);
    hn::Store(results[j].upper, D64(), wide + j * kLanes + kLanes / 2);
  }
  const TileOutput &output = sinks.output, &gradient = sinks.gradient;
  for (int64_t k = 0; k < count - i; ++k) {
    if (output.data != nullptr) cpu::StoreFrom32(output.data, output.type, i + k, values[k]);
    if (Eval::kWithGradient) cpu::StoreFrom32(gradient.data, gradient.type, i + k, gradients[k]);
    if (sinks.sum) lanes[(i + k) % 16] += wide[k];
  }
}

// Elements from i in steps of kStep float vectors while a whole step fits and is a whole number
// of 16-element groups; vector j of a step adds into accumulator group j % kGroups, which keeps
// the block order. Returns where it stopped. Flattened: GCC's inliner otherwise stops short of
// the formulas on 4-vector values, and passes them through memory (a third slower); but not
// under the sanitizers, whose checks make the flattened function take minutes to compile.
template <size_t kStep, class Eval>
OPENACLNN_FLATTEN int64_t RunSteps(const Eval& eval, int64_t i, int64_t count,
                                   const TileSinks& sinks, BlockAccumulator& accumulator) {
  constexpr size_t kLanes = BlockAccumulator::kLanes;
  constexpr int64_t kStepElements = static_cast<int64_t>(kStep * kLanes);
  static_assert(kStepElements % 16 == 0, "a step must be whole 16-element groups");
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template At<kStep>(i);
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j * kLanes);
      if (sinks.output.data != nullptr) Store(sinks.output, at, results[j].value);
      if (Eval::kWithGradient) Store(sinks.gradient, at, results[j].gradient);
      if (sinks.sum) accumulator.Add(j % BlockAccumulator::kGroups, results[j]);
    }
  }
  return i;
}

template <LossKind kKind, bool kFused, bool kUnweighted>
double RunTileOf(double gradient_scale, const TileInputs& inputs, int64_t count,
                 const TileSinks& sinks) {
  const auto eval = MakeEvaluator<kKind, kFused, kUnweighted>(gradient_scale, inputs);
  constexpr size_t kGroups = BlockAccumulator::kGroups;
  BlockAccumulator accumulator;
  // Two float vectors (4 fp64 parts) side by side (8 parts spill on AVX-512, and AVX2 has half
  // its registers); more where vectors are so narrow that a 16-element group needs more.
  constexpr size_t kStep = kGroups > 2 ? kGroups : 2;
  const int64_t i = RunSteps<kStep>(eval, 0, count, sinks, accumulator);
  double lanes[16];
  accumulator.StoreLanes(lanes);
  RunRemainder<kStep>(eval, i, count, sinks, lanes);
  return sinks.sum ? FoldLanes(lanes) : 0.0;
}

template <LossKind kKind, bool kFused = false>
double RunTile(double gradient_scale, const TileInputs& inputs, int64_t count,
               const TileOutput& output, bool sum, const TileOutput& gradient = {}) {
  const TileSinks sinks{output, gradient, sum};
  const bool unweighted =
      inputs.operand[kWeight].data == nullptr && inputs.operand[kPosWeight].data == nullptr;
  return unweighted ? RunTileOf<kKind, kFused, true>(gradient_scale, inputs, count, sinks)
                    : RunTileOf<kKind, kFused, false>(gradient_scale, inputs, count, sinks);
}
