// OPENACLNN_VERBOSE: registered three times (tests/api/CMakeLists.txt): with the variable "1",
// each launched op prints one line on stderr with the call's fields; unset or "0", nothing.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "op_tester.h"
#include "openaclnn/op_table.h"

namespace openaclnn::testing {
namespace {

bool VerboseRequested() {
  const char* value = std::getenv("OPENACLNN_VERBOSE");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// A mean loss over a transposed self with a per-class posWeight; what it printed on stderr.
std::string LaunchCapturingStderr(int64_t reduction, uint64_t* workspace_size) {
  DeviceTensor self({2, 3}, ACL_FLOAT, {-1, 0, 1, 2, 3, 4}, {1, 2}, 0, {3, 2});
  DeviceTensor target({2, 3}, ACL_FLOAT, {0, 1, 0.5f, 1, 0, 1});
  DeviceTensor pos_weight({3}, ACL_FLOAT, {1, 2, 3});
  DeviceTensor out({}, ACL_FLOAT, {0});
  ::testing::internal::CaptureStderr();
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
      self.get(), target.get(), nullptr, pos_weight.get(), reduction, out.get(), workspace_size,
      &executor);
  void* workspace = nullptr;
  if (status == ACLNN_SUCCESS && *workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, *workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  if (status == ACLNN_SUCCESS) {
    status = aclnnBinaryCrossEntropyWithLogits(workspace, *workspace_size, executor,
                                               AclEnvironment::stream);
    EXPECT_EQ(status, ACLNN_SUCCESS);
  }
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return ::testing::internal::GetCapturedStderr();
}

TEST(Verbose, ALaunchedOpPrintsOneLineOfItsFieldsOnlyWhenAskedTo) {
  uint64_t workspace = 0;
  const std::string printed = LaunchCapturingStderr(1, &workspace);
  if (!VerboseRequested()) {
    EXPECT_EQ(printed, "");
    return;
  }
  const std::string expected_start =
      std::string("openaclnn_verbose exec aclnnBinaryCrossEntropyWithLogits backend=cpu simd=") +
      openaclnnKernelSimdTarget() +
      " self=DT_FLOAT:[2,3]:[1,2]:0 target=DT_FLOAT:[2,3]:[3,1]:0 weightOptional=none "
      "posWeightOptional=DT_FLOAT:[3]:[1]:0 out=DT_FLOAT:[]:[]:0 reduction=mean workspace=" +
      std::to_string(workspace) + " ";
  ASSERT_EQ(printed.rfind(expected_start, 0), 0u) << printed;
  EXPECT_GT(workspace, 0u);
  const std::string rest = printed.substr(expected_start.size());
  double run_ms = -1, total_ms = -1;
  int consumed = 0;
  ASSERT_EQ(std::sscanf(rest.c_str(), "run_ms=%lf total_ms=%lf%n", &run_ms, &total_ms, &consumed),
            2)
      << rest;
  EXPECT_EQ(rest.substr(consumed), "\n");  // one line, nothing after it
  EXPECT_GE(run_ms, 0);
  EXPECT_LE(run_ms, total_ms);
}

// Its error may be logged, but nothing was launched.
TEST(Verbose, ARejectedCallPrintsNoLine) {
  uint64_t workspace = 0;
  EXPECT_EQ(LaunchCapturingStderr(5, &workspace).find("openaclnn_verbose"), std::string::npos);
  aclGetRecentErrMsg();
}

}  // namespace
}  // namespace openaclnn::testing
