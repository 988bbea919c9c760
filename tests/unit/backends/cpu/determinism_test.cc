// The kernels' determinism promises: every SIMD target gives the scalar code's bits, and a
// reduction gives the same bits whatever the number of threads.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cpu/tile_math.h"
#include "kernels/class_axis_problem.h"
#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"
#include "losses/kl_div/cpu/kl_div_tile.h"
#include "losses/l1_loss/cpu/l1_loss_tile.h"
#include "losses/mse_loss/cpu/mse_loss_tile.h"
#include "losses/smooth_l1_loss/cpu/smooth_l1_loss_tile.h"
#include "losses/soft_margin_loss/cpu/soft_margin_loss_tile.h"

namespace openaclnn {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Random values of a range, with special values sprinkled in at random positions.
std::vector<float> Values(std::mt19937& rng, int64_t count, float low, float high,
                          const std::vector<float>& specials) {
  std::uniform_real_distribution<float> uniform(low, high);
  std::uniform_int_distribution<int> pick(0, 7);
  std::vector<float> values(count);
  for (float& value : values) {
    value = uniform(rng);
    if (pick(rng) == 0) value = specials[rng() % specials.size()];
  }
  return values;
}

std::vector<uint16_t> Narrow(const std::vector<float>& values, FloatType type) {
  std::vector<uint16_t> narrow(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    narrow[i] =
        type == FloatType::kFloat16 ? FloatToFloat16(values[i]) : FloatToBFloat16(values[i]);
  }
  return narrow;
}

// The same bits, or both NaN (NaN payloads are not part of the contract).
bool SameFloat(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}
bool SameDouble(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}
bool SamePartial(Partial a, Partial b) {
  return SameDouble(a.sum, b.sum) && SameDouble(a.bound, b.bound);
}
bool SameHalf(uint16_t a, uint16_t b, FloatType type) {
  const auto is_nan = [type](uint16_t bits) {
    return type == FloatType::kFloat16 ? (bits & 0x7fff) > 0x7c00 : (bits & 0x7fff) > 0x7f80;
  };
  return a == b || (is_nan(a) && is_nan(b));
}

struct TileData {
  std::vector<float> x, t, w, p, g;
};

// The inputs of a family's tiles: logits, or probabilities (in [0, 1] but for a few outside it)
// with the binary cross entropy's boundaries among them: 0, 1 and the values beside them, and x
// on both sides of e^-100 (the clamp of ln x: x <= 26 * 2^-149). The KL divergence's self is
// spread as logits are, its targets (probabilities, or log targets) over [0, 1.5] with the edges
// of both kinds: 0 and negatives, and e^t's clamps and fp32 overflow (-600, 95, 800). For the
// MSE family targets of any size, a third of them x's neighbour (a difference fp32 holds) or a tiny
// one (one fp64 does not hold beside a large x).
TileData MakeTileData(int64_t count, LossFamily family = LossFamily::kBceWithLogits) {
  std::mt19937 rng(1234);
  const std::vector<float> extreme = {0.0f,    -0.0f,    1e-45f, -1e-45f, 1e-38f, -1.2e-38f,
                                      3.4e38f, -3.4e38f, 88.7f,  -88.7f,  103.9f, -103.9f,
                                      15.0f,   -15.0f,   kInf,   -kInf,   kNaN};
  const std::vector<float> probabilities = {
      0.0f,           -0.0f,          1.0f,    0x1.fffffep-1f, 1e-45f,
      26 * 0x1p-149f, 27 * 0x1p-149f, 1e-8f,   0.5f,           0.25f,
      1.5f,           -0.5f,          -1e-45f, kInf,           kNaN};
  TileData data;
  data.x = family != LossFamily::kBinaryCrossEntropy
               ? Values(rng, count, -40.0f, 40.0f, extreme)
               : Values(rng, count, 0.0f, 1.0f, probabilities);
  data.t = Values(rng, count, 0.0f, 1.0f, {0.0f, 1.0f, 0.5f, kInf, kNaN, -kInf});
  if (family != LossFamily::kBceWithLogits) {  // targets outside [0, 1] too: terms of both signs
    data.t = Values(rng, count, 0.0f, 1.0f, {0.0f, -0.0f, 1.0f, 0.5f, 1.5f, -0.25f, kInf, kNaN});
  }
  if (family == LossFamily::kKlDiv) {
    data.t = Values(rng, count, 0.0f, 1.5f,
                    {0.0f, -0.0f, 1.0f, -0.25f, -600.0f, 95.0f, 800.0f, 1e-30f, kInf, -kInf, kNaN});
  }
  if (family == LossFamily::kMseLoss) {
    data.x = Values(rng, count, -40.0f, 40.0f, extreme);
    data.t = Values(rng, count, -40.0f, 40.0f, extreme);
    for (int64_t i = 0; i < count; i += 3) {
      data.t[i] = i % 2 == 0 ? std::nextafter(data.x[i], 0.0f) : data.x[i] * 0x1p-40f;
    }
  }
  if (family == LossFamily::kSmoothL1Loss) {  // differences of every size around the attributes
    data.x = Values(rng, count, -4.0f, 4.0f, extreme);
    data.t = Values(rng, count, -4.0f, 4.0f, {0.0f, -0.0f, 1.0f, 0.5f, -2.5f, 3e-40f, kInf, kNaN});
  }
  if (family == LossFamily::kSoftMarginLoss) {  // margins: logits x, any real t, z up to 2^256
    data.x = Values(rng, count, -40.0f, 40.0f, extreme);
    data.t = Values(rng, count, -5.0f, 5.0f,
                    {0.0f, -0.0f, 1.0f, -1.0f, 3.4e38f, 1e-45f, 11.0f, -10.5f, kInf, kNaN});
  }
  data.w = Values(rng, count, 0.0f, 4.0f, {0.0f, 1.0f, 3.4e38f, 1e-45f, kInf, kNaN});
  data.p = Values(rng, count, 0.0f, 4.0f, {0.0f, 1.0f, 3.4e38f, 1e-45f, kInf, kNaN});
  data.g = Values(rng, count, -2.0f, 2.0f, {0.0f, -0.0f, 1.0f, kInf, kNaN, 1e-30f, -3e-20f});
  return data;
}

// Every target this CPU supports, one bit each (the scalar fallback included).
std::vector<int64_t> SupportedTargets() {
  std::vector<int64_t> targets;
  for (int64_t bits = hwy::SupportedTargets(); bits != 0; bits &= bits - 1) {
    targets.push_back(bits & -bits);
  }
  return targets;
}

// A family's tile on the best target (EvaluateTile's contract), and its scalar definition.
using TileFunction = Partial (*)(LossKind kind, const ElementParameters& parameters,
                                 const TileInputs& inputs, int64_t count, const TileOutput& output,
                                 bool sum, const TileOutput& gradient);
struct FamilyTiles {
  TileFunction simd, scalar;
};
FamilyTiles TilesOf(LossFamily family) {
  if (family == LossFamily::kBceWithLogits) return {EvaluateTile, EvaluateTileScalar};
  if (family == LossFamily::kL1Loss) return {EvaluateL1LossTile, EvaluateL1LossTileScalar};
  if (family == LossFamily::kKlDiv) return {EvaluateKlDivTile, EvaluateKlDivTileScalar};
  if (family == LossFamily::kMseLoss) return {EvaluateMseLossTile, EvaluateMseLossTileScalar};
  if (family == LossFamily::kSmoothL1Loss) {
    return {EvaluateSmoothL1LossTile, EvaluateSmoothL1LossTileScalar};
  }
  if (family == LossFamily::kSoftMarginLoss) {
    return {EvaluateSoftMarginTile, EvaluateSoftMarginTileScalar};
  }
  return {EvaluateBinaryCrossEntropyTile, EvaluateBinaryCrossEntropyTileScalar};
}

// A family, a kind, and the family's attribute and variant (ElementParameters; 0 where it has
// none).
using TileCase = std::tuple<LossFamily, LossKind, double, int>;

class TileEquality : public ::testing::TestWithParam<TileCase> {
 protected:
  LossFamily family() const { return std::get<0>(GetParam()); }
  // Compares the family's tile on the current target with its scalar definition for one setup.
  void Compare(const TileInputs& inputs, int64_t count, FloatType out_type, bool sum,
               const std::string& what, int64_t divisor = 3) {
    const LossKind kind = std::get<1>(GetParam());
    // The KL divergence sums its gradients too (summed back into a broadcast operand's shape);
    // the other families nothing but their loss.
    sum = sum && (kind == LossKind::kLoss || family() == LossFamily::kKlDiv);
    const FamilyTiles tiles = TilesOf(family());
    const ElementParameters scale = DividedBy(kind == LossKind::kLoss ? 1 : divisor,
                                              std::get<2>(GetParam()), std::get<3>(GetParam()));
    std::vector<uint32_t> simd(count), scalar(count);
    const Partial simd_sum =
        tiles.simd(kind, scale, inputs, count, {simd.data(), out_type}, sum, {});
    const Partial scalar_sum =
        tiles.scalar(kind, scale, inputs, count, {scalar.data(), out_type}, sum, {});
    EXPECT_TRUE(SamePartial(simd_sum, scalar_sum))
        << what << ": " << simd_sum.sum << " vs " << scalar_sum.sum;
    if (sum) {  // as mean and sum run it: nothing stored
      const Partial summed_only =
          tiles.simd(kind, scale, inputs, count, {nullptr, out_type}, sum, {});
      EXPECT_TRUE(SamePartial(summed_only, scalar_sum))
          << what << " summed only: " << summed_only.sum << " vs " << scalar_sum.sum << ", bounds "
          << summed_only.bound << " vs " << scalar_sum.bound;
    }
    int mismatches = 0;
    for (int64_t i = 0; i < count && mismatches < 5; ++i) {
      const float a = LoadAs32(simd.data(), out_type, i), b = LoadAs32(scalar.data(), out_type, i);
      const bool same =
          out_type == FloatType::kFloat32
              ? SameFloat(a, b)
              : SameHalf(reinterpret_cast<const uint16_t*>(simd.data())[i],
                         reinterpret_cast<const uint16_t*>(scalar.data())[i], out_type);
      if (!same) {
        ++mismatches;
        const auto input = [&](int which) {
          const TileOperand& operand = inputs.operand[which];
          return operand.data == nullptr
                     ? 1.0f
                     : LoadAs32(operand.data, operand.StoredAs(), operand.splat ? 0 : i);
        };
        ADD_FAILURE() << what << ": element " << i << " differs: " << a << " vs " << b
                      << " (scalar) for x " << input(kSelf) << ", t " << input(kTarget) << ", g "
                      << input(kGradOutput);
      }
    }
    // The fused pass: the with-logits family's alone.
    if (kind == LossKind::kLoss && family() == LossFamily::kBceWithLogits) {
      CompareFused(inputs, count, out_type, sum, simd, what);
    }
  }

