// The class-axis ops through their C API, timed per call as a user sees them (phase 1 + phase 2 +
// stream synchronisation): the cross entropy of fp32 logits (N, C) (loss and log-probabilities;
// then the gradient from them, "forward_backward" queuing both before one synchronisation) and
// the negative log likelihood of log-probabilities (loss; then its Backward), at the issue's
// shapes: (4096, 1000), (256, 32000), (100000, 10). Reduction mean, no weights, int64 targets.
// Threads: OPENACLNN_NUM_THREADS. bench/perf_table.py puts them beside PyTorch's
// F.cross_entropy and F.nll_loss on the same shapes.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctime>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_cross_entropy_loss.h"
#include "aclnnop/aclnn_cross_entropy_loss_grad.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"

namespace {

aclrtStream g_stream = nullptr;

double ProcessCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// A contiguous device tensor holding `values` (float or int64), every page touched before timing.
class Tensor {
 public:
  template <class T>
  Tensor(std::vector<int64_t> shape, aclDataType type, const std::vector<T>& values)
      : shape_(std::move(shape)) {
    const size_t bytes = std::max<size_t>(values.size() * sizeof(T), 1);
    aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(data_, bytes, values.data(), values.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> strides(shape_.size(), 1);
    for (size_t d = shape_.size(); d-- > 1;) strides[d - 1] = strides[d] * shape_[d];
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), type, strides.data(), 0, ACL_FORMAT_ND,
                              shape_.data(), shape_.size(), data_);
  }
  ~Tensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  aclTensor* get() const { return tensor_; }

 private:
  std::vector<int64_t> shape_;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// Logits in [-8, 8) (a ramp, as op_bench's), and targets spread over the classes.
std::vector<float> Logits(int64_t count) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) {
    values[i] = -8.0f + 16.0f * static_cast<float>((i * 7919) % 1000) / 1000.0f;
  }
  return values;
}
std::vector<int64_t> Targets(int64_t rows, int64_t classes) {
  std::vector<int64_t> values(rows);
  for (int64_t n = 0; n < rows; ++n) values[n] = (n * 7) % classes;
  return values;
}

// Runs the two phases of an op, then (if `sync`) waits; false on a failing call.
template <class Plan, class Launch>
bool Call(Plan&& plan, Launch launch) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  if (plan(&size, &executor) != ACLNN_SUCCESS) return false;
  return launch(nullptr, size, executor, g_stream) == ACLNN_SUCCESS;  // no op needs a workspace
}

template <class Body>
void Time(benchmark::State& state, int64_t elements, Body&& body) {
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!body() || aclrtSynchronizeStream(g_stream) != ACL_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * elements);
  state.counters["cpu_ns_per_elem"] =
      1e9 * (ProcessCpuSeconds() - cpu_start) / static_cast<double>(state.iterations() * elements);
}

void BM_CrossEntropy(benchmark::State& state, bool backward) {
  const int64_t rows = state.range(0), classes = state.range(1);
  Tensor input({rows, classes}, ACL_FLOAT, Logits(rows * classes));
  Tensor target({rows}, ACL_INT64, Targets(rows, classes));
  Tensor loss({1}, ACL_FLOAT, std::vector<float>{0.0f});
  Tensor log_prob({rows, classes}, ACL_FLOAT, std::vector<float>(rows * classes));
  Tensor zloss({1}, ACL_FLOAT, std::vector<float>{0.0f});
  Tensor lse({rows}, ACL_FLOAT, std::vector<float>(rows));
  Tensor grad({}, ACL_FLOAT, std::vector<float>{1.0f});
  Tensor out({rows, classes}, ACL_FLOAT, std::vector<float>(rows * classes));
  char* mean = const_cast<char*>("mean");
  Time(state, rows * classes, [&] {
    const bool forward = Call(
        [&](uint64_t* size, aclOpExecutor** executor) {
          return aclnnCrossEntropyLossGetWorkspaceSize(
              input.get(), target.get(), nullptr, mean, -100, 0.0, 0.0, false, loss.get(),
              log_prob.get(), zloss.get(), lse.get(), size, executor);
        },
        aclnnCrossEntropyLoss);
    return forward &&
           (!backward || Call(
                             [&](uint64_t* size, aclOpExecutor** executor) {
                               return aclnnCrossEntropyLossGradGetWorkspaceSize(
                                   grad.get(), log_prob.get(), target.get(), nullptr, nullptr,
                                   nullptr, mean, -100, 0.0, 0.0, out.get(), size, executor);
                             },
                             aclnnCrossEntropyLossGrad));
  });
}

void BM_NllLoss(benchmark::State& state, bool backward) {
  const int64_t rows = state.range(0), classes = state.range(1);
  std::vector<float> log_probs = Logits(rows * classes);
  for (float& x : log_probs) x = -1.0f - x * x / 8.0f;  // log-probabilities: negative
  Tensor self({rows, classes}, ACL_FLOAT, log_probs);
  Tensor target({rows}, ACL_INT64, Targets(rows, classes));
  Tensor weight({classes}, ACL_FLOAT, std::vector<float>(classes, 1.0f));
  Tensor loss({}, ACL_FLOAT, std::vector<float>{0.0f});
  Tensor total_weight({}, ACL_FLOAT, std::vector<float>{0.0f});
  Tensor grad({}, ACL_FLOAT, std::vector<float>{1.0f});
  Tensor out({rows, classes}, ACL_FLOAT, std::vector<float>(rows * classes));
  Time(state, rows * classes, [&] {
    const bool forward = Call(
        [&](uint64_t* size, aclOpExecutor** executor) {
          return aclnnNLLLossGetWorkspaceSize(self.get(), target.get(), weight.get(), 1, -100,
                                              loss.get(), total_weight.get(), size, executor);
        },
        aclnnNLLLoss);
    return forward && (!backward || Call(
                                        [&](uint64_t* size, aclOpExecutor** executor) {
                                          return aclnnNLLLossBackwardGetWorkspaceSize(
                                              grad.get(), self.get(), target.get(), weight.get(), 1,
                                              -100, total_weight.get(), out.get(), size, executor);
                                        },
                                        aclnnNLLLossBackward));
  });
}

void Register(const char* name, void (*function)(benchmark::State&, bool), bool backward) {
  benchmark::RegisterBenchmark(name, function, backward)
      ->Args({4096, 1000})
      ->Args({256, 32000})
      ->Args({100000, 10})
      ->Repetitions(3)  // bench/perf_table.py takes the best: neighbours only ever slow it down
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtCreateStream(&g_stream);
  Register("cross_entropy/forward", BM_CrossEntropy, false);
  Register("cross_entropy/forward_backward", BM_CrossEntropy, true);
  Register("nll_loss/forward", BM_NllLoss, false);
  Register("nll_loss/forward_backward", BM_NllLoss, true);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtDestroyStream(g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
