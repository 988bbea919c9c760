// Rounding of the mean and sum through the CPU backend (its blocks, the combine, the total's
// rounding test, the fp64 and the exact pass): each total is compared with the exact total rounded
// once (binary128_oracle.h), on random sets, on totals next to a midpoint of the output type, and
// with the fused pass's gradient; and element results and totals built to lie next to a rounding
// boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "base/dtype.h"
#include "kernels/loss_problem.h"
#include "rounding_harness.h"

namespace openaclnn {
namespace {

// The mean or sum of the loss over `inputs` (every operand of `type`), through the CPU backend:
// its blocks, the combine, the total's rounding test and, where that fails, the fp64 pass and the
// exact pass. With `passes`: which of those two ran, read off the workspace. With `gradient`: the
// fused pass, which stores there the self gradient (of `type`, gradOutput 1) beside the total.
struct Passes {
  bool fp64_terms = false, exact = false;
};
double Reduce(const std::vector<Input>& inputs, FloatType type, Reduction reduction,
              Passes* passes = nullptr, std::vector<uint16_t>* gradient = nullptr) {
  const auto count = static_cast<int64_t>(inputs.size());
  std::vector<float> columns[kOut];
  for (const Input& in : inputs) {
    const float values[kOut] = {in.x, in.t, in.w, in.p, in.g};
    for (int which = 0; which < kOut; ++which) columns[which].push_back(values[which]);
  }
  std::vector<uint16_t> storage[kOut];
  LossProblem problem;
  problem.kind = LossKind::kLoss;
  problem.rank = 1;
  problem.shape[0] = count;
  problem.count = count;
  problem.segment = count;  // a total
  problem.parameters = DividedBy(reduction == Reduction::kMean ? count : 1);
  TensorAddresses addresses{};
  for (int which = kSelf; which < kGradOutput; ++which) {
    storage[which] = Storage(columns[which], type);
    problem.operands[which].slot = which;
    problem.operands[which].type = type;
    problem.operands[which].strides[0] = 1;
    addresses[which] = storage[which].data();
  }
  std::vector<uint16_t> out(2);
  problem.operands[kOut].slot = kOut;
  problem.operands[kOut].type = type;
  addresses[kOut] = out.data();
  if (gradient != nullptr) {
    gradient->assign(static_cast<size_t>(count) * (type == FloatType::kFloat32 ? 2 : 1), 0);
    problem.operands[kGradSelfOut].slot = kGradSelfOut;
    problem.operands[kGradSelfOut].type = type;
    problem.operands[kGradSelfOut].strides[0] = 1;
    addresses[kGradSelfOut] = gradient->data();
  }
  // NaN everywhere: an exact sum the exact pass did not write stays NaN's bits.
  std::vector<double> workspace(ReductionWorkspaceBytesFor(count) / sizeof(double),
                                std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(kCpuLossKernels.run(problem, {addresses, workspace.data(), nullptr}), nullptr);
  if (passes != nullptr) {
    const ReductionWorkspace areas = ReductionWorkspaceAt(workspace.data(), count);
    // fp32 terms' bounds are 2^-20 of their values, fp64 terms' about 2^-43.
    passes->fp64_terms = areas.partials[0].bound < 0x1p-30 * std::fabs(areas.partials[0].sum);
    passes->exact = !std::isnan(*reinterpret_cast<const double*>(areas.exact));
  }
  return Load(out, type, 0);
}

// A block with an infinite term (a loss of +inf, say) makes the total that infinity, not the NaN
// of double-double arithmetic's inf - inf; opposite infinities or a NaN make it NaN.
TEST(ReductionTotals, InfiniteTermsGiveTheirInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto settled = [](std::vector<Partial> partials, int64_t divisor) {
    double value = 0.0;
    EXPECT_TRUE(SettleReduction(partials.data(), static_cast<int64_t>(partials.size()), divisor,
                                FloatType::kFloat32, 0x1p-43, &value));
    return value;
  };
  EXPECT_EQ(settled({{1.5, 0.0}, {inf, nan}, {-3.0, 0.0}}, 1), inf);
  EXPECT_EQ(settled({{-inf, nan}, {2.0, 0.0}}, 7), -inf);
  EXPECT_TRUE(std::isnan(settled({{inf, nan}, {-inf, nan}}, 1)));
  EXPECT_TRUE(std::isnan(settled({{inf, nan}, {nan, nan}, {1.0, 0.0}}, 3)));
}

class ReductionRounding : public testing::TestWithParam<FloatType> {};

// Sums of 257 and means of 256 random losses: 2000 independent totals of each (200 under the
// sanitizers).
TEST_P(ReductionRounding, RandomSumsAndMeansAreTheExactTotalRoundedOnce) {
  const FloatType type = GetParam();
  for (const auto& [reduction, length] :
       {std::pair{Reduction::kSum, 257}, {Reduction::kMean, 256}}) {
    const std::vector<Input> inputs =
        InType(RandomInputs(99 + length, 2000 / kSampleScale * length), type);
    Quality quality;
    for (size_t begin = 0; begin < inputs.size(); begin += length) {
      const std::vector<Input> block(inputs.begin() + static_cast<int64_t>(begin),
                                     inputs.begin() + static_cast<int64_t>(begin + length));
      Record(quality, Reduce(block, type, reduction), ExactReduction(block, reduction), type);
    }
    ExpectEveryResultRounded(quality, std::string(reduction == Reduction::kSum ? "sum" : "mean") +
                                          " of " + std::to_string(length) + " losses " +
                                          TypeName(type));
  }
}

// A term of zero weight: exactly +0 beside any other, so that one element's total is a sum of two,
// which the kernels reduce (one element alone is its own result, RN(term / N), with no sum).
constexpr Input kZeroTerm{1.0f, 0.5f, 0.0f, 1.0f, 1.0f};

// 16-bit totals of 16-bit terms (BceLossTerm32, each within about 2^-22 of its value) whose
// exact value lies within 4 fp32 ulps of a midpoint of the type, where the fp32 estimate often
// lies on the other side of it: the bounds must send them to the exact pass. One element beside a
// zero term, and the same element among 5000 (a sum) or 8192 (a mean) of zero weight: two blocks,
// exact +0 terms.
TEST(ReductionRounding16, TotalsNearAMidpointAreTheExactTotalRoundedOnce) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::mt19937 rng(20261204);
    const std::vector<Input> near_midpoints = WeightedLossesNearMidpoints(type, rng);
    ASSERT_GT(near_midpoints.size(), 200 / kSampleScale) << TypeName(type);
    Quality alone;
    for (const Input& in : near_midpoints) {
      Record(alone, Reduce({in, kZeroTerm}, type, Reduction::kSum),
             ExactReduction({in, kZeroTerm}, Reduction::kSum), type);
    }
    ExpectEveryResultRounded(alone, std::string("sum of one next to a midpoint ") + TypeName(type));
    // Where the fp32 terms leave a total open (many of these), the fp64 terms settle it: the exact
    // pass, a thousand times slower, stays as rare as for fp32 results.
    int64_t fp64_passes = 0, exact_passes = 0;
    for (const Input& in : near_midpoints) {
      Passes passes;
      Reduce({in, kZeroTerm}, type, Reduction::kSum, &passes);
      fp64_passes += passes.fp64_terms;
      exact_passes += passes.exact;
    }
    std::cout << TypeName(type) << ": of " << near_midpoints.size() << " totals, " << fp64_passes
              << " took the fp64 pass and " << exact_passes << " the exact pass\n";
    EXPECT_GT(fp64_passes, static_cast<int64_t>(near_midpoints.size()) / 10) << TypeName(type);
    EXPECT_LE(exact_passes, fp64_passes / 100) << TypeName(type);
    for (const Reduction reduction : {Reduction::kSum, Reduction::kMean}) {
      Quality among;
      for (size_t i = 0; i < near_midpoints.size(); i += 64) {  // the long form is slow to build
        std::vector<Input> spread(reduction == Reduction::kMean ? 8192 : 5000, kZeroTerm);
        spread[4100] = near_midpoints[i];
        Record(among, Reduce(spread, type, reduction), ExactReduction(spread, reduction), type);
      }
      const std::string name = reduction == Reduction::kSum ? "sum" : "mean";
      ExpectEveryResultRounded(among, name + " of one among zero weights " + TypeName(type));
    }
  }
}

// The fused pass of a 16-bit mean or sum adds the same fp32 terms (SumsFp32Terms), and its
// gradient is the self gradient's: totals next to a midpoint (as above) and random means of 256,
// each total and every gradient element the exact one rounded once; the open totals take the fp64
// pass (which stores no gradient again) before any exact pass, and the random means' first pass
// settles nearly all of them (with fp64 terms from the start, all would read as fp64 ones).
TEST(ReductionRounding16, FusedTotalsAndGradientsAreRoundedOnce) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::mt19937 rng(20261202);
    const std::vector<Input> near_midpoints = WeightedLossesNearMidpoints(type, rng);
    Quality totals, gradients;
    int64_t fp64_passes = 0, exact_passes = 0;
    const auto check = [&](const std::vector<Input>& inputs, Reduction reduction) {
      Passes passes;
      std::vector<uint16_t> gradient;
      Record(totals, Reduce(inputs, type, reduction, &passes, &gradient),
             ExactReduction(inputs, reduction), type);
      fp64_passes += passes.fp64_terms;
      exact_passes += passes.exact;
      const auto count = static_cast<Quad>(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) {
        Input in = inputs[i];
        in.g = 1.0f;  // the fused pass has no gradOutput
        Exact exact = ExactGradSelf(in);
        if (reduction == Reduction::kMean) exact = {exact.hi / count, exact.lo / count};
        Record(gradients, Load(gradient, type, i), exact, type);
      }
    };
    for (const Input& in : near_midpoints) check({in, kZeroTerm}, Reduction::kSum);
    const int64_t near_fp64_passes = fp64_passes;
    const std::vector<Input> random = InType(RandomInputs(7, 256 * 200 / kSampleScale), type);
    for (size_t begin = 0; begin < random.size(); begin += 256) {
      check({random.begin() + static_cast<int64_t>(begin),
             random.begin() + static_cast<int64_t>(begin + 256)},
            Reduction::kMean);
    }
    ExpectEveryResultRounded(totals, std::string("fused totals ") + TypeName(type));
    ExpectEveryResultRounded(gradients, std::string("fused gradients ") + TypeName(type));
    EXPECT_GT(near_fp64_passes, static_cast<int64_t>(near_midpoints.size()) / 10) << TypeName(type);
    EXPECT_LT(fp64_passes - near_fp64_passes, 200 / kSampleScale / 10) << TypeName(type);
    EXPECT_LE(exact_passes, fp64_passes / 100) << TypeName(type);
  }
}

