// Every op of the library's op table through the public API, timed per call as a user sees it:
// phase 1 + phase 2 + stream synchronisation (the binary cross entropies' rows, and each
// element-wise loss and its gradients, kOps). Also a STREAM-style bandwidth probe, so each run
// states the memory limit it ran against, and plain fp32 kernels of the rational losses'
// formulas (plain_fp32_kernels.h), the yardstick of what correct rounding costs. Threads:
// OPENACLNN_NUM_THREADS.
#include <benchmark/benchmark.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "openaclnn/op_table.h"
#include "plain_fp32_kernels.h"

namespace {

namespace bench = openaclnn::bench;

constexpr int64_t kClasses = 100;  // columns of the [N/100, 100] problems

enum Weights { kNoWeights, kFullWeight, kPerClass };
// kTransposed: self and target are transposed views, the output is contiguous; kAllTransposed:
// the output too (element-wise work is then visited in memory order).
enum Layout { kContiguous, kTransposed, kAllTransposed };

aclrtStream g_stream = nullptr;

// CPU seconds of every thread of this process. On a shared machine a neighbour stretches the
// wall-clock time of a run but hardly its CPU time, so CPU time per element compares two builds
// more steadily (it counts work, spinning waits included, and misses only the stalls a neighbour
// causes in shared caches and memory).
double ProcessCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Runs the timed loop of `call` and reports elements per second (wall clock) and CPU ns per
// element (all threads); stops at the first failing call.
template <class Call>
void TimeCalls(benchmark::State& state, int64_t count, Call&& call) {
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!call()) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    aclrtSynchronizeStream(g_stream);
  }
  const double elements = static_cast<double>(state.iterations() * count);
  state.SetItemsProcessed(state.iterations() * count);
  state.counters["cpu_ns_per_elem"] = 1e9 * (ProcessCpuSeconds() - cpu_start) / elements;
}

size_t SizeOf(aclDataType type) { return type == ACL_FLOAT ? 4 : 2; }

