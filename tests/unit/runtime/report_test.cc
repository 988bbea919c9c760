// The failure path every runtime entry point shares: message text, queue per thread, last error.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "acl/acl_rt.h"

namespace {

TEST(Report, NullArgumentUsesCannTextAndIsClearedOnRead) {
  aclGetRecentErrMsg();  // start from an empty queue
  EXPECT_STREQ(aclGetRecentErrMsg(), "");
  EXPECT_EQ(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  const std::string text = aclGetRecentErrMsg();
  EXPECT_NE(text.find("Runtime_Parameter_Error(EH0002)"), std::string::npos) << text;
  EXPECT_NE(text.find("aclrtMalloc"), std::string::npos) << text;
  EXPECT_NE(text.find("Argument devPtr must not be null."), std::string::npos) << text;
  EXPECT_STREQ(aclGetRecentErrMsg(), "");
}

TEST(Report, InvalidValueUsesCannText) {
  aclGetRecentErrMsg();
  void* block = nullptr;
  EXPECT_EQ(aclrtMalloc(&block, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  const std::string text = aclGetRecentErrMsg();
  EXPECT_NE(text.find("Runtime_Parameter_Error(EH0001)"), std::string::npos) << text;
  EXPECT_NE(text.find("Value 0 for size is invalid. Reason: "), std::string::npos) << text;
}

TEST(Report, MessagesStayWithTheirThreadAndNewestComesFirst) {
  aclGetRecentErrMsg();
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
  std::string other;
  std::thread([&] { other = aclGetRecentErrMsg(); }).join();
  EXPECT_EQ(other, "");
  const std::string text = aclGetRecentErrMsg();
  const size_t newest = text.find("aclrtFreeHost");
  const size_t older = text.find("aclrtFree:");
  ASSERT_NE(newest, std::string::npos) << text;
  ASSERT_NE(older, std::string::npos) << text;
  EXPECT_LT(newest, older);
  EXPECT_NE(text.find("TraceBack"), std::string::npos) << text;
}

TEST(Report, LastErrorIsPeekedAndTaken) {
  aclrtGetLastError(ACL_RT_THREAD_LEVEL);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  int32_t device = 0;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

}  // namespace