// ---- Inputs built to lie next to a rounding boundary: an exactly representable main part on a
// midpoint of the output type (a product of inputs, exact in fp64), plus a tiny transcendental
// rest (exp(-|x|) for large |x|) that decides the direction; or, with no rest, the exact midpoint
// itself (ties to even).

// Whether v (exact in double) is a midpoint between two values of `type`.
bool IsMidpoint(double v, FloatType type) {
  return RoundedOnce({v, 1e-300}, type) != RoundedOnce({v, -1e-300}, type);
}

// `count` inputs (values of `type`) for which `main(in)`, exact in double, is a midpoint of
// `type`, drawn by `draw`; the first ones `seeds`.
template <class Draw, class Main>
std::vector<Input> NearMidpoints(FloatType type, size_t count, std::vector<Input> seeds, Draw draw,
                                 Main main) {
  std::mt19937 rng(static_cast<uint32_t>(count) + static_cast<uint32_t>(type));
  std::vector<Input> found;
  for (const Input& in : seeds) found.push_back(in);
  for (int tries = 0; found.size() < count && tries < 1000000; ++tries) {
    Input in = draw(rng);
    in.x = InTypeValue(in.x, type), in.t = InTypeValue(in.t, type);
    in.w = InTypeValue(in.w, type), in.p = InTypeValue(in.p, type);
    in.g = InTypeValue(in.g, type);
    if (IsMidpoint(main(in), type)) found.push_back(in);
  }
  EXPECT_EQ(found.size(), count) << "too few inputs on midpoints";
  return found;
}

