#include "base/executor.h"

#include <chrono>
#include <cstdio>
#include <new>

#include "base/object_registry.h"
#include "base/status.h"
#include "base/verbose.h"
#include "runtime/stream.h"

namespace openaclnn {
namespace {

ObjectRegistry<aclOpExecutor>& Executors() {
  static ObjectRegistry<aclOpExecutor> registry;
  return registry;
}

void Release(aclOpExecutor* executor) {
  if (executor->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete executor;
}

aclnnStatus DestroyedTensor(const char* api, const char* role, size_t index,
                            const aclTensor& tensor) {
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: %s %zu of the executor (aclTensor %p, shape %s) was destroyed after phase 1; "
              "an executor's tensors must stay alive until its last launch.",
              api, role, index, static_cast<const void*>(&tensor),
              ShapeString(tensor.view_shape).c_str());
}

// The storage addresses phase 2 hands to the plan; fails if a tensor the plan will read or
// write was destroyed or has no address.
aclnnStatus SnapshotAddresses(const char* api, const aclOpExecutor& executor,
                              TensorAddresses* addresses) {
  addresses->fill(nullptr);
  size_t slot = 0;
  for (const auto* list : {&executor.inputs, &executor.outputs}) {
    const char* role = list == &executor.inputs ? "input" : "output";
    for (size_t index = 0; index < list->size(); ++index) {
      const aclTensor* tensor = (*list)[index];
      if (tensor != nullptr) {
        if (tensor->destroyed.load(std::memory_order_acquire)) {
          return DestroyedTensor(api, role, index, *tensor);
        }
        if (tensor->data == nullptr && ElementCount(tensor->view_shape) > 0) {
          return Fail(ACLNN_ERR_PARAM_NULLPTR,
                      "%s: tensor %zu (shape %s) has no device address; create it with one or "
                      "set one with aclSet*TensorAddr before launching.",
                      api, slot, ShapeString(tensor->view_shape).c_str());
        }
        (*addresses)[slot] = tensor->data;
      }
      ++slot;
    }
  }
  return ACLNN_SUCCESS;
}

using Clock = std::chrono::steady_clock;

double MillisecondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// Runs the executor's plan; under verbose mode also prints its line, timing the run itself and
// the whole of phase 2 from `called` (when phase 2 was called) to the run's end.
const char* RunPlan(const aclOpExecutor& executor, const LaunchContext& launch,
                    Clock::time_point called) {
  if (executor.verbose.empty()) return executor.plan->Run(launch);
  const Clock::time_point start = Clock::now();
  const char* failure = executor.plan->Run(launch);
  const Clock::time_point end = Clock::now();
  if (failure == nullptr) {
    PrintVerboseLine(executor.verbose, MillisecondsBetween(start, end),
                     MillisecondsBetween(called, end));
  }
  return failure;
}

// Checks the launch's tensors and stream, and queues the plan if there is one (*queued then
// says so); an empty launch is checked like any other.
aclnnStatus Enqueue(const char* api, aclOpExecutor* executor, void* workspace, aclrtStream stream,
                    bool* queued) {
  *queued = false;
  const Clock::time_point called = executor->verbose.empty() ? Clock::time_point{} : Clock::now();
  LaunchContext launch;
  launch.workspace = workspace;
  if (aclnnStatus status = SnapshotAddresses(api, *executor, &launch.addresses)) return status;
  aclError stream_status = ACL_SUCCESS;
  Stream* target = FindStream(stream, &stream_status);
  if (target == nullptr) {
    return Fail(ACLNN_ERR_RUNTIME_ERROR,
                "%s: stream %p is not usable (runtime error %d): pass a live stream, or NULL "
                "after aclrtSetDevice for the default stream.",
                api, stream, stream_status);
  }
  if (executor->plan == nullptr) {
    if (!executor->verbose.empty()) PrintVerboseLine(executor->verbose, 0, 0);
    return ACLNN_SUCCESS;
  }
  launch.queue = NativeQueue(target);
  if (launch.queue != nullptr) {
    // The device queues the work itself: launching it here is asynchronous already, and the
    // plan is not needed once it is launched.
    const char* failure = RunPlan(*executor, launch, called);
    if (failure != nullptr) {
      return Fail(ACLNN_ERR_RUNTIME_ERROR, "%s: the device refused the launch: %s.", api, failure);
    }
    *queued = true;
    if (!executor->repeatable) Release(executor);  // the launch's reference, used up
    return ACLNN_SUCCESS;
  }
  *queued = true;
  if (executor->repeatable) executor->references.fetch_add(1, std::memory_order_relaxed);
  // A host kernel's failure (data it cannot compute with) is the stream's to report.
  const Task task(
      [executor, launch, called, target, api] {
        if (const char* failure = RunPlan(*executor, launch, called)) {
          char text[kFaultTextSize];
          std::snprintf(text, sizeof text, "%s: %s", api, failure);
          RecordFault(target, text);
        }
        Release(executor);
      },
      [executor] { Release(executor); });
  if (executor->plan->Quick()) {
    RunOrEnqueue(target, task);
  } else {
    Enqueue(target, task);
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckLaunch(const char* api, void* workspace, uint64_t workspace_size,
                        const aclOpExecutor& executor) {
  if (workspace_size < executor.workspace_size) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: workspaceSize %llu is smaller than the %llu bytes phase 1 asked for.", api,
                static_cast<unsigned long long>(workspace_size),
                static_cast<unsigned long long>(executor.workspace_size));
  }
  if (workspace == nullptr && executor.workspace_size > 0) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspace is nullptr.", api);
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclOpExecutor* NewExecutor(std::vector<const aclTensor*> inputs,
                           std::vector<const aclTensor*> outputs, std::unique_ptr<Plan> plan,
                           uint64_t workspace_size) {
  auto* executor = new (std::nothrow) aclOpExecutor;
  if (executor == nullptr) return nullptr;
  // The C API hands inputs in as const, yet lets the caller re-address them through the
  // executor (aclSetInputTensorAddr); the executor is where that is allowed.
  for (auto [from, to] : {std::pair{&inputs, &executor->inputs}, {&outputs, &executor->outputs}}) {
    to->reserve(from->size());  // one allocation, not one per doubling
    for (const aclTensor* tensor : *from) {
      to->push_back(const_cast<aclTensor*>(tensor));
      if (tensor != nullptr) RetainTensor(to->back());
    }
  }
  executor->plan = std::move(plan);
  executor->workspace_size = workspace_size;
  if (!Executors().Add(executor)) {
    delete executor;
    return nullptr;
  }
  return executor;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size,
                           aclOpExecutor* executor, aclrtStream stream) {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is nullptr.", api);
  if (!Executors().Contains(executor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: executor %p is not live: it was already run (call "
                "aclSetAclOpExecutorRepeatable after phase 1 to run it again) or destroyed.",
                api, static_cast<void*>(executor));
  }
  // A one-shot executor is used up by phase 2, run or not, as in CANN. It leaves the registry
  // before it is queued: once queued, the stream may run and free it at any moment.
  const bool one_shot = !executor->repeatable;
  if (one_shot) Executors().Remove(executor);
  aclnnStatus status = CheckLaunch(api, workspace, workspace_size, *executor);
  bool queued = false;
  if (status == ACLNN_SUCCESS) status = Enqueue(api, executor, workspace, stream, &queued);
  // Queued, a one-shot executor's reference belongs to the launch, which releases it.
  if (queued) return ACLNN_SUCCESS;
  if (one_shot) Release(executor);
  return status;
}

}  // namespace openaclnn

aclOpExecutor::~aclOpExecutor() {
  for (auto* list : {&inputs, &outputs}) {
    for (aclTensor* tensor : *list) {
      if (tensor != nullptr) openaclnn::ReleaseTensor(tensor);
    }
  }
}

using openaclnn::Executors;
using openaclnn::Fail;

namespace {

aclnnStatus CheckExecutor(const char* api, const aclOpExecutor* executor) {
  if (executor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is nullptr.", api);
  if (!Executors().Contains(executor)) {
    return Fail(ACLNN_ERR_INNER, "%s: executor %p is not live (already run or destroyed).", api,
                static_cast<const void*>(executor));
  }
  return ACLNN_SUCCESS;
}

// Re-addresses tensor `index` of `list` (and the aclTensor the caller names) for later runs.
aclnnStatus SetAddress(const char* api, const char* role, std::vector<aclTensor*>* list,
                       size_t index, aclTensor* tensor, void* address) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: tensor is nullptr.", api);
  if (index >= list->size() || (*list)[index] == nullptr) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: index %zu names no %s tensor of this executor (it has %zu, absent optional "
                "ones included).",
                api, index, role, list->size());
  }
  aclTensor* held = (*list)[index];
  if (held->destroyed.load(std::memory_order_acquire)) {
    return openaclnn::DestroyedTensor(api, role, index, *held);
  }
  if (!openaclnn::SetDataIfLive(tensor, address)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: tensor %p (for %s %zu) is not a live aclTensor; was it destroyed?", api,
                static_cast<const void*>(tensor), role, index);
  }
  held->data = address;
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (aclnnStatus status = CheckExecutor("aclSetAclOpExecutorRepeatable", executor)) {
    return status;
  }
  executor->repeatable = true;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (aclnnStatus status = CheckExecutor("aclDestroyAclOpExecutor", executor)) return status;
  if (Executors().Remove(executor)) openaclnn::Release(executor);
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  if (aclnnStatus status = CheckExecutor("aclSetInputTensorAddr", executor)) return status;
  return SetAddress("aclSetInputTensorAddr", "input", &executor->inputs, index, tensor, addr);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  if (aclnnStatus status = CheckExecutor("aclSetOutputTensorAddr", executor)) return status;
  return SetAddress("aclSetOutputTensorAddr", "output", &executor->outputs, index, tensor, addr);
}

aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  if (aclnnStatus status = CheckExecutor("aclSetTensorAddr", executor)) return status;
  const size_t inputs = executor->inputs.size();
  return index < inputs
             ? SetAddress("aclSetTensorAddr", "input", &executor->inputs, index, tensor, addr)
             : SetAddress("aclSetTensorAddr", "output", &executor->outputs, index - inputs, tensor,
                          addr);
}

aclnnStatus AclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  return aclSetInputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  return aclSetOutputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  return aclSetTensorAddr(executor, index, tensor, addr);
}

}  // extern "C"
