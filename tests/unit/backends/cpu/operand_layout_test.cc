// Operands read through strides: a transposed or otherwise permuted view gives, element for
// element, what the scalar definition gives on the values it addresses, and a reduction over it
// the bits of the same values laid out contiguously.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/operand_plan.h"
#include "backends/cpu/transpose.h"
#include "hwy/targets.h"
#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"

namespace openaclnn {
namespace {

bool SameFloat(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

// A problem over `shape` whose self and target are views of `storage`-sized buffers with
// `strides`; out contiguous (or one element when reduced).
struct ViewCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // self's and target's, in elements
  int64_t storage;               // elements each input buffer holds
  FloatType type;
};

LossProblem ViewProblem(const ViewCase& view, LossKind kind, Reduction reduction) {
  LossProblem problem;
  problem.kind = kind;
  problem.rank = static_cast<int>(view.shape.size());
  problem.count = 1;
  for (int d = problem.rank - 1; d >= 0; --d) {
    problem.shape[d] = view.shape[d];
    problem.operands[kOut].strides[d] = reduction == Reduction::kNone ? problem.count : 0;
    problem.count *= view.shape[d];
  }
  if (reduction != Reduction::kNone) problem.segment = problem.count;
  problem.parameters = DividedBy(reduction == Reduction::kMean ? problem.count : 1);
  for (int which : {kSelf, kTarget}) {
    problem.operands[which].slot = which;
    problem.operands[which].type = view.type;
    for (int d = 0; d < problem.rank; ++d) problem.operands[which].strides[d] = view.strides[d];
  }
  problem.operands[kOut].slot = kOut;
  return problem;
}

// Input storage of the view's dtype: random values (fp32), widened exactly for the reference.
struct Storage {
  std::vector<float> wide;     // the values as the kernel widens them
  std::vector<uint16_t> bits;  // fp32 bits (two per value) or fp16/bf16 bits
  void* data() { return bits.data(); }
};

Storage MakeStorage(std::mt19937& rng, int64_t count, FloatType type, float low, float high) {
  std::uniform_real_distribution<float> uniform(low, high);
  Storage storage;
  storage.wide.resize(count);
  storage.bits.resize(type == FloatType::kFloat32 ? 2 * count : count);
  for (int64_t i = 0; i < count; ++i) {
    const float value = uniform(rng);
    if (type == FloatType::kFloat32) {
      std::memcpy(storage.bits.data() + 2 * i, &value, sizeof value);
      storage.wide[i] = value;
    } else {
      const uint16_t narrow =
          type == FloatType::kFloat16 ? FloatToFloat16(value) : FloatToBFloat16(value);
      storage.bits[i] = narrow;
      storage.wide[i] =
          type == FloatType::kFloat16 ? Float16ToFloat(narrow) : BFloat16ToFloat(narrow);
    }
  }
  return storage;
}

// The storage element that flat (row-major) index `flat` of the view reads.
int64_t ElementOf(const ViewCase& view, int64_t flat) {
  int64_t element = 0;
  for (int d = static_cast<int>(view.shape.size()) - 1; d >= 0; --d) {
    element += (flat % view.shape[d]) * view.strides[d];
    flat /= view.shape[d];
  }
  return element;
}

std::string Describe(const ViewCase& view) {
  std::string text = "shape [";
  for (int64_t size : view.shape) text += std::to_string(size) + " ";
  text += "] strides [";
  for (int64_t stride : view.strides) text += std::to_string(stride) + " ";
  return text + "] type " + std::to_string(static_cast<int>(view.type));
}

const ViewCase kViews[] = {
    // [R, C] views of [C, R] storage: C wider and narrower than a block, full and partial rows.
    {{1000, 100}, {1, 1000}, 100'000, FloatType::kFloat32},
    {{5001, 3}, {1, 5001}, 15'003, FloatType::kFloat32},
    {{7, 4099}, {1, 7}, 28'693, FloatType::kFloat32},
    {{999, 37}, {1, 999}, 36'963, FloatType::kFloat16},
    {{999, 37}, {1, 999}, 36'963, FloatType::kBFloat16},
    // Every other element of each column (rows at stride 2), and a rank-3 permutation.
    {{400, 30}, {2, 800}, 24'000, FloatType::kFloat32},
    {{3, 300, 50}, {15'000, 1, 300}, 45'000, FloatType::kFloat32},
};

TEST(OperandLayout, ViewsWhoseRowsLieCloserAreCopiedByColumns) {
  for (const ViewCase& view : kViews) {
    const LossProblem problem = ViewProblem(view, LossKind::kLoss, Reduction::kNone);
    EXPECT_EQ(cpu::PlanOperand(problem.operands[kSelf], problem).access, cpu::Access::kColumns)
        << Describe(view);
  }
}

TEST(OperandLayout, TransposedViewsGiveTheScalarDefinitionPerElement) {
  std::mt19937 rng(11);
  for (const ViewCase& view : kViews) {
    Storage x = MakeStorage(rng, view.storage, view.type, -20.0f, 20.0f);
    Storage t = MakeStorage(rng, view.storage, view.type, 0.0f, 1.0f);
    for (LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
      const LossProblem problem = ViewProblem(view, kind, Reduction::kNone);
      std::vector<float> out(problem.count);
      LossProblem fp32_out = problem;
      fp32_out.operands[kOut].type = FloatType::kFloat32;
      const TensorAddresses addresses{x.data(), t.data(), nullptr, nullptr, nullptr, out.data()};
      kCpuLossKernels.run(fp32_out, {addresses, nullptr, nullptr});
      int mismatches = 0;
      for (int64_t i = 0; i < problem.count && mismatches < 5; ++i) {
        ElementInputs in;
        in.x = x.wide[ElementOf(view, i)];
        in.t = t.wide[ElementOf(view, i)];
        const float expected = BceElement(kind, ElementParameters{}, in, FloatType::kFloat32);
        if (!SameFloat(out[i], expected)) {
          ++mismatches;
          ADD_FAILURE() << Describe(view) << " kind " << static_cast<int>(kind) << " element " << i
                        << ": " << out[i] << " vs " << expected;
        }
      }
    }
  }
}

TEST(OperandLayout, ReductionsOverTransposedViewsKeepTheRowMajorOrder) {
  std::mt19937 rng(12);
  for (const ViewCase& view : kViews) {
    if (view.type != FloatType::kFloat32) continue;
    Storage x = MakeStorage(rng, view.storage, view.type, -20.0f, 20.0f);
    Storage t = MakeStorage(rng, view.storage, view.type, 0.0f, 1.0f);
    const LossProblem strided = ViewProblem(view, LossKind::kLoss, Reduction::kSum);
    // The same values gathered into row-major order, read as one flat run.
    std::vector<float> flat_x(strided.count), flat_t(strided.count);
    for (int64_t i = 0; i < strided.count; ++i) {
      flat_x[i] = x.wide[ElementOf(view, i)];
      flat_t[i] = t.wide[ElementOf(view, i)];
    }
    LossProblem flat = strided;
    flat.rank = 1;
    flat.shape[0] = strided.count;
    for (int which : {kSelf, kTarget, kOut}) {
      std::memset(flat.operands[which].strides, 0, sizeof flat.operands[which].strides);
      flat.operands[which].strides[0] = which == kOut ? 0 : 1;
    }
    std::vector<double> workspace(ReductionWorkspaceBytesFor(strided.count) / sizeof(double));
    float strided_sum = 0.0f, flat_sum = 0.0f;
    kCpuLossKernels.run(
        strided,
        {{x.data(), t.data(), nullptr, nullptr, nullptr, &strided_sum}, workspace.data(), nullptr});
    kCpuLossKernels.run(flat, {{flat_x.data(), flat_t.data(), nullptr, nullptr, nullptr, &flat_sum},
                               workspace.data(),
                               nullptr});
    EXPECT_TRUE(SameFloat(strided_sum, flat_sum))
        << Describe(view) << ": " << strided_sum << " vs " << flat_sum;
  }
}

// Every (rows, columns) up to past two AVX-512 widths, on every SIMD target of this CPU: each
// value lands where the definition puts it, and nothing outside the rows x columns window of
// `to` is written.
TEST(OperandLayout, TransposeFloatsMovesEveryValueOnEveryTarget) {
  constexpr int64_t kMax = 37, kPad = 3;
  const float kUntouched = -1.0f;
  for (int64_t bits = hwy::SupportedTargets(); bits != 0; bits &= bits - 1) {
    hwy::SetSupportedTargetsForTest(bits & -bits);
    for (int64_t rows = 0; rows <= kMax; ++rows) {
      for (int64_t columns = 0; columns <= kMax; ++columns) {
        const int64_t from_stride = rows + kPad, to_stride = columns + kPad;
        std::vector<float> from(columns * from_stride + kPad);
        for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<float>(i);
        std::vector<float> to(rows * to_stride + kPad, kUntouched);
        cpu::TransposeFloats(from.data(), from_stride, rows, columns, to.data(), to_stride);
        int mismatches = 0;
        for (int64_t i = 0; i < static_cast<int64_t>(to.size()) && mismatches < 3; ++i) {
          const int64_t row = i / to_stride, column = i % to_stride;
          const bool inside = row < rows && column < columns;
          const float expected = inside ? from[column * from_stride + row] : kUntouched;
          if (to[i] != expected) {
            ++mismatches;
            ADD_FAILURE() << hwy::TargetName(bits & -bits) << " rows " << rows << " columns "
                          << columns << " at " << row << "," << column << ": " << to[i] << " vs "
                          << expected;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace openaclnn
