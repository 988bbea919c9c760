// The CUDA kernels' steps (backends/cuda/loss_kernels_cuda_block.h: strided reads, the element
// formula, stores, lane sums, the block fold and the combine) run here as host code, in the order
// the GPU runs them, and must give the CPU backend's bits for every kind, reduction, dtype and
// layout. What this cannot cover (the GPU's own arithmetic, the vector loads) scripts/gpu-check.sh
// does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/loss_kernels_cuda_block.h"
#include "kernels/loss_problem.h"

namespace openaclnn {
namespace {

constexpr int64_t kRows = 67;  // with kCols: 3 blocks and a short one
constexpr int64_t kCols = 211;
constexpr int64_t kCount = kRows * kCols;

// Runs the problem the way the CUDA kernels do, one thread's work after another.
void RunAsCuda(const LossProblem& problem, const LaunchContext& context) {
  const cuda::DeviceLaunch launch = cuda::MakeDeviceLaunch(problem, context);
  if (problem.integer) {  // IntegerKernel and FinishIntegerKernel
    uint64_t sum = 0;
    for (int64_t i = 0; i < problem.count; ++i) {
      const int64_t value = cuda::IntegerAt(launch, i);
      if (problem.Reduces()) {
        sum += static_cast<uint64_t>(value);
      } else {
        cuda::WriteIntegerAt(launch, cuda::ElementAt(launch, kOut, i), value);
      }
    }
    if (problem.Reduces()) {
      cuda::WriteIntegerAt(launch, launch.operand[kOut].layout.offset, static_cast<int64_t>(sum));
    }
    return;
  }
  if (!problem.Reduces()) {  // ElementwiseKernel
    for (int64_t i = 0; i < problem.count; ++i) {
      cuda::WriteAt(launch, i, cuda::EvaluateAt(launch, i));
      if (cuda::Fused(launch)) cuda::WriteGradientAt(launch, i);
    }
    return;
  }
  if (!problem.Total()) {  // SegmentsKernel
    for (int64_t i = 0; i < problem.count / problem.segment; ++i) cuda::SegmentAt(launch, i);
    return;
  }
  // BlockPartialsKernel: each block's terms, then their values and bounds summed by lanes.
  const int64_t blocks = ReductionBlocks(problem.count);
  std::vector<double> values(kReductionBlock), bounds(kReductionBlock);
  const auto partials = [&](bool fp64_terms) {
    for (int64_t block = 0; block < blocks; ++block) {
      const int length = cuda::BlockLength(launch, block);
      for (int i = 0; i < length; ++i) {
        const Partial term = cuda::TermAt(launch, block * kReductionBlock + i, fp64_terms);
        values[i] = term.sum, bounds[i] = term.bound;
        if (!fp64_terms && cuda::Fused(launch)) {
          cuda::WriteGradientAt(launch, block * kReductionBlock + i);
        }
      }
      double value_lanes[kBlockLanes], bound_lanes[kBlockLanes];
      for (int lane = 0; lane < kBlockLanes; ++lane) {
        value_lanes[lane] = cuda::LaneSum(values.data(), length, lane);
        bound_lanes[lane] = cuda::LaneSum(bounds.data(), length, lane);
      }
      launch.workspace.partials[block] = {FoldLanes(value_lanes), FoldLanes(bound_lanes)};
    }
    cuda::FinishReduction(launch, fp64_terms);
  };
  partials(false);
  if (*launch.workspace.next_pass == ReductionPass::kFp64Terms) partials(true);
  if (*launch.workspace.next_pass != ReductionPass::kExact) return;
  for (int64_t block = 0; block < blocks; ++block) {  // ExactPartialsKernel's atomic additions
    math::exact::ExactSum sum;
    cuda::AddExactTerms(launch, block * kReductionBlock, cuda::BlockLength(launch, block), sum);
    launch.workspace.exact->Add(sum);
  }
  cuda::FinishExactReduction(launch);
}

// Storage of `count` elements of `type` holding `values` (rounded to the type).
std::vector<uint32_t> Storage(const std::vector<float>& values, FloatType type) {
  std::vector<uint32_t> words(values.size());  // 4 bytes per element is enough for any type
  for (size_t i = 0; i < values.size(); ++i) StoreFrom32(words.data(), type, i, values[i]);
  return words;
}

// Probabilities for the binary cross entropy family: uniform in [0, 1] with its edges, halves,
// tiny values (a clamped log), 1 - 2^-24, and (element-wise only) values outside [0, 1] and NaN.
std::vector<float> Probabilities(std::mt19937& rng, int64_t count, bool finite) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  const float specials[] = {0.0f, 1.0f, 0.5f, 1e-30f, 1e-44f, 0x1.fffffep-1f, -0.25f, NAN};
  std::vector<float> values(count);
  for (float& value : values) {
    const float special = specials[rng() % (finite ? 6 : 8)];
    value = rng() % 16 == 0 ? special : uniform(rng);
  }
  return values;
}

// Uniform values with specials sprinkled in. `finite` (for sums) keeps out inf and NaN, which
// would make every sum inf or NaN, and brings in 3e7 instead of 3e38: beside the tiny losses
// of t = 0, it spreads a lane's values over more than fp64's 53 bits, so that the sum's rounding
// depends on its order.
std::vector<float> Values(std::mt19937& rng, int64_t count, float low, float high, bool finite) {
  std::uniform_real_distribution<float> uniform(low, high);
  if (low == 0 && high == 1) return Probabilities(rng, count, finite);
  const float specials[] = {0.0f, -0.0f, 1.0f, 90.0f, -90.0f, 3.0e38f, INFINITY, NAN};
  const float finite_specials[] = {0.0f, -0.0f, 1.0f, 90.0f, -90.0f, 3.0e7f};
  std::vector<float> values(count);
  for (float& value : values) {
    const float special = finite ? finite_specials[rng() % 6] : specials[rng() % 8];
    value = rng() % 16 == 0 ? special : uniform(rng);
  }
  return values;
}

// kColumnSums: a mean or sum of each column into out [cols] (aclnnMseLossOut's reduction over
// dimension 0): segments of kRows elements, the summed dimension innermost, as the plans order it.
enum class Layout { kContiguous, kTransposedSelf, kStridedOut, kColumnSums };

struct Case {
  LossFamily family;
  LossKind kind;
  Reduction reduction;
  FloatType type;
  Layout layout;
  bool fused;               // the one-pass loss and self gradient (kind kLoss)
  bool unweighted = false;  // weight and pos_weight absent
};

class CudaStepsMatchCpu : public ::testing::TestWithParam<Case> {};

TEST_P(CudaStepsMatchCpu, BitForBit) {
  const Case c = GetParam();
  std::mt19937 rng(11);
  // self [rows, cols] (or its transpose's storage), target like self, weight one value,
  // pos_weight [cols] broadcast over rows, grad_output like self.
  const bool finite = c.reduction != Reduction::kNone;
  const bool probabilities = c.family == LossFamily::kBinaryCrossEntropy;
  const bool mse = c.family == LossFamily::kMseLoss;  // a target of any sign and size
  const std::vector<uint32_t> self = Storage(
      probabilities ? Values(rng, kCount, 0, 1, finite) : Values(rng, kCount, -40, 40, finite),
      c.type);
  const std::vector<uint32_t> target = Storage(
      mse ? Values(rng, kCount, -40, 40, finite) : Values(rng, kCount, 0, 1, finite), c.type);
  const std::vector<uint32_t> weight = Storage({0.75f}, c.type);
  const std::vector<uint32_t> pos_weight = Storage(Values(rng, kCols, 0, 3, finite), c.type);
  const std::vector<uint32_t> grad = Storage(Values(rng, kCount, -2, 2, finite), c.type);
  LossProblem problem;
  problem.family = c.family;
  problem.kind = c.kind;
  problem.rank = 2;
  problem.shape[0] = kRows;
  problem.shape[1] = kCols;
  problem.count = kCount;
  // A loss's mean or sum is a total; a gradient of a mean loss is divided by N (the ops plan it
  // as element-wise).
  if (c.kind == LossKind::kLoss && c.reduction != Reduction::kNone) problem.segment = kCount;
  if ((c.kind == LossKind::kLoss && c.reduction == Reduction::kMean) ||
      (c.kind != LossKind::kLoss && c.layout == Layout::kContiguous)) {
    problem.parameters = DividedBy(kCount);
  }
  const bool columns = c.layout == Layout::kColumnSums;
  if (columns) {  // [cols, rows], the rows summed: each column a segment
    problem.shape[0] = kCols;
    problem.shape[1] = kRows;
    problem.segment = kRows;
    problem.parameters = DividedBy(c.reduction == Reduction::kMean ? kRows : 1);
  }
  const int64_t row_major[] = {kCols, 1};
  const int64_t column_major[] = {1, kRows};
  const int64_t broadcast_rows[] = {0, 1};
  const int64_t by_columns[] = {1, kCols};  // row-major storage walked column by column
  const int64_t column_sums[] = {1, 0};
  const int64_t* strides[kOperandCount] = {
      c.layout == Layout::kTransposedSelf ? column_major : row_major,
      row_major,
      nullptr,
      broadcast_rows,
      row_major,
      c.layout == Layout::kStridedOut ? column_major : row_major};
  // Every operand up to out, and for the fused pass its second output, laid out as an element-wise
  // out (and its gradOutput).
  const int last = c.fused ? kGradSelfOut : kOut;
  for (int which = 0; which <= last; ++which) {
    StridedOperand& operand = problem.operands[which];
    operand.slot = which;
    operand.type = c.type;
    if (which == kGradOutput && c.kind == LossKind::kLoss && !c.fused) operand.slot = -1;
    if ((which == kWeight || which == kPosWeight) && c.unweighted) operand.slot = -1;
    if (which == kPosWeight && probabilities) operand.slot = -1;  // the family has none
    if (which == kGradSelfOut) {
      const int64_t* out_strides = c.layout == Layout::kStridedOut ? column_major : row_major;
      for (int d = 0; d < 2; ++d) operand.strides[d] = out_strides[d];
      continue;
    }
    if (which == kOut && c.reduction != Reduction::kNone && !columns) {
      operand.offset = 3;  // one element, reached through the offset alone
      continue;
    }
    const int64_t* layout = !columns ? strides[which] : which == kOut ? column_sums : by_columns;
    for (int d = 0; d < 2 && layout != nullptr; ++d) operand.strides[d] = layout[d];
  }
  std::vector<uint32_t> cpu_out(kCount, 0), cuda_out(kCount, 0);
  std::vector<uint32_t> cpu_gradient(kCount, 0), cuda_gradient(kCount, 0);
  const size_t workspace_words = ReductionWorkspaceBytesFor(kCount) / sizeof(double);
  std::vector<double> cpu_partials(workspace_words), cuda_partials(workspace_words);
  const auto context = [&](std::vector<uint32_t>& out, std::vector<uint32_t>& gradient,
                           std::vector<double>& partials) {
    LaunchContext launch;
    launch.addresses = {const_cast<uint32_t*>(self.data()),
                        const_cast<uint32_t*>(target.data()),
                        const_cast<uint32_t*>(weight.data()),
                        const_cast<uint32_t*>(pos_weight.data()),
                        const_cast<uint32_t*>(grad.data()),
                        out.data(),
                        gradient.data()};
    launch.workspace = partials.data();
    return launch;
  };
  ASSERT_EQ(kCpuLossKernels.run(problem, context(cpu_out, cpu_gradient, cpu_partials)), nullptr);
  RunAsCuda(problem, context(cuda_out, cuda_gradient, cuda_partials));
  const auto bits = [&](const std::vector<uint32_t>& out, int64_t i) {
    const float value = LoadAs32(out.data(), c.type, i);
    return std::isnan(value) ? 0x7fc00000u : BitCast<uint32_t>(value);  // any NaN is NaN
  };
  int64_t checked = 0;
  for (int64_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(bits(cuda_out, i), bits(cpu_out, i)) << "element " << i;
    checked += bits(cpu_out, i) != 0;
  }
  EXPECT_GT(checked, 0) << "the case wrote nothing";
  for (int64_t i = 0; i < kCount && c.fused; ++i) {
    ASSERT_EQ(bits(cuda_gradient, i), bits(cpu_gradient, i)) << "gradient element " << i;
  }
  // The result is rounded to fp32 or narrower, which would hide most fp64 order differences:
  // the blocks' fp64 partials (sums and bounds) themselves must agree.
  const size_t partial_words = 2 * static_cast<size_t>(ReductionBlocks(kCount));
  for (size_t word = 0; word < partial_words && problem.Total(); ++word) {
    const double cpu = cpu_partials[word], device = cuda_partials[word];
    if (std::isnan(cpu) && std::isnan(device)) continue;  // a bound over a non-finite input
    ASSERT_EQ(BitCast<uint64_t>(device), BitCast<uint64_t>(cpu)) << "word " << word;
  }
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  constexpr LossFamily kWithLogits = LossFamily::kBceWithLogits;
  for (LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
    for (Reduction reduction : {Reduction::kNone, Reduction::kMean, Reduction::kSum}) {
      if (kind != LossKind::kLoss && reduction != Reduction::kNone) continue;  // as the ops
      for (FloatType type : {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16}) {
        for (Layout layout : {Layout::kContiguous, Layout::kTransposedSelf, Layout::kStridedOut}) {
          if (layout == Layout::kStridedOut && reduction != Reduction::kNone) continue;
          cases.push_back({kWithLogits, kind, reduction, type, layout, false});
          if (kind == LossKind::kLoss) {
            cases.push_back({kWithLogits, kind, reduction, type, layout, true});
          }
          // Means and sums without weights: another formula for 16-bit terms (BceLossTerm32),
          // in the fused pass too.
          if (kind == LossKind::kLoss && reduction != Reduction::kNone) {
            cases.push_back({kWithLogits, kind, reduction, type, layout, false, true});
            cases.push_back({kWithLogits, kind, reduction, type, layout, true, true});
          }
          // The binary cross entropy family: its loss and self gradient, weighted or not.
          if (kind != LossKind::kGradTarget) {
            for (bool unweighted : {false, true}) {
              cases.push_back({LossFamily::kBinaryCrossEntropy, kind, reduction, type, layout,
                               false, unweighted});
            }
          }
          // The MSE family (no weights): its loss and self gradient; MseLossOut's column sums.
          if (kind != LossKind::kGradTarget) {
            cases.push_back({LossFamily::kMseLoss, kind, reduction, type, layout, false, true});
          }
          if (kind == LossKind::kLoss && reduction != Reduction::kNone &&
              layout == Layout::kContiguous) {
            cases.push_back(
                {LossFamily::kMseLoss, kind, reduction, type, Layout::kColumnSums, false, true});
          }
        }
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CudaStepsMatchCpu, ::testing::ValuesIn(AllCases()));

}  // namespace
}  // namespace openaclnn
