// aclnnBinaryCrossEntropyWithLogits and its two gradients through the public API, timed per call as
// a user sees it: phase 1 + phase 2 + stream synchronisation. Also a STREAM-style bandwidth probe,
// so each run states the memory limit it ran against. Threads: OPENACLNN_NUM_THREADS.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

namespace {

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

void BM_Bce(benchmark::State& state, aclDataType type, int64_t reduction, Weights weights,
            Layout layout) {
  const int64_t count = state.range(0);
  void* x = Filled(count, type, -8.0f, 8.0f);
  void* t = Filled(count, type, 0.0f, 1.0f);
  void* w = weights == kFullWeight ? Filled(count, type, 0.0f, 2.0f) : nullptr;
  void* p = weights == kPerClass ? Filled(kClasses, type, 0.5f, 3.0f) : nullptr;
  void* out = Filled(reduction == 0 ? count : 1, type, 0.0f, 0.0f);
  aclTensor* self = Tensor(x, count, type, layout);
  aclTensor* target = Tensor(t, count, type, layout);
  aclTensor* weight = w ? Tensor(w, count, type, kContiguous) : nullptr;
  const int64_t classes[] = {kClasses};
  const int64_t one[] = {1};
  aclTensor* pos_weight =
      p ? aclCreateTensor(classes, 1, type, one, 0, ACL_FORMAT_ND, classes, 1, p) : nullptr;
  aclTensor* result =
      reduction == 0
          ? Tensor(out, count, type, layout == kAllTransposed ? kTransposed : kContiguous)
          : aclCreateTensor(one, 1, type, one, 0, ACL_FORMAT_ND, one, 1, out);
  void* workspace = nullptr;
  uint64_t workspace_bytes = 0;
  aclOpExecutor* executor = nullptr;
  aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self, target, weight, pos_weight, reduction,
                                                    result, &workspace_bytes, &executor);
  aclDestroyAclOpExecutor(executor);
  if (workspace_bytes > 0) aclrtMalloc(&workspace, workspace_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  if (workspace) aclrtMemset(workspace, workspace_bytes, 0, workspace_bytes);
  TimeCalls(state, count, [&] {
    uint64_t bytes = 0;
    return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
               self, target, weight, pos_weight, reduction, result, &bytes, &executor) == 0 &&
           aclnnBinaryCrossEntropyWithLogits(workspace, bytes, executor, g_stream) == 0;
  });
  for (aclTensor* tensor : {self, target, weight, pos_weight, result}) {
    if (tensor) aclDestroyTensor(tensor);
  }
  for (void* data : {x, t, w, p, out, workspace}) {
    if (data) aclrtFree(data);
  }
}

enum Gradient { kGradSelf, kGradTarget };

