#include "runtime/soc.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "acl/acl_rt.h"

namespace {

TEST(Soc, Bf16FamiliesAreRecognised) {
  for (const char* name : {"Ascend910B", "Ascend910B1", "Ascend910B4", "Ascend910_9391",
                           "Ascend910_9599", "Ascend950PR", "Ascend910E"}) {
    EXPECT_TRUE(openaclnn::SocSupportsBf16(name)) << name;
  }
}

TEST(Soc, FamiliesWithoutBf16AreRecognised) {
  for (const char* name : {"Ascend910", "Ascend910A", "Ascend910ProA", "Ascend910ProB",
                           "Ascend910PremiumA", "Ascend310P3", "Ascend310P1", "Ascend310B1"}) {
    EXPECT_FALSE(openaclnn::SocSupportsBf16(name)) << name;
  }
}

TEST(Soc, UnknownNamesCountAsAscend910B) {
  EXPECT_TRUE(openaclnn::SocSupportsBf16("MadeUpChip42"));
}

TEST(Soc, NameComesFromTheEnvironment) {
  unsetenv("OPENACLNN_SOC_VERSION");
  EXPECT_STREQ(aclrtGetSocName(), "Ascend910B");
  EXPECT_TRUE(openaclnn::SocSupportsBf16());

  setenv("OPENACLNN_SOC_VERSION", "Ascend910ProB", 1);
  const char* name = aclrtGetSocName();
  EXPECT_STREQ(name, "Ascend910ProB");
  EXPECT_FALSE(openaclnn::SocSupportsBf16());
  int32_t bf16 = -1;
  EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &bf16), ACL_SUCCESS);
  EXPECT_EQ(bf16, 0);

  setenv("OPENACLNN_SOC_VERSION", "Ascend910B3", 1);
  EXPECT_STREQ(aclrtGetSocName(), "Ascend910B3");
  EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &bf16), ACL_SUCCESS);
  EXPECT_EQ(bf16, 1);
  EXPECT_STREQ(name, "Ascend910ProB");  // earlier pointers stay valid
  unsetenv("OPENACLNN_SOC_VERSION");
}

TEST(Soc, CannAttributes) {
  const aclCannAttr* list = nullptr;
  size_t count = 0;
  ASSERT_EQ(aclGetCannAttributeList(&list, &count), ACL_SUCCESS);
  ASSERT_NE(list, nullptr);
  bool has_bf16 = false;
  bool has_inf_nan = false;
  for (size_t i = 0; i < count; ++i) {
    has_bf16 = has_bf16 || list[i] == ACL_CANN_ATTR_BF16;
    has_inf_nan = has_inf_nan || list[i] == ACL_CANN_ATTR_INF_NAN;
  }
  EXPECT_TRUE(has_bf16);
  EXPECT_TRUE(has_inf_nan);
  int32_t value = -1;
  EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &value), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_BF16, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetCannAttributeList(nullptr, &count), ACL_ERROR_INVALID_PARAM);
}

}  // namespace
