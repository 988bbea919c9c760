// A mean's gradients, RN(g f' / N), on and beside the midpoints of their output type
// (tests/unit/kernels/mean_gradient_boundaries.h) through each family's CPU tiles: on every SIMD
// target of this CPU, bitwise the scalar definition and the exact rational oracle, for every
// kind that divides by N: the self and target gradients, and the with-logits fused pass (a mean's
// loss summed, its gradient stored). Each case shares its SIMD vector with lanes that settle at
// once. And the divisors whose fl64 reciprocal is a power of two though they are not one.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "../../kernels/mean_gradient_boundaries.h"
#include "backends/cpu/tile_math.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"
#include "kernels/strided_operand.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn {
namespace {

using TileFunction = Partial (*)(LossKind kind, const ElementParameters& parameters,
                                 const TileInputs& inputs, int64_t count, const TileOutput& output,
                                 bool sum, const TileOutput& gradient);

// A kind of a family's tile that divides by N, and the form of its rational cases.
struct Route {
  const char* name;
  GradientForm form;
  LossKind kind;
  bool fused;  // kind kLoss: the loss summed, the self gradient stored
  TileFunction simd, scalar;
};
const Route kRoutes[] = {
    {"with logits, self gradient", GradientForm::kWithLogitsSelf, LossKind::kGradSelf, false,
     EvaluateTile, EvaluateTileScalar},
    {"with logits, fused loss and self gradient", GradientForm::kWithLogitsSelf, LossKind::kLoss,
     true, EvaluateTile, EvaluateTileScalar},
    {"with logits, target gradient", GradientForm::kWithLogitsTarget, LossKind::kGradTarget, false,
     EvaluateTile, EvaluateTileScalar},
    {"probabilities, self gradient", GradientForm::kProbabilitySelf, LossKind::kGradSelf, false,
     EvaluateBinaryCrossEntropyTile, EvaluateBinaryCrossEntropyTileScalar},
};

// The elements' operands, each a column of `type` (4 bytes an element hold any type); weight and
// gradOutput absent where they are 1 throughout, pos_weight always (p = 1).
struct Columns {
  std::vector<uint32_t> data[kOut];
  TileInputs inputs;
};
Columns ColumnsOf(const std::vector<ElementInputs>& elements, FloatType type, bool weighted,
                  bool grad_output) {
  Columns columns;
  for (int which = kSelf; which < kOut; ++which) {
    const bool absent = which == kPosWeight || (which == kWeight && !weighted) ||
                        (which == kGradOutput && !grad_output);
    if (absent) continue;
    columns.data[which].resize(elements.size());
    for (size_t i = 0; i < elements.size(); ++i) {
      const ElementInputs& in = elements[i];
      const float values[kOut] = {in.x, in.t, in.w, in.p, in.g};
      StoreFrom32(columns.data[which].data(), type, static_cast<int64_t>(i), values[which]);
    }
    columns.inputs.operand[which] = {columns.data[which].data(), type, false};
  }
  return columns;
}

// The route's results of the tile, stored as `type` (the fused pass's gradients).
std::vector<float> RunRoute(const Route& route, TileFunction tile,
                            const ElementParameters& parameters, const Columns& columns,
                            int64_t count, FloatType type) {
  std::vector<uint32_t> out(static_cast<size_t>(count));
  if (route.fused) {
    tile(LossKind::kLoss, parameters, columns.inputs, count, {nullptr, type}, true,
         {out.data(), type});
  } else {
    tile(route.kind, parameters, columns.inputs, count, {out.data(), type}, false, {});
  }
  std::vector<float> values(out.size());
  for (int64_t i = 0; i < count; ++i) values[i] = LoadAs32(out.data(), type, i);
  return values;
}

// A lane that settles at once beside a case: the same rational form off the boundaries (t = 0.3,
// or x times 1.3, in the inputs' type).
ElementInputs Ordinary(const ElementInputs& in, GradientForm form, FloatType type, int k) {
  ElementInputs other = in;
  if (form == GradientForm::kWithLogitsTarget) {
    other.x = static_cast<float>(RoundRational(Rational(in.x * (1.3f + 0.1f * k)), type));
  } else {
    other.t = static_cast<float>(RoundRational(Rational(0.3f + 0.05f * k), type));
  }
  return other;
}

TEST(MeanGradientTiles, EveryTargetRoundsTheQuotientOnceOnAndBesideMidpoints) {
  for (const Route& route : kRoutes) {
    BoundaryTally tally;
    int64_t mismatches = 0;
    uint32_t seed = 100;
    for (const BoundarySpec& spec : BoundarySpecs(route.form)) {
      if (route.fused && spec.grad_output) continue;  // a mean's loss: one gradOutput for all
      const std::vector<BoundaryCase> cases = BoundaryCases(spec, 24, seed++);
      if (cases.empty()) continue;
      std::vector<ElementInputs> elements;
      for (const BoundaryCase& c : cases) {
        elements.push_back(c.in);
        for (int k = 0; k < 3; ++k) elements.push_back(Ordinary(c.in, spec.form, spec.input, k));
      }
      const auto count = static_cast<int64_t>(elements.size());
      const Columns columns = ColumnsOf(elements, spec.input, spec.weighted, spec.grad_output);
      const ElementParameters parameters = DividedBy(spec.divisor);
      const std::vector<float> scalar =
          RunRoute(route, route.scalar, parameters, columns, count, spec.output);
      for (int64_t targets = hwy::SupportedTargets(); targets != 0; targets &= targets - 1) {
        hwy::SetSupportedTargetsForTest(targets & -targets);
        const std::vector<float> simd =
            RunRoute(route, route.simd, parameters, columns, count, spec.output);
        for (int64_t i = 0; i < count; ++i) {
          if (BitCast<uint32_t>(simd[i]) != BitCast<uint32_t>(scalar[i]) && mismatches++ == 0) {
            ADD_FAILURE() << route.name << " on " << EvaluateTileTarget() << ": element " << i
                          << " differs from the scalar definition, N " << spec.divisor;
          }
          if (i % 4 == 0) {
            Tally(tally, spec, cases[i / 4], simd[i]);
          } else if (simd[i] !=
                     ExpectedGradient(spec.form, elements[i], spec.divisor, spec.output)) {
            ++tally.wrong;  // an ordinary lane
          }
        }
      }
      hwy::SetSupportedTargetsForTest(0);
    }
    std::cout << route.name << ": " << tally.ties << " ties, " << tally.besides
              << " beside them (over every target), " << tally.wrong << " wrong\n";
    EXPECT_EQ(tally.wrong, 0) << route.name << ": first " << tally.first_wrong;
    EXPECT_EQ(mismatches, 0) << route.name;
    EXPECT_GT(tally.ties, 0) << route.name;
  }
}

// fl64(1/N) is a power of two for N = 2^k + 1 above 2^53 (2^-k, the quotient's rounding), though
// g f' / N is not g f' 2^-k: the target gradient without weights, -x g / N, whose fast paths take
// -x g times an exact scale for the result (fp32 lanes, ExactGradTargetInFp32; the fp64 path's
// exact products), must not take it there. x g = 2^k m for a midpoint m = M 2^e with M = 3 mod 4:
// -x g / N lies just inside m, where m itself would round away to the even neighbour.
TEST(MeanGradientTiles, ADivisorWhoseReciprocalRoundsToAPowerOfTwoIsNoPowerOfTwo) {
  std::mt19937_64 rng(5);
  const struct {
    FloatType input, output;
  } types[] = {{FloatType::kFloat32, FloatType::kFloat32},
               {FloatType::kFloat32, FloatType::kFloat16},
               {FloatType::kFloat32, FloatType::kBFloat16},
               {FloatType::kBFloat16, FloatType::kBFloat16}};
  int64_t wrong = 0, checked = 0;
  for (const int k : {54, 60, 62}) {
    const int64_t divisor = (int64_t{1} << k) + 1;
    ASSERT_EQ(DividedBy(divisor).scale, std::ldexp(1.0, -k)) << "N = 2^" << k << " + 1";
    for (const auto& [input, output] : types) {
      const int in_bits = FormatOf(input).precision, out_bits = FormatOf(output).precision + 1;
      std::vector<ElementInputs> elements;
      while (elements.size() < 64) {
        // M = a b, a and b odd of at most in_bits each; x = a 2^i, g = -b 2^j.
        const uint64_t a =
            boundaries::OddIn(rng, 1, (uint64_t{1} << std::min(in_bits, out_bits - 1)) - 1);
        const uint64_t low = ((uint64_t{1} << (out_bits - 1)) + a - 1) / a;
        const uint64_t b = boundaries::OddIn(
            rng, low, std::min(((uint64_t{1} << out_bits) - 1) / a, (uint64_t{1} << in_bits) - 1));
        if (b == 0 || (a * b) % 4 != 3) continue;
        // m about 2^s, s in [-2, 2]: x g = M 2^(s - out_bits + 1 + k), shared between x and g.
        const int s = static_cast<int>(rng() % 5) - 2, total = s - out_bits + 1 + k;
        const int i = total / 2 - boundaries::BitLength(a),
                  j = total - total / 2 + boundaries::BitLength(a);
        ElementInputs in;
        in.x = static_cast<float>(std::ldexp(static_cast<double>(a), i));
        in.g = static_cast<float>(std::ldexp(-static_cast<double>(b), j));
        if (!OfType(in.x, input) || !OfType(in.g, input)) continue;
        elements.push_back(in);
      }
      const Columns columns = ColumnsOf(elements, input, false, true);
      const auto count = static_cast<int64_t>(elements.size());
      const Route& target = kRoutes[2];
      const std::vector<float> scalar =
          RunRoute(target, target.scalar, DividedBy(divisor), columns, count, output);
      for (int64_t targets = hwy::SupportedTargets(); targets != 0; targets &= targets - 1) {
        hwy::SetSupportedTargetsForTest(targets & -targets);
        const std::vector<float> simd =
            RunRoute(target, target.simd, DividedBy(divisor), columns, count, output);
        for (int64_t e = 0; e < count; ++e) {
          const float expected =
              ExpectedGradient(GradientForm::kWithLogitsTarget, elements[e], divisor, output);
          ++checked;
          if (simd[e] == expected && scalar[e] == expected) continue;
          if (wrong++ == 0) {
            ADD_FAILURE() << EvaluateTileTarget() << " N = 2^" << k << " + 1, input "
                          << static_cast<int>(input) << " output " << static_cast<int>(output)
                          << std::hexfloat << ": x " << elements[e].x << " g " << elements[e].g
                          << " got " << simd[e] << " (scalar " << scalar[e] << "), expected "
                          << expected;
          }
        }
      }
      hwy::SetSupportedTargetsForTest(0);
    }
  }
  std::cout << checked << " results, " << wrong << " wrong\n";
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace openaclnn
