// The kernels' determinism promises: every SIMD target gives the scalar code's bits, and a
// reduction gives the same bits whatever the number of threads.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cpu/tile_math.h"
#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"
#include "losses/kl_div/cpu/kl_div_tile.h"
#include "losses/l1_loss/cpu/l1_loss_tile.h"
#include "losses/mse_loss/cpu/mse_loss_tile.h"

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
  return {EvaluateBinaryCrossEntropyTile, EvaluateBinaryCrossEntropyTileScalar};
}

// (family, kind, variant: the KL divergence's log targets).
class TileEquality : public ::testing::TestWithParam<std::tuple<LossFamily, LossKind, int>> {
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
    const ElementParameters scale =
        DividedBy(kind == LossKind::kLoss ? 1 : divisor, 0.0, std::get<2>(GetParam()));
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
      bool same;
      if (out_type == FloatType::kFloat32) {
        same = SameFloat(BitCast<float>(simd[i]), BitCast<float>(scalar[i]));
      } else {
        const auto* a = reinterpret_cast<const uint16_t*>(simd.data());
        const auto* b = reinterpret_cast<const uint16_t*>(scalar.data());
        same = SameHalf(a[i], b[i], out_type);
      }
      if (!same) {
        ++mismatches;
        ADD_FAILURE() << what << ": element " << i << " differs";
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
  std::mt19937 rng(99);
  const FloatType h = FloatType::kFloat16;
  const auto narrow_of = [&](FloatType type) {
    return std::array<std::vector<uint16_t>, kOut>{
        Narrow16(rng, count, logits ? -60.0f : 0.0f, logits ? 60.0f : 1.0f, type),
        Narrow16(rng, count, 0.0f, 1.0f, type), Narrow16(rng, count, 0.0f, 4.0f, type),
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
    ::testing::Values(std::tuple(LossFamily::kBceWithLogits, LossKind::kLoss, 0),
                      std::tuple(LossFamily::kBceWithLogits, LossKind::kGradSelf, 0),
                      std::tuple(LossFamily::kBceWithLogits, LossKind::kGradTarget, 0),
                      std::tuple(LossFamily::kBinaryCrossEntropy, LossKind::kLoss, 0),
                      std::tuple(LossFamily::kBinaryCrossEntropy, LossKind::kGradSelf, 0),
                      std::tuple(LossFamily::kL1Loss, LossKind::kLoss, 0),
                      std::tuple(LossFamily::kL1Loss, LossKind::kGradSelf, 0),
                      std::tuple(LossFamily::kKlDiv, LossKind::kLoss, 0),
                      std::tuple(LossFamily::kKlDiv, LossKind::kGradSelf, 0),
                      std::tuple(LossFamily::kKlDiv, LossKind::kGradTarget, 0),
                      std::tuple(LossFamily::kKlDiv, LossKind::kLoss, 1),
                      std::tuple(LossFamily::kKlDiv, LossKind::kGradSelf, 1),
                      std::tuple(LossFamily::kKlDiv, LossKind::kGradTarget, 1),
                      std::tuple(LossFamily::kMseLoss, LossKind::kLoss, 0),
                      std::tuple(LossFamily::kMseLoss, LossKind::kGradSelf, 0)));

// A flat problem over `count` elements whose inputs are the vectors in `slots`.
LossProblem FlatProblem(LossFamily family, LossKind kind, Reduction reduction, int64_t count) {
  LossProblem problem;
  problem.family = family;
  problem.kind = kind;
  problem.rank = 1;
  problem.shape[0] = count;
  problem.count = count;
  // As the plans make them: a loss's mean or sum is a total, a gradient's is element-wise.
  if (kind == LossKind::kLoss && reduction != Reduction::kNone) problem.segment = count;
  problem.parameters = DividedBy(reduction == Reduction::kMean ? count : 1);
  for (int which = 0; which <= kOut; ++which) {
    problem.operands[which].slot = which;
    problem.operands[which].strides[0] = which == kOut && reduction != Reduction::kNone ? 0 : 1;
  }
  return problem;
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
  std::vector<double> workspace(ReductionWorkspaceBytesFor(count) / sizeof(double));
  cpu::ThreadPool& pool = cpu::ThreadPool::Instance();
  const int original = pool.threads();
  for (LossFamily family : {LossFamily::kBceWithLogits, LossFamily::kMseLoss}) {
    const LossKind kind = LossKind::kLoss;  // the gradients never reduce
    for (Reduction reduction : {Reduction::kMean, Reduction::kSum}) {
      const LossProblem problem = FlatProblem(family, kind, reduction, count);
      ASSERT_LE(kCpuLossKernels.workspace_bytes(problem), workspace.size() * sizeof(double));
      uint32_t reference = 0;
      for (int threads : {1, 2, 3, 8}) {
        pool.SetThreads(threads);
        for (int repeat = 0; repeat < 3; ++repeat) {
          kCpuLossKernels.run(problem, {addresses, workspace.data(), nullptr});
          const uint32_t bits = BitCast<uint32_t>(out);
          if (threads == 1 && repeat == 0) reference = bits;
          EXPECT_EQ(bits, reference) << "family " << static_cast<int>(family) << " reduction "
                                     << static_cast<int>(reduction) << " threads " << threads;
        }
      }
    }
  }
  pool.SetThreads(original);
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
    LossProblem problem = FlatProblem(LossKind::kLoss, reduction, count);
    problem.family = LossFamily::kL1Loss;
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

}  // namespace
}  // namespace openaclnn