  // The fused pass (the loss with a gradient output) against the loss alone and the scalar
  // self gradient, bitwise; its sum against the scalar fused pass's (a 16-bit sum of the loss
  // alone adds fp32 terms, the fused pass's fp64 ones: BceLossTerm32).
  void CompareFused(const TileInputs& inputs, int64_t count, FloatType out_type, bool sum,
                    const std::vector<uint32_t>& loss, const std::string& what) {
    // A fused pass that stores its loss is reduction none's: nothing divided.
    const ElementParameters scale{};
    const FamilyTiles tiles = TilesOf(family());
    std::vector<uint32_t> fused_loss(count), fused_grad(count), grad(count);
    std::vector<uint32_t> scalar_loss(count), scalar_grad(count);
    const Partial fused_sum =
        tiles.simd(LossKind::kLoss, scale, inputs, count, {fused_loss.data(), out_type}, sum,
                   {fused_grad.data(), out_type});
    tiles.scalar(LossKind::kGradSelf, scale, inputs, count, {grad.data(), out_type}, false, {});
    const Partial scalar_sum =
        tiles.scalar(LossKind::kLoss, scale, inputs, count, {scalar_loss.data(), out_type}, sum,
                     {scalar_grad.data(), out_type});
    EXPECT_TRUE(SamePartial(fused_sum, scalar_sum)) << what << " fused sum";
    const size_t bytes = static_cast<size_t>(count) * (out_type == FloatType::kFloat32 ? 4 : 2);
    EXPECT_EQ(std::memcmp(fused_loss.data(), loss.data(), bytes), 0) << what << " fused loss";
    EXPECT_EQ(std::memcmp(fused_grad.data(), grad.data(), bytes), 0) << what << " fused gradient";
  }
};

// 16-bit values of a range where the fp32-lane evaluators run (|x| <= 80), with signed zeros
// sprinkled in: their exact zeros must carry the scalar reference's sign.
std::vector<uint16_t> Narrow16(std::mt19937& rng, int64_t count, float low, float high,
                               FloatType type) {
  return Narrow(Values(rng, count, low, high, {0.0f, -0.0f, 1.0f}), type);
}

// 16-bit operands of `type` (self, target, gradOutput) whose fp32 difference is exact and whose
// fp32 square (the loss) or product 2 g d (the gradient) is exactly a rounding boundary of
// `boundary_of` (fp16 or bf16) although the exact value is not: the MSE family's fp32 lanes must
// leave them to fp64. Found by search; written over every 61st element from `first`.
void PlantMseBoundaryCases(FloatType type, FloatType boundary_of,
                           std::array<std::vector<uint16_t>, kOut>& operands, int64_t first) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  const auto to16 = [&](float v) {
    return type == FloatType::kFloat16 ? FloatToFloat16(v) : FloatToBFloat16(v);
  };
  const auto from16 = [&](uint16_t bits) {
    return type == FloatType::kFloat16 ? Float16ToFloat(bits) : BFloat16ToFloat(bits);
  };
  const uint32_t low_bits = boundary_of == FloatType::kFloat16 ? 0x1fffu : 0xffffu;
  const uint32_t boundary = (low_bits + 1) / 2;
  int64_t at = first;
  for (int tries = 0; tries < 4'000'000 && at < static_cast<int64_t>(operands[kSelf].size());
       ++tries) {
    const uint16_t x = to16(uniform(rng)), t = to16(uniform(rng) * 0x1p-6f), g = to16(uniform(rng));
    const float xf = from16(x), tf = from16(t), d = xf - tf, factor = tries % 2 ? d : 2 * from16(g);
    const float r = factor * d;
    const bool on_boundary = std::fabs(r) >= 0x1p-14f && std::fabs(r) < 0x1p15f &&
                             (BitCast<uint32_t>(r) & low_bits) == boundary;
    if (xf - d != tf || d + tf != xf || !on_boundary || std::fma(factor, d, -r) == 0) continue;
    operands[kSelf][at] = x, operands[kTarget][at] = t, operands[kGradOutput][at] = g;
    at += 61;
  }
}