// Device memory filled with a ramp of values in [low, high), every page touched before timing.
void* Filled(int64_t count, aclDataType type, float low, float high) {
  void* data = nullptr;
  aclrtMalloc(&data, static_cast<size_t>(count) * SizeOf(type), ACL_MEM_MALLOC_HUGE_FIRST);
  std::vector<uint16_t> half(count);
  std::vector<float> full(count);
  for (int64_t i = 0; i < count; ++i) {
    full[i] = low + (high - low) * static_cast<float>((i * 7919) % 1000) / 1000.0f;
    half[i] = type == ACL_FLOAT16 ? aclFloatToFloat16(full[i])
                                  : static_cast<uint16_t>(std::bit_cast<uint32_t>(full[i]) >> 16);
  }
  const void* host = type == ACL_FLOAT ? static_cast<const void*>(full.data()) : half.data();
  const size_t bytes = static_cast<size_t>(count) * SizeOf(type);
  aclrtMemcpy(data, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  return data;
}

// A [rows, kClasses] tensor; transposed: a view of [kClasses, rows] storage.
aclTensor* Tensor(void* data, int64_t count, aclDataType type, Layout layout) {
  const int64_t rows = count / kClasses;
  const int64_t shape[] = {rows, kClasses};
  const int64_t contiguous[] = {kClasses, 1};
  const int64_t transposed[] = {1, rows};
  const int64_t storage[] = {kClasses, rows};
  const bool t = layout != kContiguous;
  return aclCreateTensor(shape, 2, type, t ? transposed : contiguous, 0, ACL_FORMAT_ND,
                         t ? storage : shape, 2, data);
}

using Roles = std::array<const aclTensor*, OPENACLNN_ROLE_COUNT>;

// The tensors of one benchmark by role, and their device memory, freed at the end.
class Operands {
 public:
  Operands() = default;
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;
  ~Operands() {
    for (aclTensor* tensor : owned_) aclDestroyTensor(tensor);
    for (void* data : data_) aclrtFree(data);
  }

  // A [count/100, 100] tensor of `role` holding a ramp of values in [low, high).
  void Full(openaclnnOperandRole role, int64_t count, aclDataType type, Layout layout, float low,
            float high) {
    Keep(role, Tensor(Data(count, type, low, high), count, type, layout));
  }
  // A [100] tensor (per class, broadcast over the rows).
  void PerClass(openaclnnOperandRole role, aclDataType type, float low, float high) {
    const int64_t classes[] = {kClasses}, one[] = {1};
    Keep(role, aclCreateTensor(classes, 1, type, one, 0, ACL_FORMAT_ND, classes, 1,
                               Data(kClasses, type, low, high)));
  }
  // A [1] tensor holding `value`.
  void One(openaclnnOperandRole role, aclDataType type, float value) {
    const int64_t one[] = {1};
    Keep(role,
         aclCreateTensor(one, 1, type, one, 0, ACL_FORMAT_ND, one, 1, Data(1, type, value, value)));
  }
  // A 0-D tensor holding `value`: a reduced loss, which some ops (aclnnMseLoss, aclnnL1Loss,
  // aclnnSoftMarginLoss) take only as 0-D, as CANN's do.
  void Scalar(openaclnnOperandRole role, aclDataType type, float value) {
    const int64_t one[] = {1};
    Keep(role, aclCreateTensor(nullptr, 0, type, nullptr, 0, ACL_FORMAT_ND, one, 1,
                               Data(1, type, value, value)));
  }

  Roles roles{};

 private:
  void* Data(int64_t count, aclDataType type, float low, float high) {
    data_.push_back(Filled(count, type, low, high));
    return data_.back();
  }
  void Keep(openaclnnOperandRole role, aclTensor* tensor) {
    owned_.push_back(tensor);
    roles[role] = tensor;
  }

  std::vector<aclTensor*> owned_;
  std::vector<void*> data_;
};

// The tensors `roles` gives `op`'s operands, in its API order.
std::vector<const aclTensor*> InApiOrder(const openaclnnOpDescriptor& op, const Roles& roles) {
  std::vector<const aclTensor*> operands;
  for (size_t i = 0; i < op.operandCount; ++i) operands.push_back(roles[op.operands[i].role]);
  return operands;
}

// Both phases of one op call, with a workspace when it asks for one (no synchronisation);
// whether both succeeded.
bool Call(const openaclnnOpDescriptor& op, const std::vector<const aclTensor*>& operands,
          int64_t reduction, void* workspace) {
  uint64_t bytes = 0;
  aclOpExecutor* executor = nullptr;
  return op.getWorkspaceSize(operands.data(), reduction, nullptr, &bytes, &executor) ==
             ACL_SUCCESS &&
         op.launch(bytes > 0 ? workspace : nullptr, bytes, executor, g_stream) == ACL_SUCCESS;
}

// The workspace `op` asks for over `operands` (freed by `owner`).
void* Workspace(const openaclnnOpDescriptor& op, const std::vector<const aclTensor*>& operands,
                int64_t reduction, std::vector<void*>* owner) {
  uint64_t bytes = 0;
  aclOpExecutor* executor = nullptr;
  if (op.getWorkspaceSize(operands.data(), reduction, nullptr, &bytes, &executor) != ACL_SUCCESS) {
    return nullptr;
  }
  aclDestroyAclOpExecutor(executor);
  if (bytes == 0) return nullptr;
  owner->push_back(Filled(static_cast<int64_t>(bytes / 2), ACL_FLOAT16, 0.0f, 0.0f));
  return owner->back();
}

// Values a ramp runs over (a falling one where low > high).
struct Range {
  float low, high;
};

// The table's op under each benchmark name, the values its self and target take and the role of
// its [100] per-class weight: logits in [-8, 8); probabilities in (0, 1), falling where the
// target's ramp rises (the same ramps would make x - t often 0 in bf16); the regression losses'
// predictions in [-2, 2) against targets in [0, 1) (so that smooth L1's and Huber's |d| < 1 holds
// for about a third); KL divergence's log-probabilities in [-8, 0) against probabilities; the
// soft margin's margins against labels in [-1, 1).
struct OpRow {
  const char* name;
  const char* api;
  Range self, target;
  openaclnnOperandRole per_class = OPENACLNN_ROLE_WEIGHT;  // the element-wise losses have none
};
constexpr Range kLogits{-8.0f, 8.0f}, kProbabilities{0.9995f, -0.0005f}, kUnit{0.0f, 1.0f},
    kPredictions{-2.0f, 2.0f}, kLogProbabilities{-8.0f, 0.0f}, kLabels{-1.0f, 1.0f},
    kTargetProbabilities{0.0005f, 1.0f};
constexpr OpRow kOps[] = {
    {"bce", "aclnnBinaryCrossEntropyWithLogits", kLogits, kUnit, OPENACLNN_ROLE_POS_WEIGHT},
    {"grad_self", "aclnnBinaryCrossEntropyWithLogitsBackward", kLogits, kUnit,
     OPENACLNN_ROLE_POS_WEIGHT},
    {"grad_target", "aclnnBinaryCrossEntropyWithLogitsTargetBackward", kLogits, kUnit,
     OPENACLNN_ROLE_POS_WEIGHT},
    {"loss_and_grad", "aclnnBinaryCrossEntropyWithLogitsAndGrad", kLogits, kUnit,
     OPENACLNN_ROLE_POS_WEIGHT},
    {"binary_cross_entropy", "aclnnBinaryCrossEntropy", kProbabilities, kUnit},
    {"binary_cross_entropy_backward", "aclnnBinaryCrossEntropyBackward", kProbabilities, kUnit},
    {"mse_loss", "aclnnMseLoss", kPredictions, kUnit},
    {"mse_loss_out", "aclnnMseLossOut", kPredictions, kUnit},
    {"mse_loss_backward", "aclnnMseLossBackward", kPredictions, kUnit},
    {"l1_loss", "aclnnL1Loss", kPredictions, kUnit},
    {"l1_loss_backward", "aclnnL1LossBackward", kPredictions, kUnit},
    {"smooth_l1_loss", "aclnnSmoothL1Loss", kPredictions, kUnit},
    {"smooth_l1_loss_backward", "aclnnSmoothL1LossBackward", kPredictions, kUnit},
    {"huber_loss", "openaclnnHuberLoss", kPredictions, kUnit},
    {"huber_loss_backward", "openaclnnHuberLossBackward", kPredictions, kUnit},
    {"soft_margin_loss", "aclnnSoftMarginLoss", kLogits, kLabels},
    {"soft_margin_loss_backward", "aclnnSoftMarginLossBackward", kLogits, kLabels},
    {"kl_div", "aclnnKlDiv", kLogProbabilities, kTargetProbabilities},
    {"kl_div_backward", "aclnnKlDivBackward", kLogProbabilities, kTargetProbabilities},
    {"kl_div_target_backward", "aclnnKlDivTargetBackward", kLogProbabilities, kTargetProbabilities},
};

// One op of the table on [N/100, 100] operands: its gradOutput, if it has one, full for
// reduction none and one element otherwise (as after a mean loss); per-class adds a [100] weight
// of the row's role (the with-logits ops' pos_weight, the binary cross entropy's weight), full a
// full weight; a reduced output is 0-D, or [100] where the op reduces dimension 0 only
// (aclnnMseLossOut). Attributes: the ops' defaults.
void BM_Op(benchmark::State& state, const OpRow* row, const openaclnnOpDescriptor* op,
           aclDataType type, int64_t reduction, Weights weights, Layout layout) {
  const int64_t count = state.range(0);
  Operands operands;
  operands.Full(OPENACLNN_ROLE_SELF, count, type, layout, row->self.low, row->self.high);
  operands.Full(OPENACLNN_ROLE_TARGET, count, type, layout, row->target.low, row->target.high);
  if (weights == kFullWeight) {
    operands.Full(OPENACLNN_ROLE_WEIGHT, count, type, kContiguous, 0.0f, 2.0f);
  }
  if (weights == kPerClass) operands.PerClass(row->per_class, type, 0.5f, 3.0f);
  const Layout out_layout = layout == kAllTransposed ? kTransposed : kContiguous;
  for (size_t i = 0; i < op->operandCount; ++i) {
    const openaclnnOperandRole role = op->operands[i].role;
    const bool one = reduction != 0 && (op->operands[i].reduced == OPENACLNN_REDUCED_TO_ONE ||
                                        role == OPENACLNN_ROLE_GRAD_OUTPUT);
    if (role == OPENACLNN_ROLE_GRAD_OUTPUT) {
      one ? operands.One(role, type, 0.5f)
          : operands.Full(role, count, type, kContiguous, 0.5f, 1.5f);
    } else if (op->operands[i].output && reduction != 0 &&
               op->operands[i].reduced == OPENACLNN_REDUCED_FIRST_DIM) {
      operands.PerClass(role, type, 0.0f, 0.0f);
    } else if (op->operands[i].output) {
      one ? operands.Scalar(role, type, 0.0f) : operands.Full(role, count, type, out_layout, 0, 0);
    }
  }
  const std::vector<const aclTensor*> in_order = InApiOrder(*op, operands.roles);
  std::vector<void*> owned;
  void* workspace = Workspace(*op, in_order, reduction, &owned);
  TimeCalls(state, count, [&] { return Call(*op, in_order, reduction, workspace); });
  for (void* data : owned) aclrtFree(data);
}

// STREAM "triad" a[i] = b[i] + s*c[i] over 3 arrays of `count` floats on `threads` threads:
// bytes/s counted as STREAM does (12 bytes per element, no write-allocate).
void BM_Stream(benchmark::State& state) {
  const int64_t count = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  auto* a = static_cast<float*>(Filled(count, ACL_FLOAT, 0, 1));
  auto* b = static_cast<float*>(Filled(count, ACL_FLOAT, 0, 1));
  auto* c = static_cast<float*>(Filled(count, ACL_FLOAT, 0, 1));
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    std::vector<std::thread> pool;
    const int64_t share = count / threads;
    for (int i = 0; i < threads; ++i) {
      pool.emplace_back([=] {
        for (int repeat = 0; repeat < 4; ++repeat) {
          for (int64_t j = i * share; j < (i + 1) * share; ++j) a[j] = b[j] + 1.5f * c[j];
        }
      });
    }
    for (std::thread& thread : pool) thread.join();
    benchmark::DoNotOptimize(a[0]);
  }
  const double bytes = static_cast<double>(state.iterations() * 4 * 12 * count);
  state.SetBytesProcessed(state.iterations() * 4 * 12 * count);
  state.counters["cpu_ns_per_byte"] = 1e9 * (ProcessCpuSeconds() - cpu_start) / bytes;
  for (float* data : {a, b, c}) aclrtFree(data);
}

