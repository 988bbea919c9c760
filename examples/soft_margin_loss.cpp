// aclnnSoftMarginLoss as CANN's sample calls it: self {0.3, 0.7, 0.5, 0.5} against target
// {-1, 1, 1, -1} on a [2,2] batch, reduction none; the loss log(1 + exp(-target * self)) of each.
// Builds unchanged against CANN or OpenACLNN.
#include <vector>

#include "acl/acl.h"
#include "acl_sample.h"
#include "aclnnop/aclnn_soft_margin_loss.h"

int main() {
  const int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  auto ret = SetUp(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("SetUp failed. ERROR: %d\n", ret); return ret);

  const std::vector<int64_t> shape = {2, 2};
  Fp32Tensor self, target, out;
  ret = MakeTensor({0.3f, 0.7f, 0.5f, 0.5f}, shape, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor({-1.0f, 1.0f, 1.0f, -1.0f}, shape, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor({0.0f, 0.0f, 0.0f, 0.0f}, shape, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  const int64_t reduction = 0;  // 0 none, 1 mean, 2 sum (out then a 0-D tensor)

  // Phase 1: the checks, the plan and the workspace it needs.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnSoftMarginLossGetWorkspaceSize(self.tensor, target.tensor, reduction, out.tensor,
                                            &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnSoftMarginLossGetWorkspaceSize failed. ERROR: %d\n[ERROR msg]%s", ret,
                      aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  ret = AllocateWorkspace(workspaceSize, &workspaceAddr);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Phase 2: queue the computation on the stream, then wait for it and print.
  ret = aclnnSoftMarginLoss(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSoftMarginLoss failed. ERROR: %d\n", ret);
            return ret);
  ret = WaitAndPrint(stream, out, 4);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  for (Fp32Tensor* tensor : {&self, &target, &out}) Release(tensor);
  TearDown(deviceId, stream, workspaceAddr);
  return 0;
}
