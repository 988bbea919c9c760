// The structs behind aclScalar, the arrays and the lists, as ops read them.
#include "base/containers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include "base/dtype.h"
#include "base/tensor.h"

namespace openaclnn {
namespace {

TEST(ScalarTest, ValueSizesFollowTheDataType) {
  EXPECT_EQ(ScalarValueSize(ACL_BOOL), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_INT8), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_UINT8), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_INT4), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_UINT1), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_HIFLOAT8), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT8_E5M2), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT8_E4M3FN), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT8_E8M0), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT6_E3M2), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT6_E2M3), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT4_E2M1), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT4_E1M2), 1u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(ScalarValueSize(ACL_BF16), 2u);
  EXPECT_EQ(ScalarValueSize(ACL_INT16), 2u);
  EXPECT_EQ(ScalarValueSize(ACL_UINT16), 2u);
  EXPECT_EQ(ScalarValueSize(ACL_FLOAT), 4u);
  EXPECT_EQ(ScalarValueSize(ACL_INT32), 4u);
  EXPECT_EQ(ScalarValueSize(ACL_UINT32), 4u);
  EXPECT_EQ(ScalarValueSize(ACL_COMPLEX32), 4u);
  EXPECT_EQ(ScalarValueSize(ACL_INT64), 8u);
  EXPECT_EQ(ScalarValueSize(ACL_UINT64), 8u);
  EXPECT_EQ(ScalarValueSize(ACL_DOUBLE), 8u);
  EXPECT_EQ(ScalarValueSize(ACL_COMPLEX64), 8u);
  EXPECT_EQ(ScalarValueSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(ScalarValueSize(ACL_STRING), 0u);
  EXPECT_EQ(ScalarValueSize(ACL_DT_UNDEFINED), 0u);
  EXPECT_EQ(ScalarValueSize(static_cast<aclDataType>(5)), 0u);
}

template <class T>
aclScalar* Make(T value, aclDataType dtype) {
  return aclCreateScalar(&value, dtype);
}

TEST(ScalarTest, CopiesExactlyTheValueBytes) {
  int8_t value = -3;
  aclScalar* scalar = aclCreateScalar(&value, ACL_INT8);
  ASSERT_NE(scalar, nullptr);
  EXPECT_TRUE(IsLiveScalar(scalar));
  value = 9;  // copied at creation
  EXPECT_EQ(scalar->dtype, ACL_INT8);
  EXPECT_EQ(static_cast<int8_t>(scalar->bytes[0]), -3);
  for (size_t i = 1; i < sizeof(scalar->bytes); ++i) EXPECT_EQ(scalar->bytes[i], 0) << i;
  EXPECT_EQ(ScalarToInt64(*scalar), -3);
  EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  EXPECT_FALSE(IsLiveScalar(scalar));
}

TEST(ScalarTest, ConvertsEveryNumericType) {
  struct Case {
    aclScalar* scalar;
    double as_double;
    int64_t as_int;
  };
  const Case cases[] = {
      {Make(1.5f, ACL_FLOAT), 1.5, 1},
      {Make(-2.75, ACL_DOUBLE), -2.75, -2},
      {Make(FloatToFloat16(0.5f), ACL_FLOAT16), 0.5, 0},
      {Make(FloatToBFloat16(-3.0f), ACL_BF16), -3.0, -3},
      {Make(static_cast<int8_t>(-8), ACL_INT8), -8, -8},
      {Make(static_cast<uint8_t>(200), ACL_UINT8), 200, 200},
      {Make(static_cast<int16_t>(-300), ACL_INT16), -300, -300},
      {Make(static_cast<uint16_t>(60000), ACL_UINT16), 60000, 60000},
      {Make(static_cast<int32_t>(-70000), ACL_INT32), -70000, -70000},
      {Make(static_cast<uint32_t>(4000000000u), ACL_UINT32), 4e9, 4000000000},
      {Make(static_cast<int64_t>(-5), ACL_INT64), -5, -5},
      {Make(static_cast<uint64_t>(7), ACL_UINT64), 7, 7},
      {Make(true, ACL_BOOL), 1, 1},
      {Make(false, ACL_BOOL), 0, 0},
      {Make(std::complex<float>(2.0f, 9.0f), ACL_COMPLEX64), 2, 2},
      {Make(std::complex<double>(-4.5, 9.0), ACL_COMPLEX128), -4.5, -4},
  };
  for (const Case& c : cases) {
    ASSERT_NE(c.scalar, nullptr);
    EXPECT_EQ(ScalarToDouble(*c.scalar), c.as_double) << c.scalar->dtype;
    EXPECT_EQ(ScalarToInt64(*c.scalar), c.as_int) << c.scalar->dtype;
    EXPECT_EQ(aclDestroyScalar(c.scalar), ACLNN_SUCCESS);
  }
  const uint16_t complex32[2] = {FloatToFloat16(1.25f), FloatToFloat16(8.0f)};
  aclScalar* half_complex = aclCreateScalar(const_cast<uint16_t*>(complex32), ACL_COMPLEX32);
  ASSERT_NE(half_complex, nullptr);
  EXPECT_EQ(ScalarToDouble(*half_complex), 1.25);
  EXPECT_EQ(aclDestroyScalar(half_complex), ACLNN_SUCCESS);
}