TEST_P(TileEquality, EveryTargetMatchesScalarBitwise) {
  const int64_t count = kReductionBlock;
  const TileData data = MakeTileData(count, family());
  const bool logits = family() != LossFamily::kBinaryCrossEntropy;
  const float target_low = family() == LossFamily::kSoftMarginLoss ? -5.0f : 0.0f;
  std::mt19937 rng(99);
  const FloatType h = FloatType::kFloat16;
  const auto narrow_of = [&](FloatType type) {
    return std::array<std::vector<uint16_t>, kOut>{
        Narrow16(rng, count, logits ? -60.0f : 0.0f, logits ? 60.0f : 1.0f, type),
        Narrow16(rng, count, target_low, 1.0f, type), Narrow16(rng, count, 0.0f, 4.0f, type),
        Narrow16(rng, count, 0.0f, 4.0f, type), Narrow16(rng, count, -2.0f, 2.0f, type)};
  };
  std::array<std::vector<uint16_t>, kOut> narrow[] = {narrow_of(h),
                                                      narrow_of(FloatType::kBFloat16)};
  if (family() == LossFamily::kMseLoss) {
    for (auto& operands : narrow) {
      const FloatType type = &operands == &narrow[0] ? h : FloatType::kBFloat16;
      PlantMseBoundaryCases(type, h, operands, 3);
      PlantMseBoundaryCases(type, FloatType::kBFloat16, operands, 33);
    }
  }
  const auto x16 = Narrow(data.x, FloatType::kFloat16);
  const auto t16 = Narrow(data.t, FloatType::kBFloat16);
  for (int64_t target : SupportedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = std::string(hwy::TargetName(target)) + "->" + EvaluateTileTarget();
    if (std::get<1>(GetParam()) == LossKind::kLoss) std::cout << "[ target   ] " << name << "\n";
    TileInputs fp32;
    fp32.operand[kSelf] = {data.x.data(), FloatType::kFloat32, false};
    fp32.operand[kTarget] = {data.t.data(), FloatType::kFloat32, false};
    fp32.operand[kWeight] = {data.w.data(), FloatType::kFloat32, false};
    fp32.operand[kPosWeight] = {data.p.data(), FloatType::kFloat32, false};
    fp32.operand[kGradOutput] = {data.g.data(), FloatType::kFloat32, false};
    TileInputs mixed = fp32;  // narrow inputs, absent weight, a splat pos_weight
    mixed.operand[kSelf] = {x16.data(), FloatType::kFloat16, false};
    mixed.operand[kTarget] = {t16.data(), FloatType::kBFloat16, false};
    mixed.operand[kWeight] = {};
    mixed.operand[kPosWeight] = {data.p.data() + 3, FloatType::kFloat32, true};
    for (const int64_t n : {count, count - 5, int64_t{13}, int64_t{1}}) {
      for (FloatType out : {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16}) {
        const std::string tag =
            name + " n=" + std::to_string(n) + " out=" + std::to_string(static_cast<int>(out));
        Compare(fp32, n, out, true, tag + " fp32");
        Compare(mixed, n, out, true, tag + " mixed");
        // Without weights, at power-of-two scales: the target gradient's exact products in fp32
        // lanes (for every output type from fp32 operands, and from narrow logits).
        // Its 16-bit sums: UnweightedLoss32 terms, which with an fp32 target round otherwise
        // than WeightedLoss32's.
        TileInputs fp32_unweighted = fp32, mixed_unweighted = mixed;
        fp32_unweighted.operand[kWeight] = fp32_unweighted.operand[kPosWeight] = {};
        mixed_unweighted.operand[kPosWeight] = {};
        mixed_unweighted.operand[kTarget] = fp32.operand[kTarget];
        for (const int64_t divisor : {int64_t{1}, int64_t{4}, int64_t{1} << 62}) {
          const std::string at = tag + " divisor=" + std::to_string(divisor);
          Compare(fp32_unweighted, n, out, false, at + " fp32 unweighted", divisor);
          Compare(mixed_unweighted, n, out, divisor == 1, at + " mixed unweighted", divisor);
        }
        // The MSE family's fp32 lanes store 16-bit operands' results in fp32 too.
        if (out == FloatType::kFloat32 && family() != LossFamily::kMseLoss) continue;
        // Every operand fp16, or every one bf16 (with a result of the same type: a tile of one
        // type throughout, Uniform), and the same without weights.
        for (int k = 0; k < 2; ++k) {
          const FloatType type = k == 0 ? h : FloatType::kBFloat16;
          TileInputs half;
          for (int which = kSelf; which < kOut; ++which) {
            half.operand[which] = {narrow[k][which].data(), type, false};
          }
          TileInputs unweighted = half;
          unweighted.operand[kWeight] = unweighted.operand[kPosWeight] = {};
          // A divisor of 1 with nothing summed: the MSE family's fp32 lanes.
          for (const int64_t divisor : {1, 3, 4}) {
            const std::string at = tag + " divisor=" + std::to_string(divisor) + " " +
                                   (k == 0 ? "fp16" : "bf16") + " operands";
            Compare(half, n, out, divisor != 4, at, divisor);
            Compare(unweighted, n, out, divisor != 4, at + " unweighted", divisor);
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, TileEquality,
    ::testing::Values(TileCase(LossFamily::kBceWithLogits, LossKind::kLoss, 0, 0),
                      TileCase(LossFamily::kBceWithLogits, LossKind::kGradSelf, 0, 0),
                      TileCase(LossFamily::kBceWithLogits, LossKind::kGradTarget, 0, 0),
                      TileCase(LossFamily::kBinaryCrossEntropy, LossKind::kLoss, 0, 0),
                      TileCase(LossFamily::kBinaryCrossEntropy, LossKind::kGradSelf, 0, 0),
                      TileCase(LossFamily::kL1Loss, LossKind::kLoss, 0, 0),
                      TileCase(LossFamily::kL1Loss, LossKind::kGradSelf, 0, 0),
                      TileCase(LossFamily::kKlDiv, LossKind::kLoss, 0, 0),
                      TileCase(LossFamily::kKlDiv, LossKind::kGradSelf, 0, 0),
                      TileCase(LossFamily::kKlDiv, LossKind::kGradTarget, 0, 0),
                      TileCase(LossFamily::kKlDiv, LossKind::kLoss, 0, 1),
                      TileCase(LossFamily::kKlDiv, LossKind::kGradSelf, 0, 1),
                      TileCase(LossFamily::kKlDiv, LossKind::kGradTarget, 0, 1),
                      TileCase(LossFamily::kMseLoss, LossKind::kLoss, 0, 0),
                      TileCase(LossFamily::kMseLoss, LossKind::kGradSelf, 0, 0),
                      TileCase(LossFamily::kSoftMarginLoss, LossKind::kLoss, 0, 0),
                      TileCase(LossFamily::kSoftMarginLoss, LossKind::kGradSelf, 0, 0)));

// The smooth L1 family: every kind, both variants, the attributes' edges (beta 0 is L1; an
// infinite beta or delta is quadratic everywhere; 0.1f a beta that is no power of two, 2^-460 a
// delta of Huber's tiny range).
std::vector<TileCase> SmoothL1TileCases() {
  std::vector<TileCase> cases;
  const std::pair<double, int> attributes[] = {{1.0, 0},      {0.0, 0},     {double{0.1f}, 0},
                                               {HUGE_VAL, 0}, {1.5, 1},     {HUGE_VAL, 1},
                                               {1e-3, 1},     {0x1p-460, 1}};
  for (LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
    for (const auto& [parameter, variant] : attributes) {
      cases.emplace_back(LossFamily::kSmoothL1Loss, kind, parameter, variant);
    }
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(SmoothL1, TileEquality, ::testing::ValuesIn(SmoothL1TileCases()));

// A flat problem over `count` elements whose inputs are the vectors in `slots`.
LossProblem FlatProblem(LossFamily family, LossKind kind, Reduction reduction, int64_t count,
                        double parameter = 0.0, int variant = 0) {
  LossProblem problem;
  problem.family = family;
  problem.kind = kind;
  problem.rank = 1;
  problem.shape[0] = count;
  problem.count = count;
  // As the plans make them: a loss's mean or sum is a total, a gradient's is element-wise.
  if (kind == LossKind::kLoss && reduction != Reduction::kNone) problem.segment = count;
  problem.parameters = DividedBy(reduction == Reduction::kMean ? count : 1, parameter, variant);
  for (int which = 0; which <= kOut; ++which) {
    problem.operands[which].slot = which;
    problem.operands[which].strides[0] = which == kOut && reduction != Reduction::kNone ? 0 : 1;
  }
  return problem;
}

// Runs a total's `problem` on 1, 2, 3 and 8 threads, three times each: the same bits every time.
void ExpectTheSameTotalOnAnyThreadCount(const LossProblem& problem,
                                        const TensorAddresses& addresses, const float& out,
                                        const std::string& what) {
  std::vector<double> workspace(ReductionWorkspaceBytesFor(problem.count) / sizeof(double));
  ASSERT_LE(kCpuLossKernels.workspace_bytes(problem), workspace.size() * sizeof(double));
  cpu::ThreadPool& pool = cpu::ThreadPool::Instance();
  const int original = pool.threads();
  uint32_t reference = 0;
  for (int threads : {1, 2, 3, 8}) {
    pool.SetThreads(threads);
    for (int repeat = 0; repeat < 3; ++repeat) {
      kCpuLossKernels.run(problem, {addresses, workspace.data(), nullptr});
      const uint32_t bits = BitCast<uint32_t>(out);
      if (threads == 1 && repeat == 0) reference = bits;
      EXPECT_EQ(bits, reference) << what << " threads " << threads;
    }
  }
  pool.SetThreads(original);
}

TEST(RunBceDeterminism, ReductionsAreBitwiseEqualForAnyThreadCount) {
  const int64_t count = 1'000'003;  // not a multiple of the block or of any vector width
  std::mt19937 rng(7);
  std::vector<float> x = Values(rng, count, -30.0f, 30.0f, {0.0f, 15.0f, -15.0f, 3.4e38f});
  std::vector<float> t = Values(rng, count, 0.0f, 1.0f, {0.0f, 1.0f});
  std::vector<float> w = Values(rng, count, 0.0f, 3.0f, {0.0f, 1.0f});
  std::vector<float> p = Values(rng, count, 0.0f, 3.0f, {1.0f});
  std::vector<float> g = Values(rng, count, -1.0f, 1.0f, {0.0f});
  float out = 0.0f;
  TensorAddresses addresses{x.data(), t.data(), w.data(), p.data(), g.data(), &out};
  for (LossFamily family : {LossFamily::kBceWithLogits, LossFamily::kMseLoss}) {
    for (Reduction reduction : {Reduction::kMean, Reduction::kSum}) {  // the gradients never reduce
      ExpectTheSameTotalOnAnyThreadCount(
          FlatProblem(family, LossKind::kLoss, reduction, count), addresses, out,
          "family " + std::to_string(static_cast<int>(family)) + " reduction " +
              std::to_string(static_cast<int>(reduction)));
    }
  }
}

// The smooth L1 family's means and sums, both variants: terms over 2^60 of range (some
// quadratic, most linear), whose fp64 sums depend on their order.
TEST(RunSmoothL1Determinism, ReductionsAreBitwiseEqualForAnyThreadCount) {
  const int64_t count = 1'000'003;
  std::mt19937 rng(8);
  std::vector<float> x = Values(rng, count, -30.0f, 30.0f, {0.0f, 3e7f, -3e7f, 1e-30f});
  std::vector<float> t = Values(rng, count, -1.0f, 1.0f, {0.0f, -0.0f, 1.0f});
  float out = 0.0f;
  TensorAddresses addresses{x.data(), t.data(), nullptr, nullptr, nullptr, &out};
  for (const auto& [parameter, variant] :
       {std::pair{1.0, 0}, std::pair{0.0, 0}, std::pair{double{0.1f}, 0}, std::pair{2.5, 1}}) {
    for (Reduction reduction : {Reduction::kMean, Reduction::kSum}) {
      LossProblem problem = FlatProblem(LossFamily::kSmoothL1Loss, LossKind::kLoss, reduction,
                                        count, parameter, variant);
      problem.operands[kWeight].slot = problem.operands[kPosWeight].slot = -1;
      problem.operands[kGradOutput].slot = -1;
      ExpectTheSameTotalOnAnyThreadCount(problem, addresses, out,
                                         "attribute " + std::to_string(parameter) + " variant " +
                                             std::to_string(variant) + " reduction " +
                                             std::to_string(static_cast<int>(reduction)));
    }
  }
}

// The KL divergence's totals (mean, sum, batchmean) and its gradients summed back into [rows]
// (segments, each on one worker): the same bits for any thread count, both target kinds.
TEST(RunKlDivDeterminism, TotalsAndSummedBackGradientsAreBitwiseEqualForAnyThreadCount) {
  const int64_t rows = 37, cols = 27'031;  // segments of several blocks and a short one
  const int64_t count = rows * cols;
  std::mt19937 rng(17);
  const std::vector<float> x = Values(rng, count, -30.0f, 30.0f, {0.0f, 1.0f, -1e-30f});
  const std::vector<float> probabilities = Values(rng, count, 0.0f, 1.0f, {0.0f, 1.0f, 1e-40f});
  const std::vector<float> logs = Values(rng, count, -8.0f, 3.0f, {0.0f, -600.0f, 20.0f});
  const std::vector<float> g = Values(rng, count, -1.0f, 1.0f, {0.0f, 1e-30f});
  std::vector<float> out(rows);
  std::vector<double> workspace(ReductionWorkspaceBytesFor(count) / sizeof(double));
  cpu::ThreadPool& pool = cpu::ThreadPool::Instance();
  const int original = pool.threads();
  for (int variant : {0, 1}) {
    const std::vector<float>& t = variant == 0 ? probabilities : logs;
    TensorAddresses addresses{const_cast<float*>(x.data()),
                              const_cast<float*>(t.data()),
                              nullptr,
                              nullptr,
                              const_cast<float*>(g.data()),
                              out.data()};
    for (LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
      for (int64_t divisor : {int64_t{1}, rows, count}) {  // sum, batchmean, mean
        LossProblem problem;
        problem.family = LossFamily::kKlDiv;
        problem.kind = kind;
        problem.rank = 2;
        problem.shape[0] = rows;
        problem.shape[1] = cols;
        problem.count = count;
        problem.segment = kind == LossKind::kLoss ? count : cols;
        problem.parameters = DividedBy(divisor, 0.0, variant);
        for (int which : {kSelf, kTarget, kGradOutput, kOut}) {
          StridedOperand& operand = problem.operands[which];
          operand.slot = which;
          operand.strides[0] = which == kOut ? (kind == LossKind::kLoss ? 0 : 1) : cols;
          operand.strides[1] = which == kOut ? 0 : 1;
        }
        ASSERT_LE(kCpuLossKernels.workspace_bytes(problem), workspace.size() * sizeof(double));
        std::vector<uint32_t> reference;
        for (int threads : {1, 2, 3, 8}) {
          pool.SetThreads(threads);
          kCpuLossKernels.run(problem, {addresses, workspace.data(), nullptr});
          std::vector<uint32_t> bits(rows);
          std::memcpy(bits.data(), out.data(), rows * sizeof(float));
          if (threads == 1) reference = bits;
          EXPECT_EQ(bits, reference) << "variant " << variant << " kind " << static_cast<int>(kind)
                                     << " divisor " << divisor << " threads " << threads;
        }
      }
    }
  }
  pool.SetThreads(original);
}

// The L1 family's mean and sum (fp64 terms, and the exact pass where the total lies next to a
// midpoint: a million copies of one difference whose mean is exactly an fp16 midpoint), and its
// INT64 sum, which wraps: the same bits for any thread count.
TEST(RunL1Determinism, ReductionsAreBitwiseEqualForAnyThreadCount) {
  const int64_t count = 1'000'003;
  std::mt19937 rng(11);
  const std::vector<float> spread = Values(rng, count, -1e4f, 1e4f, {0.0f, 1e-30f, -3e7f});
  const std::vector<float> tie(count, 1.0f + 0x1p-11f), zeros(count, 0.0f);
  std::vector<int64_t> longs(count);
  for (int64_t& value : longs) value = static_cast<int64_t>(rng()) << 31 ^ rng();
  const std::vector<int64_t> longs_target(count, std::numeric_limits<int64_t>::min() / 3);
  std::vector<double> workspace(ReductionWorkspaceBytesFor(count) / sizeof(double));
  cpu::ThreadPool& pool = cpu::ThreadPool::Instance();
  const int original = pool.threads();
  const auto run = [&](const void* x, const void* t, bool integer, Reduction reduction,
                       FloatType type) {
    LossProblem problem = FlatProblem(LossFamily::kL1Loss, LossKind::kLoss, reduction, count);
    problem.integer = integer;
    for (int which : {kSelf, kTarget})
      problem.operands[which].integer = integer ? IntegerType::kInt64 : IntegerType::kNone;
    problem.operands[kOut].type = type;
    problem.operands[kOut].integer = integer ? IntegerType::kInt64 : IntegerType::kNone;
    for (int which : {kWeight, kPosWeight, kGradOutput}) problem.operands[which].slot = -1;
    int64_t out = 0;
    TensorAddresses addresses{
        const_cast<void*>(x), const_cast<void*>(t), nullptr, nullptr, nullptr, &out};
    kCpuLossKernels.run(problem, {addresses, workspace.data(), nullptr});
    return out;
  };
  for (Reduction reduction : {Reduction::kMean, Reduction::kSum}) {
    for (FloatType type : {FloatType::kFloat32, FloatType::kFloat16}) {
      for (const std::vector<float>* x : {&spread, &tie}) {
        int64_t reference = 0;
        for (int threads : {1, 2, 3, 8}) {
          pool.SetThreads(threads);
          const int64_t bits = run(x->data(), zeros.data(), false, reduction, type);
          if (threads == 1) reference = bits;
          EXPECT_EQ(bits, reference)
              << "reduction " << static_cast<int>(reduction) << " threads " << threads;
        }
      }
    }
  }
  int64_t reference = 0;
  for (int threads : {1, 2, 3, 8}) {
    pool.SetThreads(threads);
    const int64_t total =
        run(longs.data(), longs_target.data(), true, Reduction::kSum, FloatType::kFloat32);
    if (threads == 1) reference = total;
    EXPECT_EQ(total, reference) << "int64 sum, threads " << threads;
  }
  pool.SetThreads(original);
}

// The class-axis families (NLL, cross entropy): the positions go in blocks to the pool's threads,
// which merge their exact sums and their first faulty position under a mutex as each finishes.
// Contiguous operands: self and the self-shaped outputs (positions, C), target (int64) and a none
// result or gradient per position, weight (C; the cross entropy's fp32), the rest one element.
struct ClassAxisCase {
  LossFamily family;
  LossKind kind;
  Reduction reduction;
  double smoothing;  // the cross entropy's eps
};

// `values` stored as `type` holds them.
std::vector<uint8_t> Stored(const std::vector<float>& values, FloatType type) {
  std::vector<uint8_t> bytes(values.size() * ElementSize(type));
  for (size_t i = 0; i < values.size(); ++i) {
    StoreFrom32(bytes.data(), type, static_cast<int64_t>(i), values[i]);
  }
  return bytes;
}

// Each output's bytes after a run, in operand order.
using ClassAxisOutputs = std::vector<std::vector<uint8_t>>;

// Runs `c` over `rows` x `classes` of `type` on 1, 2, 3 and 8 threads: every output the same on
// each (NaN as NaN), and so is the fault's message where targets are out of range.
void ExpectTheSameClassAxisResultsOnAnyThreadCount(const ClassAxisCase& c, int64_t rows,
                                                   int64_t classes, FloatType type) {
  const int64_t count = rows * classes;
  std::mt19937 rng(static_cast<unsigned>(count + static_cast<int>(type)));
  // Log-probabilities for the NLL and the gradient, logits for the cross entropy's forward.
  const bool logits = c.family == LossFamily::kCrossEntropy && c.kind == LossKind::kLoss;
  const std::vector<float> self = logits ? Values(rng, count, -30.0f, 30.0f, {0.0f, 1e-30f})
                                         : Values(rng, count, -12.0f, 0.0f, {0.0f, -1e-30f});
  const FloatType weight_type = c.family == LossFamily::kCrossEntropy ? FloatType::kFloat32 : type;
  const std::vector<float> weight = Values(rng, classes, -1.0f, 3.0f, {0.0f, 1.0f});
  const std::vector<float> grad = Values(rng, rows, -2.0f, 2.0f, {0.0f, 1.0f});
  std::vector<int64_t> target(rows);
  for (int64_t& t : target) t = rng() % 8 == 0 ? -100 : static_cast<int64_t>(rng() % classes);
  // Targets out of range where they spoil no total (a row of NaN): the first faulty position is
  // the one every thread count names.
  const bool faults = c.reduction == Reduction::kNone || c.kind == LossKind::kGradSelf;
  if (faults) {
    target[rows * 3 / 4] = classes;
    target[rows / 2] = -7;
  }
  const std::vector<uint8_t> self_bytes = Stored(self, type);
  const std::vector<uint8_t> weight_bytes = Stored(weight, weight_type);
  const std::vector<uint8_t> grad_bytes = Stored(grad, type);
  const std::vector<uint8_t> total_weight_bytes = Stored({2.5f}, type);

  ClassAxisProblem problem;
  problem.family = c.family;
  problem.kind = c.kind;
  problem.reduction = c.reduction;
  problem.rank = 1;
  problem.shape[0] = problem.positions = rows;
  problem.classes = classes;
  problem.ignore_index = -100;
  problem.label_smoothing = c.smoothing;
  TensorAddresses addresses{};
  int slots = 0;
  const auto use = [&](int which, const void* data, FloatType operand_type, int64_t stride,
                       int64_t class_stride) {
    problem.operands[which].slot = slots;
    problem.operands[which].type = operand_type;
    problem.operands[which].strides[0] = stride;
    problem.class_strides[which] = class_stride;
    addresses[slots++] = const_cast<void*>(data);
  };
  const bool per_position = c.reduction == Reduction::kNone;
  ClassAxisOutputs outputs;
  std::vector<int> output_operands;
  const auto output = [&](int which, int64_t elements, int64_t stride, int64_t class_stride) {
    outputs.emplace_back(elements * ElementSize(type));
    output_operands.push_back(which);
    use(which, nullptr, type, stride, class_stride);
  };
  use(kSelf, self_bytes.data(), type, classes, 1);
  use(kTarget, target.data(), type, 1, 0);
  problem.operands[kTarget].integer = IntegerType::kInt64;
  use(kWeight, weight_bytes.data(), weight_type, 0, 1);
  if (c.kind == LossKind::kGradSelf) {
    use(kGradOutput, grad_bytes.data(), type, per_position ? 1 : 0, 0);
    if (c.family == LossFamily::kNllLoss && c.reduction == Reduction::kMean) {
      use(kTotalWeight, total_weight_bytes.data(), type, 0, 0);
    }
    output(kOut, count, classes, 1);
  } else {
    output(kOut, per_position ? rows : 1, per_position ? 1 : 0, 0);
    if (c.family == LossFamily::kNllLoss) {
      output(kTotalWeightOut, 1, 0, 0);
    } else {
      output(kLogProbOut, count, classes, 1);
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    addresses[problem.operands[output_operands[k]].slot] = outputs[k].data();
  }

  cpu::ThreadPool& pool = cpu::ThreadPool::Instance();
  const int original = pool.threads();
  ClassAxisOutputs reference;
  std::string reference_fault;
  for (int threads : {1, 2, 3, 8}) {
    pool.SetThreads(threads);
    for (std::vector<uint8_t>& bytes : outputs) {  // what a run leaves unwritten shows
      std::fill(bytes.begin(), bytes.end(), uint8_t{0xA5});
    }
    const char* fault = kCpuLossKernels.run_class_axis(problem, {addresses, nullptr, nullptr});
    const std::string what = "family " + std::to_string(static_cast<int>(c.family)) + " kind " +
                             std::to_string(static_cast<int>(c.kind)) + " reduction " +
                             std::to_string(static_cast<int>(c.reduction)) + " " +
                             std::to_string(rows) + "x" + std::to_string(classes) + " type " +
                             std::to_string(static_cast<int>(type)) + " threads " +
                             std::to_string(threads);
    const std::string fault_text = fault != nullptr ? fault : "";
    EXPECT_EQ(faults, fault_text.find("target -7 of position " + std::to_string(rows / 2) + " ") !=
                          std::string::npos)
        << what << ": " << fault_text;
    if (threads == 1) {
      reference = outputs;
      reference_fault = fault_text;
      continue;
    }
    EXPECT_EQ(fault_text, reference_fault) << what;
    for (size_t k = 0; k < outputs.size(); ++k) {
      const int64_t elements = static_cast<int64_t>(outputs[k].size() / ElementSize(type));
      int64_t mismatches = 0;
      for (int64_t i = 0; i < elements; ++i) {
        mismatches += !SameFloat(LoadAs32(outputs[k].data(), type, i),
                                 LoadAs32(reference[k].data(), type, i));
      }
      EXPECT_EQ(mismatches, 0) << what << " output " << output_operands[k];
    }
  }
  pool.SetThreads(original);
}

// Long rows (a few positions of 40000 classes: one position a block, the threads each a few rows)
// and many short ones (40000 of 5: hundreds a block, the NLL forward's 4096), in fp32 (the SIMD
// rows); the short ones in bf16 too (the scalar rows; its long rows would add most of the time).
TEST(RunClassAxisDeterminism, ResultsAreBitwiseEqualForAnyThreadCount) {
  const ClassAxisCase cases[] = {
      {LossFamily::kNllLoss, LossKind::kLoss, Reduction::kMean, 0.0},
      {LossFamily::kNllLoss, LossKind::kLoss, Reduction::kSum, 0.0},
      {LossFamily::kNllLoss, LossKind::kGradSelf, Reduction::kMean, 0.0},
      {LossFamily::kCrossEntropy, LossKind::kLoss, Reduction::kMean, 0.1},
      {LossFamily::kCrossEntropy, LossKind::kLoss, Reduction::kNone, 0.0},
      {LossFamily::kCrossEntropy, LossKind::kGradSelf, Reduction::kMean, 0.1},
  };
  const std::tuple<int64_t, int64_t, FloatType> shapes[] = {{16, 40000, FloatType::kFloat32},
                                                            {40000, 5, FloatType::kFloat32},
                                                            {40000, 5, FloatType::kBFloat16}};
  for (const auto& [rows, classes, type] : shapes) {
    for (const ClassAxisCase& c : cases) {
      ExpectTheSameClassAxisResultsOnAnyThreadCount(c, rows, classes, type);
    }
  }
}

}  // namespace
}  // namespace openaclnn
