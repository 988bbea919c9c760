// The CUDA kernels' steps (backends/cuda/loss_kernels_cuda_block.h: strided reads, the element
// formula, stores, lane sums, the block fold and the combine; class_axis_cuda_steps.h: the
// class-axis kernel's threads, block folds and finish) run here as host code, in the order the GPU
// runs them, and must give the CPU backend's bits for every kind, reduction, dtype and layout. What
// this cannot cover (the GPU's own arithmetic, the vector loads) scripts/gpu-check.sh does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../kernels/mean_gradient_boundaries.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/class_axis_cuda_steps.h"
#include "backends/cuda/loss_kernels_cuda_block.h"
#include "kernels/class_axis_problem.h"
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
  double parameter = 0.0;   // the family's attribute (ElementParameters)
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
  const bool mse = c.family == LossFamily::kMseLoss;             // a target of any sign and size
  const bool margins = c.family == LossFamily::kSoftMarginLoss;  // targets any real, not [0, 1]
  const bool weighted =
      c.family != LossFamily::kL1Loss && !kl_div && !mse && !margins && !c.unweighted;
  const std::vector<uint32_t> self = Storage(
      probabilities ? Values(rng, kCount, 0, 1, finite) : Values(rng, kCount, -40, 40, finite),
      c.type);
  const std::vector<uint32_t> target = Storage(c.variant != 0 ? LogTargets(rng, kCount, finite)
                                               : mse          ? Values(rng, kCount, -40, 40, finite)
                                               : margins      ? Values(rng, kCount, -5, 5, finite)
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
  problem.parameters.parameter = c.parameter;
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
    if (which == kWeight || which == kPosWeight) {  // the smooth L1 family has neither
      if (c.family == LossFamily::kSmoothL1Loss) operand.slot = -1;
    }
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

// The smooth L1 family's attributes (ElementParameters' parameter and variant) the cases take.
constexpr struct {
  double parameter;
  int variant;
} kSmoothL1Attributes[] = {{1.0, 0}, {0.0, 0}, {0.5, 0}, {1.5, 1}, {HUGE_VAL, 1}};

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
          // The smooth L1 family, both variants, the attribute's edges (beta 0 is L1; an
          // infinite delta is quadratic everywhere).
          for (const auto& a : kSmoothL1Attributes) {
            cases.push_back({LossFamily::kSmoothL1Loss, kind, reduction, type, layout, false, true,
                             a.variant, 0, a.parameter});
          }
          // The binary cross entropy family: its loss and self gradient, weighted or not.
          if (kind != LossKind::kGradTarget) {
            for (bool unweighted : {false, true}) {
              cases.push_back({LossFamily::kBinaryCrossEntropy, kind, reduction, type, layout,
                               false, unweighted});
            }
            // The soft margin family (no weights): its loss and self gradient.
            cases.push_back(
                {LossFamily::kSoftMarginLoss, kind, reduction, type, layout, false, true});
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

// A mean's gradients on and beside the midpoints of their output type
// (tests/unit/kernels/mean_gradient_boundaries.h), divided by N = 3, 5, 7 and a large odd one, as
// the CUDA kernels' steps compute them: bitwise the CPU backend's, and each the exact quotient
// rounded once (the GMP oracle). Each family's gradients, and the with-logits fused pass (a mean's
// loss, over as many elements as N, summed; its gradient stored).
TEST(CudaStepsMatchCpuOnBoundaries, AMeansGradientIsTheQuotientRoundedOnce) {
  const struct {
    GradientForm form;
    LossFamily family;
    LossKind kind;
    bool fused;
  } routes[] = {
      {GradientForm::kWithLogitsSelf, LossFamily::kBceWithLogits, LossKind::kGradSelf, false},
      {GradientForm::kWithLogitsSelf, LossFamily::kBceWithLogits, LossKind::kLoss, true},
      {GradientForm::kWithLogitsTarget, LossFamily::kBceWithLogits, LossKind::kGradTarget, false},
      {GradientForm::kProbabilitySelf, LossFamily::kBinaryCrossEntropy, LossKind::kGradSelf,
       false}};
  int64_t checked = 0;
  uint32_t seed = 200;
  for (const auto& [form, family, kind, fused] : routes) {
    for (const BoundarySpec& spec : BoundarySpecs(form)) {
      if (fused && spec.grad_output) continue;  // a mean's loss: one gradOutput for all
      const std::vector<BoundaryCase> cases = BoundaryCases(spec, 8, seed++);
      if (cases.empty()) continue;
      const auto count = static_cast<int64_t>(cases.size());
      std::vector<float> columns[kOut];
      for (const BoundaryCase& c : cases) {
        const float values[kOut] = {c.in.x, c.in.t, c.in.w, c.in.p, c.in.g};
        for (int which = kSelf; which < kOut; ++which) columns[which].push_back(values[which]);
      }
      std::vector<uint32_t> storage[kOut];
      LossProblem problem;
      problem.family = family;
      problem.kind = kind;
      problem.rank = 1;
      problem.shape[0] = count;
      problem.count = count;
      if (fused) problem.segment = count;  // the loss's total
      problem.parameters = DividedBy(spec.divisor);
      for (int which = kSelf; which < kOut; ++which) {
        const bool absent = which == kPosWeight || (which == kWeight && !spec.weighted) ||
                            (which == kGradOutput && !spec.grad_output) ||
                            (which == kTarget && kind == LossKind::kGradTarget);
        if (absent) continue;
        storage[which] = Storage(columns[which], spec.input);
        problem.operands[which] = {which, spec.input, IntegerType::kNone, 0, {1}};
      }
      const int gradient = fused ? kGradSelfOut : kOut;
      problem.operands[gradient] = {gradient, spec.output, IntegerType::kNone, 0, {1}};
      if (fused) problem.operands[kOut] = {kOut, spec.output, IntegerType::kNone, 0, {}};
      const size_t workspace_words = ReductionWorkspaceBytesFor(count) / sizeof(double);
      std::vector<uint32_t> outs[2][2];  // CPU, CUDA: out, gradient
      std::vector<double> partials[2];
      LaunchContext launches[2];
      for (int backend = 0; backend < 2; ++backend) {
        outs[backend][0].assign(count, 0);
        outs[backend][1].assign(count, 0);
        partials[backend].assign(workspace_words, 0.0);
        for (int which = kSelf; which < kOut; ++which) {
          launches[backend].addresses[which] = storage[which].data();
        }
        launches[backend].addresses[kOut] = outs[backend][0].data();
        launches[backend].addresses[kGradSelfOut] = outs[backend][1].data();
        launches[backend].workspace = partials[backend].data();
      }
      ASSERT_EQ(kCpuLossKernels.run(problem, launches[0]), nullptr);
      RunAsCuda(problem, launches[1]);
      const std::vector<uint32_t>& cpu = outs[0][fused ? 1 : 0];
      const std::vector<uint32_t>& device = outs[1][fused ? 1 : 0];
      for (int64_t i = 0; i < count; ++i) {
        const float got = LoadAs32(device.data(), spec.output, i);
        ASSERT_EQ(BitCast<uint32_t>(got), BitCast<uint32_t>(LoadAs32(cpu.data(), spec.output, i)))
            << "element " << i << " N " << spec.divisor;
        const float expected = ExpectedGradient(form, cases[i].in, spec.divisor, spec.output);
        ASSERT_EQ(BitCast<uint32_t>(got), BitCast<uint32_t>(expected))
            << (cases[i].tie ? "tie" : "beside") << " " << i << " N " << spec.divisor;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 2000);
}

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

// The class-axis kernel (backends/cuda/class_axis_cuda_steps.h) as the GPU runs it: its kernels
// one after another, each thread block's threads in thread order, the blocks in block order.
const char* RunClassAxisAsCuda(const ClassAxisProblem& problem, const LaunchContext& context) {
  const int64_t blocks = cuda::ClassAxisBlocks(problem);
  std::vector<uint64_t> scratch((cuda::ClassAxisScratchBytes(blocks) + 7) / 8);
  const cuda::ClassAxisLaunch launch = cuda::MakeClassAxisLaunch(problem, context, scratch.data());
  if (class_axis::NeedsCountedWeights(problem)) {  // CountedWeightsKernel's atomic additions
    *launch.counted_weights = math::exact::ExactSum();
    for (int64_t thread = 0; thread < std::min(launch.Threads(), problem.positions); ++thread) {
      math::exact::ExactSum sum;
      cuda::AddCountedWeights(launch, thread, sum);
      launch.counted_weights->Add(sum);
    }
  }
  cuda::ComputeConstants(launch);  // ConstantsKernel
  WithClassAxisFamily(problem.family, [&](auto family) {
    using Family = decltype(family);
    std::vector<cuda::ClassAxisPartial> threads(cuda::kClassAxisThreads);
    for (int64_t block = 0; block < launch.blocks; ++block) {  // PositionsKernel
      for (int t = 0; t < cuda::kClassAxisThreads; ++t) {
        threads[t] =
            cuda::RunThread<Family>(launch, *launch.constants, block * cuda::kClassAxisThreads + t);
      }
      launch.partials[block] = cuda::Folded(threads.data(), cuda::kClassAxisThreads);
    }
    cuda::Finish<Family>(launch);  // FinishKernel
  });
  return launch.fault->Any() ? class_axis::FaultText(problem, *launch.fault) : nullptr;
}

struct ClassAxisCase {
  LossFamily family;
  LossKind kind;
  Reduction reduction;
  FloatType type;
  bool weighted = true;
  double smoothing = 0.0;     // the cross entropy's
  bool spatial = false;       // self [N, C, D] with int32 targets [N, D] (NLLLoss2d's layout)
  bool out_of_range = false;  // two targets outside [0, C)
};

class CudaClassAxisStepsMatchCpu : public ::testing::TestWithParam<ClassAxisCase> {};

// Slots of the launch's tensors.
enum ClassAxisSlot { kSelfSlot, kTargetSlot, kWeightSlot, kOutSlot, kSecondSlot, kThirdSlot };

// 3 thread blocks (the last short) of positions with 7 classes each: a quarter of the rows hold
// a special (0, +-90, 3e7; inf and NaN unreduced), an eighth of the targets are ignored.
TEST_P(CudaClassAxisStepsMatchCpu, BitForBit) {
  const ClassAxisCase c = GetParam();
  constexpr int64_t kClasses = 7, kRowsN = 5, kDepth = 150;
  constexpr int64_t kIgnore = -100;
  const int64_t positions = c.spatial ? kRowsN * kDepth : 700;
  std::mt19937 rng(23);
  const bool finite = c.reduction != Reduction::kNone;
  const bool gradient = c.kind == LossKind::kGradSelf;
  const bool cross_entropy = c.family == LossFamily::kCrossEntropy;
  // A gradient's self is the cross entropy's log-probabilities (mostly <= 0).
  const std::vector<uint32_t> self =
      Storage(Values(rng, positions * kClasses, gradient ? -12.0f : -10.0f, gradient ? 0.5f : 10.0f,
                     finite),
              c.type);
  std::vector<int64_t> targets(positions);
  for (int64_t& t : targets) t = rng() % 8 == 0 ? kIgnore : static_cast<int64_t>(rng() % kClasses);
  if (c.out_of_range) targets[500] = -5, targets[301] = kClasses;
  std::vector<int32_t> targets32(targets.begin(), targets.end());
  const std::vector<uint32_t> weight = Storage(Values(rng, kClasses, 0.25f, 3.0f, true), c.type);
  const std::vector<uint32_t> grad = Storage(Values(rng, positions, -2.0f, 2.0f, true), c.type);
  const std::vector<uint32_t> total_weight = Storage({412.5f}, c.type);

  ClassAxisProblem problem;
  problem.family = c.family;
  problem.kind = c.kind;
  problem.reduction = c.reduction;
  problem.classes = kClasses;
  problem.ignore_index = kIgnore;
  problem.label_smoothing = c.smoothing;
  problem.positions = positions;
  problem.rank = c.spatial ? 2 : 1;
  if (c.spatial) problem.shape[0] = kRowsN, problem.shape[1] = kDepth;
  if (!c.spatial) problem.shape[0] = positions;
  // self-shaped: [N, C] (class stride 1) or [N, C, D] (class stride D); per position: contiguous.
  const auto self_shaped = [&](int which, int slot) {
    problem.operands[which] = {.slot = slot, .type = c.type};
    problem.operands[which].strides[0] = c.spatial ? kClasses * kDepth : kClasses;
    problem.operands[which].strides[1] = c.spatial ? 1 : 0;
    problem.class_strides[which] = c.spatial ? kDepth : 1;
  };
  const auto per_position = [&](int which, int slot) {
    problem.operands[which] = {.slot = slot, .type = c.type};
    problem.operands[which].strides[0] = c.spatial ? kDepth : 1;
    problem.operands[which].strides[1] = c.spatial ? 1 : 0;
  };
  self_shaped(kSelf, kSelfSlot);
  per_position(kTarget, kTargetSlot);
  problem.operands[kTarget].integer = c.spatial ? IntegerType::kInt32 : IntegerType::kInt64;
  if (c.weighted) {
    problem.operands[kWeight] = {.slot = kWeightSlot, .type = c.type};
    problem.class_strides[kWeight] = 1;
  }
  const bool unreduced = c.reduction == Reduction::kNone;
  if (gradient) {
    self_shaped(kOut, kOutSlot);
    if (unreduced) per_position(kGradOutput, kSecondSlot);
    if (!unreduced) problem.operands[kGradOutput] = {.slot = kSecondSlot, .type = c.type};
    if (!cross_entropy) problem.operands[kTotalWeight] = {.slot = kThirdSlot, .type = c.type};
  } else {
    if (unreduced) per_position(kOut, kOutSlot);
    if (!unreduced) problem.operands[kOut] = {.slot = kOutSlot, .type = c.type};
    if (cross_entropy) self_shaped(kLogProbOut, kThirdSlot);
    if (!cross_entropy) problem.operands[kTotalWeightOut] = {.slot = kSecondSlot, .type = c.type};
  }

  // Outputs start as the same garbage, so that an element one side leaves alone shows.
  const size_t words = static_cast<size_t>(positions * kClasses);
  std::vector<uint32_t> cpu_out(words, 0xabababab), cuda_out = cpu_out;
  std::vector<uint32_t> cpu_second(words, 0xcdcdcdcd), cuda_second = cpu_second;
  std::vector<uint32_t> cpu_third(words, 0xefefefef), cuda_third = cpu_third;
  const auto context = [&](std::vector<uint32_t>& out, std::vector<uint32_t>& second,
                           std::vector<uint32_t>& third) {
    LaunchContext launch;
    launch.addresses = {const_cast<uint32_t*>(self.data()),
                        c.spatial ? static_cast<void*>(targets32.data()) : targets.data(),
                        const_cast<uint32_t*>(weight.data()),
                        out.data(),
                        gradient ? const_cast<uint32_t*>(grad.data()) : second.data(),
                        gradient ? const_cast<uint32_t*>(total_weight.data()) : third.data(),
                        nullptr,
                        nullptr};
    return launch;
  };
  const char* cpu =
      kCpuLossKernels.run_class_axis(problem, context(cpu_out, cpu_second, cpu_third));
  const std::string cpu_fault = cpu != nullptr ? cpu : "";
  const char* gpu = RunClassAxisAsCuda(problem, context(cuda_out, cuda_second, cuda_third));
  EXPECT_EQ(gpu != nullptr ? gpu : "", cpu_fault);
  EXPECT_EQ(cpu_fault.empty(), !c.out_of_range);
  if (c.out_of_range) {
    EXPECT_NE(cpu_fault.find("target 7 of position 301 "), std::string::npos);
  }
  EXPECT_EQ(cuda_out, cpu_out);
  EXPECT_EQ(cuda_second, cpu_second);
  EXPECT_EQ(cuda_third, cpu_third);
  EXPECT_NE(cpu_out[0], 0xababababu);  // written
}

std::vector<ClassAxisCase> ClassAxisCases() {
  constexpr LossFamily kNll = LossFamily::kNllLoss, kCe = LossFamily::kCrossEntropy;
  constexpr LossKind kLoss = LossKind::kLoss, kGrad = LossKind::kGradSelf;
  constexpr Reduction kNone = Reduction::kNone, kMean = Reduction::kMean, kSum = Reduction::kSum;
  std::vector<ClassAxisCase> cases;
  for (FloatType type : {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16}) {
    for (Reduction reduction : {kNone, kSum, kMean}) {
      cases.push_back({kNll, kLoss, reduction, type});
      cases.push_back({kNll, kGrad, reduction, type});
      cases.push_back({kCe, kLoss, reduction, type, true, reduction == kSum ? 0.0 : 0.1});
      cases.push_back({kCe, kGrad, reduction, type, true, reduction == kSum ? 0.1 : 0.0});
    }
    cases.push_back({kNll, kLoss, kMean, type, false, 0.0, true});
    cases.push_back({kCe, kLoss, kNone, type, false, 0.1, true});
    cases.push_back({kCe, kGrad, kMean, type, false, 0.1});
  }
  cases.push_back({kNll, kLoss, kMean, FloatType::kFloat32, true, 0.0, false, true});
  cases.push_back({kNll, kGrad, kNone, FloatType::kFloat16, true, 0.0, true, true});
  cases.push_back({kCe, kLoss, kNone, FloatType::kFloat32, true, 0.1, false, true});
  cases.push_back({kCe, kGrad, kMean, FloatType::kBFloat16, true, 0.0, false, true});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(NllAndCrossEntropy, CudaClassAxisStepsMatchCpu,
                         ::testing::ValuesIn(ClassAxisCases()));

}  // namespace
}  // namespace openaclnn