TEST(ScalarTest, IntegerConversionSaturates) {
  aclScalar* big = Make(std::numeric_limits<uint64_t>::max(), ACL_UINT64);
  aclScalar* huge = Make(1e30, ACL_DOUBLE);
  aclScalar* tiny = Make(-1e30f, ACL_FLOAT);
  aclScalar* nan = Make(std::numeric_limits<double>::quiet_NaN(), ACL_DOUBLE);
  aclScalar* fp8 = Make(static_cast<uint8_t>(0x38), ACL_FLOAT8_E4M3FN);
  EXPECT_EQ(ScalarToInt64(*big), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ScalarToInt64(*huge), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ScalarToInt64(*tiny), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ScalarToInt64(*nan), 0);
  EXPECT_TRUE(std::isnan(ScalarToDouble(*fp8)));  // not decoded
  EXPECT_EQ(fp8->bytes[0], 0x38);
  for (aclScalar* scalar : {big, huge, tiny, nan, fp8}) {
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  }
}

TEST(ArrayTest, StructsHoldDeepCopies) {
  int64_t ints[] = {4, -5, 6};
  float floats[] = {0.5f, -1.5f};
  bool bools[] = {true, false, true};
  aclIntArray* int_array = aclCreateIntArray(ints, 3);
  aclFloatArray* float_array = aclCreateFloatArray(floats, 2);
  aclBoolArray* bool_array = aclCreateBoolArray(bools, 3);
  ints[0] = 0;
  floats[0] = 0;
  bools[0] = false;
  ASSERT_NE(int_array, nullptr);
  ASSERT_NE(float_array, nullptr);
  ASSERT_NE(bool_array, nullptr);
  EXPECT_EQ(int_array->values, (std::vector<int64_t>{4, -5, 6}));
  EXPECT_EQ(float_array->values, (std::vector<float>{0.5f, -1.5f}));
  EXPECT_EQ(bool_array->values, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_TRUE(IsLiveIntArray(int_array));
  EXPECT_TRUE(IsLiveFloatArray(float_array));
  EXPECT_TRUE(IsLiveBoolArray(bool_array));
  // Registries are per type: an int array is not a float array.
  EXPECT_FALSE(IsLiveFloatArray(reinterpret_cast<aclFloatArray*>(int_array)));
  EXPECT_EQ(aclDestroyIntArray(int_array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(float_array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(bool_array), ACLNN_SUCCESS);
  EXPECT_FALSE(IsLiveIntArray(int_array));
  EXPECT_FALSE(IsLiveFloatArray(float_array));
  EXPECT_FALSE(IsLiveBoolArray(bool_array));
}

TEST(ListTest, StructsHoldTheGivenElements) {
  const int64_t shape[] = {2};
  aclTensor* a = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr);
  aclTensor* b = aclCreateTensor(shape, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr);
  aclTensor* tensors[] = {a, nullptr, b};
  aclTensorList* list = aclCreateTensorList(tensors, 3);
  ASSERT_NE(list, nullptr);
  EXPECT_TRUE(IsLiveTensorList(list));
  EXPECT_EQ(list->tensors, (std::vector<aclTensor*>{a, nullptr, b}));  // the same objects
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
  EXPECT_FALSE(IsLiveTensorList(list));
  EXPECT_FALSE(IsLiveTensor(a));
  EXPECT_FALSE(IsLiveTensor(b));

  double value = 3.0;
  aclScalar* s = aclCreateScalar(&value, ACL_DOUBLE);
  aclScalar* scalars[] = {s};
  aclScalarList* scalar_list = aclCreateScalarList(scalars, 1);
  ASSERT_NE(scalar_list, nullptr);
  EXPECT_TRUE(IsLiveScalarList(scalar_list));
  EXPECT_EQ(scalar_list->scalars, (std::vector<aclScalar*>{s}));
  EXPECT_EQ(ScalarToDouble(*scalar_list->scalars[0]), 3.0);
  EXPECT_EQ(aclDestroyScalarList(scalar_list), ACLNN_SUCCESS);
  EXPECT_FALSE(IsLiveScalarList(scalar_list));
  EXPECT_FALSE(IsLiveScalar(s));
}

}  // namespace
}  // namespace openaclnn
