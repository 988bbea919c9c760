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

// Log-probabilities for the KL divergence's log targets: e^t from tiny to large, with the
// exponential's edges (below -500 the estimate's clamp; above 88.7 fp32's overflow) and, element-
// wise only, infinities and NaN.
std::vector<float> LogTargets(std::mt19937& rng, int64_t count, bool finite) {
  std::uniform_real_distribution<float> uniform(-8.0f, 3.0f);
  const float specials[] = {0.0f, -0.0f, 1.0f, -90.0f, -600.0f, 95.0f, INFINITY, -INFINITY, NAN};
  std::vector<float> values(count);
  for (float& value : values) {
    const float special = specials[rng() % (finite ? 5 : 9)];
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
  int variant = 0;          // ElementParameters::variant (the KL divergence's log targets)
  int64_t divisor = 0;      // a gradient's divisor where not the default (0)
};

class CudaStepsMatchCpu : public ::testing::TestWithParam<Case> {};

TEST_P(CudaStepsMatchCpu, BitForBit) {
  const Case c = GetParam();
  std::mt19937 rng(11);
  // self [rows, cols] (or its transpose's storage), target like self, weight one value,
  // pos_weight [cols] broadcast over rows, grad_output like self.
  const bool finite = c.reduction != Reduction::kNone;
  const bool probabilities = c.family == LossFamily::kBinaryCrossEntropy;
  const bool kl_div = c.family == LossFamily::kKlDiv;
  const bool mse = c.family == LossFamily::kMseLoss;  // a target of any sign and size
  const bool weighted = c.family != LossFamily::kL1Loss && !kl_div && !mse && !c.unweighted;
  const std::vector<uint32_t> self = Storage(
      probabilities ? Values(rng, kCount, 0, 1, finite) : Values(rng, kCount, -40, 40, finite),
      c.type);
  const std::vector<uint32_t> target = Storage(c.variant != 0 ? LogTargets(rng, kCount, finite)
                                               : mse          ? Values(rng, kCount, -40, 40, finite)
                                                              : Values(rng, kCount, 0, 1, finite),
                                               c.type);
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
  // as element-wise), and the KL divergence's gradients of a reduced loss are summed back into
  // [rows] (a segment per row), divided by N, by rows (batchmean) or by 1 (sum).
  if (c.kind == LossKind::kLoss && c.reduction != Reduction::kNone) problem.segment = kCount;
  const bool summed_back = c.kind != LossKind::kLoss && c.reduction != Reduction::kNone;
  if (summed_back) problem.segment = kCols;
  if ((c.reduction == Reduction::kMean) ||
      (c.kind != LossKind::kLoss && c.layout == Layout::kContiguous && !summed_back)) {
    problem.parameters = DividedBy(kCount);
  }
  if (c.reduction == Reduction::kBatchMean) problem.parameters = DividedBy(kRows);
  if (c.divisor != 0) problem.parameters = DividedBy(c.divisor);
  problem.parameters.variant = c.variant;
  const int64_t row_major[] = {kCols, 1};
  const int64_t column_major[] = {1, kRows};
  const int64_t broadcast_rows[] = {0, 1};
  const int64_t summed_columns[] = {1, 0};  // out [rows]: each element sums its row
  const bool columns = c.layout == Layout::kColumnSums;
  if (columns) {  // [cols, rows], the rows summed: each column a segment
    problem.shape[0] = kCols;
    problem.shape[1] = kRows;
    problem.segment = kRows;
    problem.parameters = DividedBy(c.reduction == Reduction::kMean ? kRows : 1);
  }
  const int64_t by_columns[] = {1, kCols};  // row-major storage walked column by column
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
    if ((which == kWeight || which == kPosWeight) && !weighted) operand.slot = -1;
    if (which == kPosWeight && probabilities) operand.slot = -1;  // the family has none
    if (which == kGradSelfOut) {
      const int64_t* out_strides = c.layout == Layout::kStridedOut ? column_major : row_major;
      for (int d = 0; d < 2; ++d) operand.strides[d] = out_strides[d];
      continue;
    }
    if (which == kOut && (summed_back || columns)) {
      for (int d = 0; d < 2; ++d) operand.strides[d] = summed_columns[d];
      continue;
    }
    if (which == kOut && c.reduction != Reduction::kNone && !columns) {
      operand.offset = 3;  // one element, reached through the offset alone
      continue;
    }
    const int64_t* layout = !columns ? strides[which] : which == kOut ? summed_columns : by_columns;
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
          // The L1 family: its loss and self gradient; gradients divided by a power of two (an
          // exact product) and by divisors beyond the quotient's limit (the estimate's test,
          // and the exact path).
          if (kind != LossKind::kGradTarget) {
            cases.push_back({LossFamily::kL1Loss, kind, reduction, type, layout, false, true});
          }
          if (kind == LossKind::kGradSelf) {
            for (int64_t divisor : {int64_t{1} << 20, (int64_t{1} << 44) + 3}) {
              cases.push_back(
                  {LossFamily::kL1Loss, kind, reduction, type, layout, false, true, 0, divisor});
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

// The KL divergence family: its loss (every reduction, batchmean's divisor the rows) and both
// gradients (element-wise, or summed back into [rows]), both target kinds.
std::vector<Case> KlDivCases() {
  std::vector<Case> cases;
  for (LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
    for (Reduction reduction :
         {Reduction::kNone, Reduction::kMean, Reduction::kSum, Reduction::kBatchMean}) {
      for (FloatType type : {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16}) {
        for (Layout layout : {Layout::kContiguous, Layout::kTransposedSelf, Layout::kStridedOut}) {
          if (layout == Layout::kStridedOut && reduction != Reduction::kNone) continue;
          for (int variant : {0, 1}) {
            cases.push_back(
                {LossFamily::kKlDiv, kind, reduction, type, layout, false, true, variant});
          }
        }
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CudaStepsMatchCpu, ::testing::ValuesIn(AllCases()));
INSTANTIATE_TEST_SUITE_P(KlDiv, CudaStepsMatchCpu, ::testing::ValuesIn(KlDivCases()));

// An integer problem (L1Loss whose inputs promote to INT64): int64 self against a broadcast int32
// target, wrapping differences and sums, stored as integers or rounded once to a floating out.
struct IntegerCase {
  Reduction reduction;
  IntegerType out_integer;  // kInt64, or kNone: a floating out of `out_type`
  FloatType out_type;
};

class CudaIntegerStepsMatchCpu : public ::testing::TestWithParam<IntegerCase> {};

TEST_P(CudaIntegerStepsMatchCpu, BitForBit) {
  const IntegerCase c = GetParam();
  std::mt19937_64 rng(5);
  const int64_t edges[] = {0, 1, -1, std::numeric_limits<int64_t>::max(),
                           std::numeric_limits<int64_t>::min()};
  std::vector<int64_t> self(kCount);
  for (int64_t& value : self)
    value = rng() % 8 == 0 ? edges[rng() % 5] : static_cast<int64_t>(rng());
  std::vector<int32_t> target(kCols);
  for (int32_t& value : target) value = static_cast<int32_t>(rng());
  LossProblem problem;
  problem.family = LossFamily::kL1Loss;
  problem.integer = true;
  problem.rank = 2;
  problem.shape[0] = kRows;
  problem.shape[1] = kCols;
  problem.count = kCount;
  if (c.reduction != Reduction::kNone) problem.segment = kCount;
  const int64_t row_major[] = {kCols, 1}, broadcast_rows[] = {0, 1};
  problem.operands[kSelf] = {.slot = kSelf, .integer = IntegerType::kInt64};
  problem.operands[kTarget] = {.slot = kTarget, .integer = IntegerType::kInt32};
  problem.operands[kOut] = {.slot = kOut, .type = c.out_type, .integer = c.out_integer};
  for (int d = 0; d < 2; ++d) {
    problem.operands[kSelf].strides[d] = row_major[d];
    problem.operands[kTarget].strides[d] = broadcast_rows[d];
    problem.operands[kOut].strides[d] = c.reduction == Reduction::kNone ? row_major[d] : 0;
  }
  std::vector<int64_t> cpu_out(kCount, 0), cuda_out(kCount, 0);  // 8 bytes per element
  const size_t workspace_words = ReductionWorkspaceBytesFor(kCount) / sizeof(double);
  std::vector<double> cpu_workspace(workspace_words), cuda_workspace(workspace_words);
  const auto context = [&](std::vector<int64_t>& out, std::vector<double>& workspace) {
    LaunchContext launch;
    launch.addresses = {self.data(), target.data(), nullptr, nullptr, nullptr, out.data(), nullptr};
    launch.workspace = workspace.data();
    return launch;
  };
  ASSERT_EQ(kCpuLossKernels.run(problem, context(cpu_out, cpu_workspace)), nullptr);
  RunAsCuda(problem, context(cuda_out, cuda_workspace));
  EXPECT_EQ(cuda_out, cpu_out);
  EXPECT_NE(cpu_out[0], 0);
}

INSTANTIATE_TEST_SUITE_P(
    L1Int64, CudaIntegerStepsMatchCpu,
    ::testing::Values(IntegerCase{Reduction::kNone, IntegerType::kInt64, FloatType::kFloat32},
                      IntegerCase{Reduction::kSum, IntegerType::kInt64, FloatType::kFloat32},
                      IntegerCase{Reduction::kNone, IntegerType::kNone, FloatType::kFloat32},
                      IntegerCase{Reduction::kNone, IntegerType::kNone, FloatType::kFloat16},
                      IntegerCase{Reduction::kSum, IntegerType::kNone, FloatType::kBFloat16}));

}  // namespace
}  // namespace openaclnn