// The row of benchmark name `name`, and the library's op; a library without it cannot be
// benchmarked.
const OpRow& Row(const std::string& name) {
  for (const OpRow& row : kOps) {
    if (name == row.name) return row;
  }
  std::fprintf(stderr, "op_bench: no op is named %s\n", name.c_str());
  std::exit(1);
}

const openaclnnOpDescriptor& Op(const std::string& name) {
  const openaclnnOpDescriptor* op = openaclnnFindOp(Row(name).api);
  if (op == nullptr) {
    std::fprintf(stderr, "op_bench: the library has no op for %s\n", name.c_str());
    std::exit(1);
  }
  return *op;
}

const char* TypeName(aclDataType type) {
  return type == ACL_FLOAT ? "fp32" : type == ACL_FLOAT16 ? "fp16" : "bf16";
}

// The cases of the performance table (docs/performance.md), named
// op/layout/dtype/reduction/weights/N; bench/perf_table.py reads everything else from the name.
struct Case {
  const char* op;  // a name of kOps
  Layout layout;
  aclDataType type;
  int64_t reduction;
  Weights weights;
  std::vector<int64_t> sizes;
};

std::vector<Case> TableCases() {
  const std::vector<int64_t> memory = {1000000, 10000000};  // 1e6 in L3, 1e7 from DRAM
  std::vector<Case> cases;
  for (int64_t reduction = 0; reduction < 3; ++reduction) {
    for (Weights weights : {kNoWeights, kFullWeight, kPerClass}) {
      cases.push_back({"bce", kContiguous, ACL_FLOAT, reduction, weights, memory});
    }
  }
  for (const char* op : {"grad_self", "grad_target"}) {
    for (int64_t reduction : {0, 1}) {
      cases.push_back({op, kContiguous, ACL_FLOAT, reduction, kNoWeights, memory});
      cases.push_back({op, kTransposed, ACL_FLOAT, reduction, kNoWeights, memory});
    }
  }
  // Element rate of the narrow types beside fp32's: 1e5 lives in L2/L3, 2e7 comes from DRAM.
  for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (int64_t reduction : {0, 1}) {
      cases.push_back({"bce", kContiguous, type, reduction, kNoWeights, {100000, 20000000}});
    }
    cases.push_back({"grad_self", kContiguous, type, 0, kNoWeights, {100000, 20000000}});
  }
  for (int64_t reduction : {0, 1}) {
    cases.push_back({"bce", kTransposed, ACL_FLOAT, reduction, kNoWeights, memory});
  }
  cases.push_back({"bce", kAllTransposed, ACL_FLOAT, 0, kNoWeights, memory});
  // The small call: phase 1 + phase 2 + synchronize dominate.
  cases.push_back({"bce", kContiguous, ACL_FLOAT, 0, kNoWeights, {1000}});
  cases.push_back({"bce", kContiguous, ACL_FLOAT, 1, kNoWeights, {1000}});
  return cases;
}

