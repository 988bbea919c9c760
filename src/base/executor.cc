#include "base/executor.h"

#include <new>

#include "base/object_registry.h"
#include "base/status.h"
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

// The storage addresses phase 2 hands to the plan; fails if a tensor the plan will read or
// write has none.
aclnnStatus SnapshotAddresses(const char* api, const aclOpExecutor& executor,
                              TensorAddresses* addresses) {
  addresses->fill(nullptr);
  size_t slot = 0;
  for (const auto* list : {&executor.inputs, &executor.outputs}) {
    for (const aclTensor* tensor : *list) {
      if (tensor != nullptr) {
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

aclnnStatus Enqueue(const char* api, aclOpExecutor* executor, void* workspace, aclrtStream stream) {
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
  launch.queue = NativeQueue(target);
  if (launch.queue != nullptr) {
    // The device queues the work itself: launching it here is asynchronous already, and the
    // plan is not needed once it is launched.
    const char* failure = executor->plan->Run(launch);
    if (failure == nullptr) {
      if (!executor->repeatable) Release(executor);  // the launch's reference, used up
      return ACLNN_SUCCESS;
    }
    return Fail(ACLNN_ERR_RUNTIME_ERROR, "%s: the device refused the launch: %s.", api, failure);
  }
  if (executor->repeatable) executor->references.fetch_add(1, std::memory_order_relaxed);
  const Task task([executor, launch] {
    executor->plan->Run(launch);  // host kernels do not fail
    Release(executor);
  });
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
  for (const aclTensor* tensor : inputs) executor->inputs.push_back(const_cast<aclTensor*>(tensor));
  for (const aclTensor* tensor : outputs) {
    executor->outputs.push_back(const_cast<aclTensor*>(tensor));
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
  if (status == ACLNN_SUCCESS && executor->plan != nullptr) {
    status = Enqueue(api, executor, workspace, stream);
    // Queued, a one-shot executor's reference belongs to the launch, which releases it.
    if (status == ACLNN_SUCCESS) return ACLNN_SUCCESS;
  }
  if (one_shot) Release(executor);
  return status;
}

}  // namespace openaclnn

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
aclnnStatus SetAddress(const char* api, std::vector<aclTensor*>* list, size_t index,
                       aclTensor* tensor, void* address) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: tensor is nullptr.", api);
  if (index >= list->size() || (*list)[index] == nullptr) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: index %zu names no tensor of this executor (it has %zu, absent optional "
                "ones included).",
                api, index, list->size());
  }
  (*list)[index]->data = address;
  tensor->data = address;
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
  return SetAddress("aclSetInputTensorAddr", &executor->inputs, index, tensor, addr);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  if (aclnnStatus status = CheckExecutor("aclSetOutputTensorAddr", executor)) return status;
  return SetAddress("aclSetOutputTensorAddr", &executor->outputs, index, tensor, addr);
}

aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  if (aclnnStatus status = CheckExecutor("aclSetTensorAddr", executor)) return status;
  const size_t inputs = executor->inputs.size();
  return index < inputs
             ? SetAddress("aclSetTensorAddr", &executor->inputs, index, tensor, addr)
             : SetAddress("aclSetTensorAddr", &executor->outputs, index - inputs, tensor, addr);
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