class BoundaryRounding : public testing::TestWithParam<FloatType> {};

TEST_P(BoundaryRounding, ResultsNextToAMidpointAreRoundedTheRightWay) {
  const FloatType type = GetParam();
  const size_t count = 2000 / kSampleScale;
  std::uniform_real_distribution<float> large(17.0f, 80.0f), unit(0.0f, 1.0f);
  const float factors[] = {1.5f, 0.75f, 3.0f, 1.25f, 2.5f, 0.625f};
  auto factor = [&](std::mt19937& rng) { return factors[rng() % 6]; };
  const std::vector<Input> none;
  // The example: x = 33.890377, t = 0, w = 1.5 is 50.8355675 correctly rounded.
  const std::vector<Input> example =
      type == FloatType::kFloat32 ? std::vector<Input>{{33.890377f, 0.0f, 1.5f, 1.0f, 1.0f}} : none;
  struct BoundaryCase {
    const char* name;
    LossKind kind;
    std::vector<Input> inputs;
    bool unweighted = false;  // weight and pos_weight absent (the tile's unweighted evaluator)
  };
  const BoundaryCase cases[] = {
      // t = 0, x > 0: w*x + w*log1p(exp(-x)), above the midpoint w*x.
      {"loss t=0", LossKind::kLoss,
       NearMidpoints(
           type, count, example,
           [&](std::mt19937& rng) {
             return Input{large(rng), 0.0f, factor(rng), 1.0f, 1.0f};
           },
           [](const Input& in) { return double{in.w} * in.x; })},
      // t = 1, x < 0: w*p*|x| + w*p*log1p(exp(x)).
      {"loss t=1", LossKind::kLoss,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{-large(rng), 1.0f, factor(rng), factor(rng), 1.0f};
           },
           [](const Input& in) { return double{in.w} * in.p * -in.x; })},
      // t = 0, x > 0: g*w*(1 - sigmoid(-x)), below the midpoint g*w.
      {"grad_self t=0", LossKind::kGradSelf,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{large(rng), 0.0f, 1.0f + unit(rng), 1.0f, factor(rng)};
           },
           [](const Input& in) { return double{in.g} * in.w; })},
      // t = 1, x < 0: -g*w*p*(1 - sigmoid(x)).
      {"grad_self t=1", LossKind::kGradSelf,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{-large(rng), 1.0f, 1.0f + unit(rng), factor(rng), factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.w * in.p; })},
      // p = 1: exactly -g*w*x, on the midpoint itself (ties to even).
      {"grad_target p=1", LossKind::kGradTarget,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{8.0f * unit(rng) - 4.0f, 0.5f, factor(rng), 1.0f, factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.w * in.x; })},
      // Without weights: -g*x, exact in fp64 and rounded from it directly, on the midpoint.
      {"grad_target unweighted", LossKind::kGradTarget,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{8.0f * unit(rng) - 4.0f, 0.5f, 1.0f, 1.0f, factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.x; }),
       true},
      // x > 0, p = 2: -g*w*x + g*w*log1p(exp(-x)).
      {"grad_target p=2", LossKind::kGradTarget,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{large(rng), 0.5f, factor(rng), 2.0f, factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.w * in.x; })},
  };
  for (const BoundaryCase& c : cases) {
    const std::vector<double> got = Evaluate(c.kind, c.inputs, type, nullptr, c.unweighted);
    Quality quality;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      Record(quality, got[i], ExactOf(c.kind, c.inputs[i]), type);
    }
    ExpectEveryResultRounded(quality, std::string(c.name) + " next to midpoints " + TypeName(type));
  }
}