// The binary cross entropy's cases: the with-logits ops' problems (its per-class weight a [100]
// weight), the loss and its Backward also from the small call to DRAM (1e3 to 1e7).
std::vector<Case> ProbabilityCases() {
  const char* loss = "binary_cross_entropy";
  const char* backward = "binary_cross_entropy_backward";
  const std::vector<int64_t> memory = {1000000, 10000000};
  const std::vector<int64_t> all = {1000, 100000, 1000000, 10000000};
  std::vector<Case> cases;
  for (int64_t reduction = 0; reduction < 3; ++reduction) {
    for (Weights weights : {kNoWeights, kFullWeight, kPerClass}) {
      cases.push_back({loss, kContiguous, ACL_FLOAT, reduction, weights,
                       weights == kNoWeights && reduction < 2 ? all : memory});
    }
  }
  for (int64_t reduction : {0, 1}) {
    cases.push_back({backward, kContiguous, ACL_FLOAT, reduction, kNoWeights, all});
    cases.push_back({backward, kTransposed, ACL_FLOAT, reduction, kNoWeights, memory});
  }
  for (aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
    for (int64_t reduction : {0, 1}) {
      cases.push_back({loss, kContiguous, type, reduction, kNoWeights, {100000, 20000000}});
    }
    cases.push_back({backward, kContiguous, type, 0, kNoWeights, {100000, 20000000}});
  }
  for (int64_t reduction : {0, 1}) {
    cases.push_back({loss, kTransposed, ACL_FLOAT, reduction, kNoWeights, memory});
  }
  return cases;
}

