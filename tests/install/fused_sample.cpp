// A user program of the OpenACLNN extension, built against an installed prefix: the mean loss
// and its gradient from aclnnBinaryCrossEntropyWithLogitsAndGrad, which must equal, bit for
// bit, the forward followed by aclnnBinaryCrossEntropyWithLogitsBackward. Prints the loss and
// exits 0 when they agree.
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

namespace {

aclrtStream stream = nullptr;

aclTensor* Tensor(std::vector<float> values, std::vector<int64_t> shape, void** memory) {
  const size_t bytes = values.size() * sizeof(float);
  aclrtMalloc(memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(*memory, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                         shape.data(), shape.size(), *memory);
}

std::vector<float> Read(void* memory, size_t count) {
  std::vector<float> values(count);
  aclrtMemcpy(values.data(), count * sizeof(float), memory, count * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  return values;
}

// Both phases of one op, then a synchronisation; false on any failure.
template <class Plan, class Launch>
bool Run(Plan plan, Launch launch) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (plan(&workspace_size, &executor) != ACLNN_SUCCESS) return false;
  void* workspace = nullptr;
  if (workspace_size > 0 &&
      aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return false;
  }
  const bool ok = launch(workspace, workspace_size, executor, stream) == ACLNN_SUCCESS &&
                  aclrtSynchronizeStream(stream) == ACL_SUCCESS;
  if (workspace != nullptr) aclrtFree(workspace);
  return ok;
}

}  // namespace

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
      aclrtCreateStream(&stream) != ACL_SUCCESS) {
    return 1;
  }
  const std::vector<int64_t> shape{4, 2};
  void *x_mem, *t_mem, *p_mem, *loss_mem, *grad_mem, *loss2_mem, *grad2_mem, *one_mem;
  aclTensor* x = Tensor({0.1f, -0.1f, 2.0f, -2.0f, 30.0f, -30.0f, 0.0f, 5.0f}, shape, &x_mem);
  aclTensor* t = Tensor({0.2f, 0.2f, 0.1f, 0.9f, 1.0f, 0.0f, 0.5f, 0.3f}, shape, &t_mem);
  aclTensor* p = Tensor({0.5f, 2.0f}, {2}, &p_mem);
  aclTensor* loss = Tensor({0.0f}, {}, &loss_mem);
  aclTensor* grad = Tensor(std::vector<float>(8), shape, &grad_mem);
  aclTensor* loss2 = Tensor({0.0f}, {}, &loss2_mem);
  aclTensor* grad2 = Tensor(std::vector<float>(8), shape, &grad2_mem);
  aclTensor* one = Tensor({1.0f}, {}, &one_mem);
  const int64_t mean = 1;
  bool ok = Run(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
            x, t, nullptr, p, nullptr, mean, loss, grad, size, executor);
      },
      aclnnBinaryCrossEntropyWithLogitsAndGrad);
  ok = ok && Run(
                 [&](uint64_t* size, aclOpExecutor** executor) {
                   return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(x, t, nullptr, p, mean,
                                                                            loss2, size, executor);
                 },
                 aclnnBinaryCrossEntropyWithLogits);
  ok = ok && Run(
                 [&](uint64_t* size, aclOpExecutor** executor) {
                   return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                       one, x, t, nullptr, p, mean, grad2, size, executor);
                 },
                 aclnnBinaryCrossEntropyWithLogitsBackward);
  if (!ok) {
    std::printf("an API call failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  const std::vector<float> fused_loss = Read(loss_mem, 1), fused_grad = Read(grad_mem, 8);
  const std::vector<float> two_loss = Read(loss2_mem, 1), two_grad = Read(grad2_mem, 8);
  const bool equal = std::memcmp(fused_loss.data(), two_loss.data(), sizeof(float)) == 0 &&
                     std::memcmp(fused_grad.data(), two_grad.data(), 8 * sizeof(float)) == 0;
  std::printf("mean loss %.9g, gradient[0] %.9g: %s\n", fused_loss[0], fused_grad[0],
              equal ? "bitwise equal to the two calls" : "DIFFERENT from the two calls");
  for (aclTensor* tensor : {x, t, p, loss, grad, loss2, grad2, one}) aclDestroyTensor(tensor);
  for (void* memory : {x_mem, t_mem, p_mem, loss_mem, grad_mem, loss2_mem, grad2_mem, one_mem}) {
    aclrtFree(memory);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return equal ? 0 : 1;
}