// Totals whose main part x1 + x2 (t = 0) is a midpoint: the rest, log1p(exp(-x1)) +
// log1p(exp(-x2)), decides. Two elements, and the same two 4500 apart (two blocks) among
// zero-weight elements.
TEST_P(BoundaryRounding, TotalsNextToAMidpointAreRoundedTheRightWay) {
  const FloatType type = GetParam();
  const size_t count = 400 / kSampleScale;
  std::uniform_real_distribution<float> large(17.0f, 60.0f);
  // The example: the sum over x = [46.0028343, 39.6106033], t = 0, is 85.6134415.
  const std::vector<Input> example = type == FloatType::kFloat32
                                         ? std::vector<Input>{{46.0028343f, 0.0f, 1.0f, 1.0f, 1.0f},
                                                              {39.6106033f, 0.0f, 1.0f, 1.0f, 1.0f}}
                                         : std::vector<Input>{};
  // Pairs as consecutive inputs: the draw makes x2, and the main part needs x1, the pair's first.
  std::vector<Input> pairs = example;
  std::mt19937 rng(5);
  while (pairs.size() < 2 * count) {
    const Input first{InTypeValue(large(rng), type), 0.0f, 1.0f, 1.0f, 1.0f};
    const Input second{InTypeValue(large(rng), type), 0.0f, 1.0f, 1.0f, 1.0f};
    if (!IsMidpoint(double{first.x} + second.x, type)) continue;
    pairs.push_back(first);
    pairs.push_back(second);
  }
  for (const Reduction reduction : {Reduction::kSum, Reduction::kMean}) {
    Quality two, spread;
    for (size_t i = 0; i < pairs.size(); i += 2) {
      const std::vector<Input> pair = {pairs[i], pairs[i + 1]};
      Record(two, Reduce(pair, type, reduction), ExactReduction(pair, reduction), type);
      if (i % 16 != 0) continue;  // the long form is slow to build: every 8th pair
      std::vector<Input> apart(8192, Input{0.0f, 0.0f, 0.0f, 1.0f, 1.0f});
      apart[7] = pairs[i], apart[4507] = pairs[i + 1];
      Record(spread, Reduce(apart, type, reduction), ExactReduction(apart, reduction), type);
    }
    const std::string name = reduction == Reduction::kSum ? "sum" : "mean";
    ExpectEveryResultRounded(two, name + " of two next to midpoints " + TypeName(type));
    ExpectEveryResultRounded(spread, name + " of 8192 next to midpoints " + TypeName(type));
  }
}

const auto kTypes = testing::Values(FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16);
const auto kTypeName = [](const auto& param_info) {
  return std::string(TypeName(param_info.param));
};
INSTANTIATE_TEST_SUITE_P(Types, ReductionRounding, kTypes, kTypeName);
INSTANTIATE_TEST_SUITE_P(Types, BoundaryRounding, kTypes, kTypeName);

}  // namespace
}  // namespace openaclnn