// The element-wise losses' cases: each op (and gradient) the library has, contiguous fp32,
// reduction none and mean, from the small call to DRAM (1e3 to 1e7; 1e4 and 1e5 are also the
// in-cache sizes of the plain kernels' comparison).
std::vector<Case> ElementwiseCases() {
  std::vector<Case> cases;
  for (const OpRow& row : kOps) {
    const openaclnnOpDescriptor* op = openaclnnFindOp(row.api);
    if (op == nullptr) {
      std::fprintf(stderr, "op_bench: the library has no %s (yet): its cases are not registered\n",
                   row.api);
      continue;
    }
    if (op->family == OPENACLNN_FAMILY_BCE_WITH_LOGITS ||
        op->family == OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY) {
      continue;  // TableCases' and ProbabilityCases'
    }
    for (int64_t reduction : {0, 1}) {
      cases.push_back({row.name,
                       kContiguous,
                       ACL_FLOAT,
                       reduction,
                       kNoWeights,
                       {1000, 10000, 100000, 1000000, 10000000}});
    }
  }
  return cases;
}

// A plain fp32 kernel (plain_fp32_kernels.h) on the problem BM_Op gives the op of the same
// benchmark name: the same ramps, a full gradOutput for none and g = 0.5 for mean; per core
// (OPENACLNN_NUM_THREADS does not apply), in cache at the sizes it is registered for.
void BM_Plain(benchmark::State& state, const OpRow* row, bench::PlainFormula formula, bool gradient,
              int64_t reduction) {
  const auto count = static_cast<size_t>(state.range(0));
  std::vector<float> x(count), t(count), g(count), out(count);
  const auto ramp = [&](std::vector<float>& values, Range range) {
    for (size_t i = 0; i < count; ++i) {
      values[i] =
          range.low + (range.high - range.low) * static_cast<float>((i * 7919) % 1000) / 1000.0f;
    }
  };
  ramp(x, row->self);
  ramp(t, row->target);
  ramp(g, {0.5f, 1.5f});
  const float limit = 1.0f;  // the ops' default beta and delta
  const auto n = static_cast<int64_t>(count);
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!gradient && reduction != 0) {
      benchmark::DoNotOptimize(bench::PlainLossMean(formula, x.data(), t.data(), n, limit));
    } else if (!gradient) {
      bench::PlainLoss(formula, x.data(), t.data(), n, limit, out.data());
    } else {
      bench::PlainGradient(formula, x.data(), t.data(), reduction == 0 ? g.data() : nullptr,
                           0.5f / static_cast<float>(n), n, limit, out.data());
    }
    benchmark::ClobberMemory();
  }
  const double elements = static_cast<double>(state.iterations()) * static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["cpu_ns_per_elem"] = 1e9 * (ProcessCpuSeconds() - cpu_start) / elements;
}

