// Paths of the aclTensor query API that a user program cannot reach.
#include "base/tensor_api.h"

#include <gtest/gtest.h>

#include <string>

#include "base/tensor.h"
#include "runtime/error.h"

namespace openaclnn {
namespace {

TEST(TensorApiTest, FailedDimsAllocationReportsInnerNullptr) {
  TakeRecentErrors();
  const int64_t shape[] = {2, 3};
  aclTensor* tensor =
      aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, nullptr);
  ASSERT_NE(tensor, nullptr);
  using Query = aclnnStatus (*)(const aclTensor*, int64_t**, uint64_t*);
  for (Query query : {&aclGetViewShape, &aclGetViewStrides, &aclGetStorageShape}) {
    int64_t* dims = nullptr;
    uint64_t count = 5;
    FailDimsAllocationsForTesting(1);
    EXPECT_EQ(query(tensor, &dims, &count), ACLNN_ERR_INNER_NULLPTR);
    EXPECT_EQ(dims, nullptr);
    EXPECT_EQ(count, 5u);
    const std::string message = TakeRecentErrors();
    EXPECT_NE(message.find("AclNN_Inner_Error(EZ9999)"), std::string::npos) << message;
    // The hook is spent: the next call succeeds.
    ASSERT_EQ(query(tensor, &dims, &count), ACLNN_SUCCESS);
    EXPECT_EQ(count, 2u);
    delete[] dims;
  }
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace openaclnn
