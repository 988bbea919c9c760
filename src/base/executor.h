// aclOpExecutor: what phase 1 of an op plans and phase 2 launches on a stream.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "base/tensor.h"

namespace openaclnn {

// The tensors of one op, inputs then outputs in API order.
inline constexpr size_t kMaxOpTensors = 8;
using TensorAddresses = std::array<void*, kMaxOpTensors>;

// What a plan runs with: the storage addresses the tensors had when phase 2 was called (so
// aclSet*TensorAddr between runs of a repeatable executor is honoured, and the user may destroy
// tensors once phase 2 returned), the caller's workspace, and the backend's native queue (a
// cudaStream_t on CUDA; nullptr on the CPU, whose plans run on the stream's own worker thread).
struct LaunchContext {
  TensorAddresses addresses;
  void* workspace = nullptr;
  void* queue = nullptr;
};

// An op's planned work, bound at phase 1 to the kernels of the backend that was current then.
class Plan {
 public:
  virtual ~Plan() = default;
  // nullptr on success, else why the backend could not launch the work (on a device queue) or
  // why it failed (run on the host: the stream reports it at synchronization).
  virtual const char* Run(const LaunchContext& launch) const = 0;
  // True when Run takes about as long as handing it to a stream's worker thread (a few
  // microseconds): phase 2 then runs it on the calling thread if the stream has nothing pending.
  virtual bool Quick() const { return false; }
};

// Phase 1's result. `plan` null means there is nothing to run (e.g. an empty input).
aclOpExecutor* NewExecutor(std::vector<const aclTensor*> inputs,
                           std::vector<const aclTensor*> outputs, std::unique_ptr<Plan> plan,
                           uint64_t workspace_size);

// Phase 2 of every op: checks the executor and workspace, then queues the plan on `stream`
// and returns. `api` names the op in messages.
aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size,
                           aclOpExecutor* executor, aclrtStream stream);

}  // namespace openaclnn

struct aclOpExecutor {
  aclOpExecutor() = default;
  aclOpExecutor(const aclOpExecutor&) = delete;
  aclOpExecutor& operator=(const aclOpExecutor&) = delete;
  ~aclOpExecutor();

  // Each held (openaclnn::RetainTensor) until the executor goes; nullptr for an absent optional.
  std::vector<aclTensor*> inputs;
  std::vector<aclTensor*> outputs;
  std::unique_ptr<openaclnn::Plan> plan;
  uint64_t workspace_size = 0;
  bool repeatable = false;
  // Under OPENACLNN_VERBOSE, what phase 1 planned (base/verbose.h); empty otherwise.
  std::string verbose;
  // One reference for the user (until phase 2 consumes a one-shot executor, or until
  // aclDestroyAclOpExecutor), plus one per launch still queued.
  std::atomic<int> references{1};
};