// plain/<op>/contiguous/fp32/<reduction>/noweight/N: the rational losses' formulas, loss and
// gradient, none and mean, at 1e4 and 1e5 (in L2 and in L3), beside the ops' rows of those sizes.
void RegisterPlain() {
  constexpr struct {
    const char* op;
    bench::PlainFormula formula;
    bool gradient;
  } kPlain[] = {{"mse_loss", bench::PlainFormula::kMse, false},
                {"mse_loss_backward", bench::PlainFormula::kMse, true},
                {"l1_loss", bench::PlainFormula::kL1, false},
                {"l1_loss_backward", bench::PlainFormula::kL1, true},
                {"smooth_l1_loss", bench::PlainFormula::kSmoothL1, false},
                {"smooth_l1_loss_backward", bench::PlainFormula::kSmoothL1, true},
                {"huber_loss", bench::PlainFormula::kHuber, false},
                {"huber_loss_backward", bench::PlainFormula::kHuber, true}};
  for (const auto& plain : kPlain) {
    for (int64_t reduction : {0, 1}) {
      const std::string name = std::string("plain/") + plain.op + "/contiguous/fp32/" +
                               (reduction == 0 ? "none" : "mean") + "/noweight";
      benchmark::RegisterBenchmark(name.c_str(), BM_Plain, &Row(plain.op), plain.formula,
                                   plain.gradient, reduction)
          ->Arg(10000)
          ->Arg(100000)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

void RegisterAll() {
  const char* reductions[] = {"none", "mean", "sum"};
  const char* weight_names[] = {"noweight", "full", "perclass"};
  const char* layout_names[] = {"contiguous", "transposed", "transposed_all"};
  std::vector<Case> cases = TableCases();
  // A library without the binary cross entropy (an older build under bench/tile_ab.py --filter)
  // runs the rest.
  if (openaclnnFindOp("aclnnBinaryCrossEntropy") != nullptr) {
    for (const Case& c : ProbabilityCases()) cases.push_back(c);
  } else {
    std::fprintf(stderr,
                 "op_bench: the library has no aclnnBinaryCrossEntropy: its cases are "
                 "not registered\n");
  }
  for (const Case& c : ElementwiseCases()) cases.push_back(c);
  for (const Case& c : cases) {
    const std::string name = std::string(c.op) + "/" + layout_names[c.layout] + "/" +
                             TypeName(c.type) + "/" + reductions[c.reduction] + "/" +
                             weight_names[c.weights];
    benchmark::internal::Benchmark* bench = benchmark::RegisterBenchmark(
        name.c_str(), BM_Op, &Row(c.op), &Op(c.op), c.type, c.reduction, c.weights, c.layout);
    for (int64_t size : c.sizes) bench->Arg(size);
    bench->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("stream/triad", BM_Stream)
      ->Args({20000000, 1})
      ->Args({20000000, 2})
      ->Repetitions(5)  // bench/perf_table.py takes the best: neighbours only ever slow it down
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

// A training step's loss and self gradient on contiguous [N/100, 100] operands of `type`
// (gradOutput all ones): `fused`, one aclnnBinaryCrossEntropyWithLogitsAndGrad call; else the
// forward and then the Backward queued back to back. One synchronisation either way.
void BM_LossAndGrad(benchmark::State& state, aclDataType type, bool fused, int64_t reduction,
                    Weights weights) {
  const int64_t count = state.range(0);
  Operands operands;
  operands.Full(OPENACLNN_ROLE_SELF, count, type, kContiguous, -8.0f, 8.0f);
  operands.Full(OPENACLNN_ROLE_TARGET, count, type, kContiguous, 0.0f, 1.0f);
  if (weights == kPerClass) operands.PerClass(OPENACLNN_ROLE_POS_WEIGHT, type, 0.5f, 3.0f);
  for (openaclnnOperandRole role : {OPENACLNN_ROLE_GRAD_OUTPUT, OPENACLNN_ROLE_OUT}) {
    const float value = role == OPENACLNN_ROLE_OUT ? 0.0f : 1.0f;
    reduction == 0 ? operands.Full(role, count, type, kContiguous, value, value)
                   : operands.One(role, type, value);
  }
  operands.Full(OPENACLNN_ROLE_GRAD_SELF_OUT, count, type, kContiguous, 0.0f, 0.0f);
  Roles fused_roles = operands.roles, backward_roles = operands.roles;
  fused_roles[OPENACLNN_ROLE_GRAD_OUTPUT] = nullptr;  // all ones
  backward_roles[OPENACLNN_ROLE_OUT] = operands.roles[OPENACLNN_ROLE_GRAD_SELF_OUT];
  const openaclnnOpDescriptor &fused_op = Op("loss_and_grad"), &forward = Op("bce"),
                              &backward = Op("grad_self");
  const auto fused_operands = InApiOrder(fused_op, fused_roles);
  const auto forward_operands = InApiOrder(forward, operands.roles);
  const auto backward_operands = InApiOrder(backward, backward_roles);
  // The fused op's workspace is the forward's (a gradient needs none): as the ops ask for it.
  std::vector<void*> owned;
  void* workspace = Workspace(fused_op, fused_operands, reduction, &owned);
  TimeCalls(state, count, [&] {
    if (fused) return Call(fused_op, fused_operands, reduction, workspace);
    return Call(forward, forward_operands, reduction, workspace) &&
           Call(backward, backward_operands, reduction, workspace);
  });
  for (void* data : owned) aclrtFree(data);
}

// loss_and_grad/{fused,two_calls}/...: the fused extension against the two calls it replaces,
// registered in pairs so one run measures both side by side; and the fused 16-bit mean (a mixed
// precision training step) beside fp32's at 1e5 and 1e7.
void RegisterLossAndGrad() {
  const char* reductions[] = {"none", "mean", "sum"};
  const auto add = [&](aclDataType type, bool fused, int64_t reduction, Weights weights,
                       std::initializer_list<int64_t> sizes) {
    const std::string name = std::string("loss_and_grad/") + (fused ? "fused" : "two_calls") +
                             "/contiguous/" + TypeName(type) + "/" + reductions[reduction] +
                             (weights == kPerClass ? "/perclass" : "/noweight");
    auto* bench =
        benchmark::RegisterBenchmark(name.c_str(), BM_LossAndGrad, type, fused, reduction, weights);
    for (int64_t size : sizes) bench->Arg(size);
    bench->UseRealTime()->Unit(benchmark::kMicrosecond);
  };
  for (int64_t reduction : {0, 1}) {
    for (Weights weights : {kNoWeights, kPerClass}) {
      for (bool fused : {true, false}) {
        add(ACL_FLOAT, fused, reduction, weights, {1000, 100000, 1000000, 10000000});
      }
    }
  }
  for (aclDataType type : {ACL_FLOAT16, ACL_BF16})
    add(type, true, 1, kNoWeights, {100000, 10000000});
}

}  // namespace

int main(int argc, char** argv) {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtCreateStream(&g_stream);
  RegisterAll();
  RegisterLossAndGrad();
  RegisterPlain();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtDestroyStream(g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