// One gradient op on [N/100, 100] operands: none reads a full gradOutput, mean a 0-d one (as
// after a mean loss); per-class adds a [100] pos_weight, full a full weight.
void BM_Gradient(benchmark::State& state, Gradient gradient, aclDataType type, int64_t reduction,
                 Weights weights, Layout layout) {
  const int64_t count = state.range(0);
  void* x = Filled(count, type, -8.0f, 8.0f);
  void* t = Filled(count, type, 0.0f, 1.0f);
  void* g = Filled(reduction == 0 ? count : 1, type, 0.5f, 1.5f);
  void* w = weights == kFullWeight ? Filled(count, type, 0.0f, 2.0f) : nullptr;
  void* p = weights == kPerClass ? Filled(kClasses, type, 0.5f, 3.0f) : nullptr;
  void* out = Filled(count, type, 0.0f, 0.0f);
  const int64_t one[] = {1};
  const int64_t classes[] = {kClasses};
  aclTensor* self = Tensor(x, count, type, layout);
  aclTensor* target = Tensor(t, count, type, layout);
  aclTensor* grad =
      reduction == 0 ? Tensor(g, count, type, kContiguous)
                     : aclCreateTensor(nullptr, 0, type, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, g);
  aclTensor* weight = w ? Tensor(w, count, type, kContiguous) : nullptr;
  aclTensor* pos_weight =
      p ? aclCreateTensor(classes, 1, type, one, 0, ACL_FORMAT_ND, classes, 1, p) : nullptr;
  aclTensor* result =
      Tensor(out, count, type, layout == kAllTransposed ? kTransposed : kContiguous);
  auto plan = gradient == kGradSelf
                  ? aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize
                  : aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize;
  auto run = gradient == kGradSelf ? aclnnBinaryCrossEntropyWithLogitsBackward
                                   : aclnnBinaryCrossEntropyWithLogitsTargetBackward;
  TimeCalls(state, count, [&] {
    uint64_t bytes = 0;
    aclOpExecutor* executor = nullptr;
    return plan(grad, self, target, weight, pos_weight, reduction, result, &bytes, &executor) ==
               0 &&
           run(nullptr, bytes, executor, g_stream) == 0;
  });
  for (aclTensor* tensor : {self, target, grad, weight, pos_weight, result}) {
    if (tensor) aclDestroyTensor(tensor);
  }
  for (void* data : {x, t, g, w, p, out}) {
    if (data) aclrtFree(data);
  }
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

const char* TypeName(aclDataType type) {
  return type == ACL_FLOAT ? "fp32" : type == ACL_FLOAT16 ? "fp16" : "bf16";
}

// The cases of the performance table (docs/performance.md), named
// op/layout/dtype/reduction/weights/N; bench/perf_table.py reads everything else from the name.
struct Case {
  const char* op;  // bce, grad_self, grad_target
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
    cases.push_back({"bce", kContiguous, type, 0, kNoWeights, {100000, 20000000}});
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

void RegisterAll() {
  const char* reductions[] = {"none", "mean", "sum"};
  const char* weight_names[] = {"noweight", "full", "perclass"};
  const char* layout_names[] = {"contiguous", "transposed", "transposed_all"};
  for (const Case& c : TableCases()) {
    const std::string name = std::string(c.op) + "/" + layout_names[c.layout] + "/" +
                             TypeName(c.type) + "/" + reductions[c.reduction] + "/" +
                             weight_names[c.weights];
    benchmark::internal::Benchmark* bench;
    if (std::string(c.op) == "bce") {
      bench = benchmark::RegisterBenchmark(name.c_str(), BM_Bce, c.type, c.reduction, c.weights,
                                           c.layout);
    } else {
      const Gradient gradient = std::string(c.op) == "grad_self" ? kGradSelf : kGradTarget;
      bench = benchmark::RegisterBenchmark(name.c_str(), BM_Gradient, gradient, c.type, c.reduction,
                                           c.weights, c.layout);
    }
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

// Both phases of one op call, with a workspace when it asks for one (no synchronisation);
// whether both succeeded.
template <class Plan, class Launch>
bool Call(Plan plan, Launch launch, void* workspace) {
  uint64_t bytes = 0;
  aclOpExecutor* executor = nullptr;
  return plan(&bytes, &executor) == ACL_SUCCESS &&
         launch(bytes > 0 ? workspace : nullptr, bytes, executor, g_stream) == ACL_SUCCESS;
}

// A training step's loss and self gradient on contiguous [N/100, 100] fp32 operands (gradOutput
// all ones): `fused`, one aclnnBinaryCrossEntropyWithLogitsAndGrad call; else the forward and
// then the Backward queued back to back. One synchronisation either way.
void BM_LossAndGrad(benchmark::State& state, bool fused, int64_t reduction, Weights weights) {
  const int64_t count = state.range(0);
  const aclDataType type = ACL_FLOAT;
  void* x = Filled(count, type, -8.0f, 8.0f);
  void* t = Filled(count, type, 0.0f, 1.0f);
  void* ones = Filled(reduction == 0 ? count : 1, type, 1.0f, 1.0f);
  void* p = weights == kPerClass ? Filled(kClasses, type, 0.5f, 3.0f) : nullptr;
  void* loss = Filled(reduction == 0 ? count : 1, type, 0.0f, 0.0f);
  void* grad = Filled(count, type, 0.0f, 0.0f);
  void* workspace = Filled((count + 4095) / 4096 * 2, type, 0.0f, 0.0f);  // a double per block
  const int64_t one[] = {1};
  const int64_t classes[] = {kClasses};
  aclTensor* self = Tensor(x, count, type, kContiguous);
  aclTensor* target = Tensor(t, count, type, kContiguous);
  aclTensor* grad_output = reduction == 0
                               ? Tensor(ones, count, type, kContiguous)
                               : aclCreateTensor(one, 1, type, one, 0, ACL_FORMAT_ND, one, 1, ones);
  aclTensor* pos_weight =
      p ? aclCreateTensor(classes, 1, type, one, 0, ACL_FORMAT_ND, classes, 1, p) : nullptr;
  aclTensor* out = reduction == 0
                       ? Tensor(loss, count, type, kContiguous)
                       : aclCreateTensor(one, 1, type, one, 0, ACL_FORMAT_ND, one, 1, loss);
  aclTensor* grad_self = Tensor(grad, count, type, kContiguous);
  TimeCalls(state, count, [&] {
    if (fused) {
      return Call(
          [&](uint64_t* bytes, aclOpExecutor** executor) {
            return aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
                self, target, nullptr, pos_weight, nullptr, reduction, out, grad_self, bytes,
                executor);
          },
          aclnnBinaryCrossEntropyWithLogitsAndGrad, workspace);
    }
    return Call(
               [&](uint64_t* bytes, aclOpExecutor** executor) {
                 return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                     self, target, nullptr, pos_weight, reduction, out, bytes, executor);
               },
               aclnnBinaryCrossEntropyWithLogits, workspace) &&
           Call(
               [&](uint64_t* bytes, aclOpExecutor** executor) {
                 return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                     grad_output, self, target, nullptr, pos_weight, reduction, grad_self, bytes,
                     executor);
               },
               aclnnBinaryCrossEntropyWithLogitsBackward, workspace);
  });
  for (aclTensor* tensor : {self, target, grad_output, pos_weight, out, grad_self}) {
    if (tensor) aclDestroyTensor(tensor);
  }
  for (void* data : {x, t, ones, p, loss, grad, workspace}) {
    if (data) aclrtFree(data);
  }
}

// loss_and_grad/{fused,two_calls}/...: the fused extension against the two calls it replaces,
// registered in pairs so one run measures both side by side.
void RegisterLossAndGrad() {
  const char* reductions[] = {"none", "mean", "sum"};
  for (int64_t reduction : {0, 1}) {
    for (Weights weights : {kNoWeights, kPerClass}) {
      for (bool fused : {true, false}) {
        const std::string name = std::string("loss_and_grad/") + (fused ? "fused" : "two_calls") +
                                 "/contiguous/fp32/" + reductions[reduction] +
                                 (weights == kPerClass ? "/perclass" : "/noweight");
        auto* bench =
            benchmark::RegisterBenchmark(name.c_str(), BM_LossAndGrad, fused, reduction, weights);
        for (int64_t size : {1000, 100000, 1000000, 10000000}) bench->Arg(size);
        bench->UseRealTime()->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtCreateStream(&g_stream);
  RegisterAll();
  RegisterLossAndGrad();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtDestroyStream(g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
