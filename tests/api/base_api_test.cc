// The aclnn object-model C API (aclnn/acl_meta.h, aclnn/aclnn_base.h) called as a user program
// calls it: tensors, scalars, arrays, lists, queries, executor list addresses, init and dump.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"

namespace {

constexpr const char* kParamError = "AclNN_Parameter_Error(EZ1001)";
constexpr const char* kInnerError = "AclNN_Inner_Error(EZ9999)";

std::string RecentError() {
  const char* text = aclGetRecentErrMsg();
  return text == nullptr ? std::string() : std::string(text);
}

// Pointers that never name a live object: the API must recognise them without reading them.
template <class T>
T* Bogus() {
  static uint64_t storage[8] = {};
  return reinterpret_cast<T*>(storage);
}

class BaseApiTest : public ::testing::Test {
 protected:
  void SetUp() override { RecentError(); }  // start with an empty error queue
};

std::vector<int64_t> Dims(int64_t* dims, uint64_t count) {
  std::vector<int64_t> copy(dims, dims + count);
  delete[] dims;
  return copy;
}

aclTensor* Contiguous(std::vector<int64_t> shape, aclDataType dtype = ACL_FLOAT,
                      void* data = nullptr) {
  return aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, shape.data(),
                         shape.size(), data);
}

// ---------------------------------------------------------------------------------------------
// aclCreateTensor / aclInitTensor / aclDestroyTensor

TEST_F(BaseApiTest, CreateTensorDefaultsToContiguousStrides) {
  const int64_t shape[] = {10, 20, 30};
  aclTensor* tensor =
      aclCreateTensor(shape, 3, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, shape, 3, nullptr);
  ASSERT_NE(tensor, nullptr);
  int64_t* strides = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewStrides(tensor, &strides, &count), ACLNN_SUCCESS);
  EXPECT_EQ(Dims(strides, count), (std::vector<int64_t>{600, 30, 1}));
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, CreateTensorCopiesEveryArgument) {
  std::vector<int64_t> view = {4, 2};
  std::vector<int64_t> strides = {1, 4};
  std::vector<int64_t> storage = {2, 4};
  float data[8] = {};
  aclTensor* tensor = aclCreateTensor(view.data(), view.size(), ACL_BF16, strides.data(), 3,
                                      ACL_FORMAT_NCHW, storage.data(), storage.size(), data);
  ASSERT_NE(tensor, nullptr);
  view.assign({99, 99});  // the caller's vectors may change or die
  strides.assign({99, 99});
  storage.assign({99, 99});

  int64_t* dims = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_EQ(Dims(dims, count), (std::vector<int64_t>{4, 2}));
  ASSERT_EQ(aclGetViewStrides(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_EQ(Dims(dims, count), (std::vector<int64_t>{1, 4}));
  ASSERT_EQ(aclGetStorageShape(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_EQ(Dims(dims, count), (std::vector<int64_t>{2, 4}));
  int64_t offset = -1;
  ASSERT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 3);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  ASSERT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_NCHW);
  aclDataType dtype = ACL_DT_UNDEFINED;
  ASSERT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_BF16);
  void* address = nullptr;
  ASSERT_EQ(aclGetRawTensorAddr(tensor, &address), ACLNN_SUCCESS);
  EXPECT_EQ(address, data);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, RankZeroTensorReportsEmptyShapeWithAValidArray) {
  aclTensor* tensor =
      aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  ASSERT_NE(tensor, nullptr);
  int64_t* dims = nullptr;
  uint64_t count = 7;
  ASSERT_EQ(aclGetViewShape(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_NE(dims, nullptr);
  EXPECT_EQ(count, 0u);
  delete[] dims;
  dims = nullptr;
  count = 7;
  ASSERT_EQ(aclGetViewStrides(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_NE(dims, nullptr);
  EXPECT_EQ(count, 0u);
  delete[] dims;
  dims = nullptr;
  count = 7;
  ASSERT_EQ(aclGetStorageShape(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_NE(dims, nullptr);
  EXPECT_EQ(count, 0u);
  delete[] dims;
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, CreateTensorReturnsNullForMissingDims) {
  const int64_t shape[] = {2, 3};
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, nullptr),
            nullptr);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 2, nullptr),
            nullptr);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
}

TEST_F(BaseApiTest, InitTensorReplacesTheDescription) {
  aclTensor* tensor = Contiguous({2, 3});
  ASSERT_NE(tensor, nullptr);
  const int64_t shape[] = {6};
  int data = 0;
  ASSERT_EQ(aclInitTensor(tensor, shape, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, shape, 1, &data),
            ACLNN_SUCCESS);
  int64_t* dims = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &dims, &count), ACLNN_SUCCESS);
  EXPECT_EQ(Dims(dims, count), (std::vector<int64_t>{6}));
  aclDataType dtype = ACL_DT_UNDEFINED;
  ASSERT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_INT32);
  void* address = nullptr;
  ASSERT_EQ(aclGetRawTensorAddr(tensor, &address), ACLNN_SUCCESS);
  EXPECT_EQ(address, &data);

  EXPECT_EQ(
      aclInitTensor(nullptr, shape, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclInitTensor(Bogus<aclTensor>(), shape, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, shape,
                          1, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, DestroyTensorAcceptsNullAndRejectsDeadTensors) {
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");
  aclTensor* tensor = Contiguous({1});
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_ERR_PARAM_INVALID);  // twice: recognised, no crash
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(Bogus<aclTensor>()), ACLNN_ERR_PARAM_INVALID);
}

// ---------------------------------------------------------------------------------------------
// Tensor queries

TEST_F(BaseApiTest, DimsQueriesRejectNullArguments) {
  aclTensor* tensor = Contiguous({2, 3});
  ASSERT_NE(tensor, nullptr);
  using Query = aclnnStatus (*)(const aclTensor*, int64_t**, uint64_t*);
  for (Query query : {&aclGetViewShape, &aclGetViewStrides, &aclGetStorageShape}) {
    int64_t* dims = nullptr;
    uint64_t count = 0;
    EXPECT_EQ(query(nullptr, &dims, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(RecentError().find(kParamError), std::string::npos);
    EXPECT_EQ(query(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(RecentError().find(kParamError), std::string::npos);
    EXPECT_EQ(query(tensor, &dims, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(RecentError().find(kParamError), std::string::npos);
    EXPECT_EQ(query(Bogus<aclTensor>(), &dims, &count), ACLNN_ERR_PARAM_INVALID);
    const std::string message = RecentError();
    EXPECT_NE(message.find(kParamError), std::string::npos);
    EXPECT_NE(message.find("not a live aclTensor"), std::string::npos) << message;
    EXPECT_EQ(dims, nullptr);
  }
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, ScalarQueriesRejectNullAndDeadTensors) {
  aclTensor* tensor = Contiguous({2});
  ASSERT_NE(tensor, nullptr);
  int64_t offset = 0;
  aclFormat format = ACL_FORMAT_ND;
  aclDataType dtype = ACL_FLOAT;
  void* address = nullptr;
  EXPECT_EQ(aclGetViewOffset(nullptr, &offset), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(nullptr, &format), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(nullptr, &dtype), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetRawTensorAddr(nullptr, &address), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetRawTensorAddr(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetRawTensorAddr(nullptr, &offset), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);

  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  aclTensor* dead = tensor;  // never dereferenced by the API
  EXPECT_EQ(aclGetViewOffset(dead, &offset), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetFormat(dead, &format), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetDataType(dead, &dtype), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetRawTensorAddr(dead, &address), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetRawTensorAddr(dead, &offset), ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("aclSetRawTensorAddr"), std::string::npos) << message;
}

TEST_F(BaseApiTest, RawTensorAddressRoundTrips) {
  aclTensor* tensor = Contiguous({4});
  ASSERT_NE(tensor, nullptr);
  float data[4] = {};
  void* address = &address;
  ASSERT_EQ(aclGetRawTensorAddr(tensor, &address), ACLNN_SUCCESS);
  EXPECT_EQ(address, nullptr);
  ASSERT_EQ(aclSetRawTensorAddr(tensor, data), ACLNN_SUCCESS);
  ASSERT_EQ(aclGetRawTensorAddr(tensor, &address), ACLNN_SUCCESS);
  EXPECT_EQ(address, data);
  ASSERT_EQ(aclSetRawTensorAddr(tensor, nullptr), ACLNN_SUCCESS);  // unbinding is allowed
  ASSERT_EQ(aclGetRawTensorAddr(tensor, &address), ACLNN_SUCCESS);
  EXPECT_EQ(address, nullptr);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclScalar

TEST_F(BaseApiTest, CreateScalarAcceptsEveryValueType) {
  alignas(16) unsigned char value[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  for (aclDataType dtype :
       {ACL_FLOAT,         ACL_FLOAT16,     ACL_INT8,        ACL_INT32,       ACL_UINT8,
        ACL_INT16,         ACL_UINT16,      ACL_UINT32,      ACL_INT64,       ACL_UINT64,
        ACL_DOUBLE,        ACL_BOOL,        ACL_COMPLEX64,   ACL_COMPLEX128,  ACL_BF16,
        ACL_INT4,          ACL_UINT1,       ACL_COMPLEX32,   ACL_HIFLOAT8,    ACL_FLOAT8_E5M2,
        ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E8M0, ACL_FLOAT6_E3M2, ACL_FLOAT6_E2M3, ACL_FLOAT4_E2M1,
        ACL_FLOAT4_E1M2}) {
    aclScalar* scalar = aclCreateScalar(value, dtype);
    ASSERT_NE(scalar, nullptr) << dtype;
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  }
  EXPECT_EQ(RecentError(), "");
}

TEST_F(BaseApiTest, CreateScalarRejectsNullValueAndValuelessTypes) {
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  double value = 1.0;
  EXPECT_EQ(aclCreateScalar(&value, ACL_STRING), nullptr);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclCreateScalar(&value, ACL_DT_UNDEFINED), nullptr);
  EXPECT_EQ(aclCreateScalar(&value, static_cast<aclDataType>(1000)), nullptr);
}

TEST_F(BaseApiTest, DestroyScalarAcceptsNullAndRejectsDeadScalars) {
  EXPECT_EQ(aclDestroyScalar(nullptr), ACLNN_SUCCESS);
  float value = 2.5f;
  aclScalar* scalar = aclCreateScalar(&value, ACL_FLOAT);
  ASSERT_NE(scalar, nullptr);
  value = 0.0f;  // copied at creation
  EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("aclDestroyScalar"), std::string::npos) << message;
  EXPECT_EQ(aclDestroyScalar(Bogus<aclScalar>()), ACLNN_ERR_PARAM_INVALID);
}

// ---------------------------------------------------------------------------------------------
// aclIntArray / aclFloatArray / aclBoolArray

TEST_F(BaseApiTest, ArraysCopyTheirValues) {
  std::vector<int64_t> ints = {1, 2, 3};
  std::vector<float> floats = {1.5f, 2.5f};
  bool bools[] = {true, false, true, true};
  aclIntArray* int_array = aclCreateIntArray(ints.data(), ints.size());
  aclFloatArray* float_array = aclCreateFloatArray(floats.data(), floats.size());
  aclBoolArray* bool_array = aclCreateBoolArray(bools, 4);
  ASSERT_NE(int_array, nullptr);
  ASSERT_NE(float_array, nullptr);
  ASSERT_NE(bool_array, nullptr);
  ints.clear();
  ints.shrink_to_fit();
  floats.clear();
  floats.shrink_to_fit();
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(int_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclGetFloatArraySize(float_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclGetBoolArraySize(bool_array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(aclDestroyIntArray(int_array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(float_array), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(bool_array), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, NullOrEmptyValuesGiveEmptyArrays) {
  const int64_t ints[] = {7};
  aclIntArray* arrays[] = {aclCreateIntArray(nullptr, 0), aclCreateIntArray(nullptr, 5),
                           aclCreateIntArray(ints, 0)};
  for (aclIntArray* array : arrays) {
    ASSERT_NE(array, nullptr);
    uint64_t size = 99;
    EXPECT_EQ(aclGetIntArraySize(array, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);
  }
  aclFloatArray* floats = aclCreateFloatArray(nullptr, 3);
  aclBoolArray* bools = aclCreateBoolArray(nullptr, 3);
  ASSERT_NE(floats, nullptr);
  ASSERT_NE(bools, nullptr);
  uint64_t size = 99;
  EXPECT_EQ(aclGetFloatArraySize(floats, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  size = 99;
  EXPECT_EQ(aclGetBoolArraySize(bools, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyFloatArray(floats), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(bools), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, ArrayCallsRejectNullAndDeadArrays) {
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetBoolArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);

  aclIntArray* ints = aclCreateIntArray(nullptr, 0);
  aclFloatArray* floats = aclCreateFloatArray(nullptr, 0);
  aclBoolArray* bools = aclCreateBoolArray(nullptr, 0);
  EXPECT_EQ(aclGetIntArraySize(ints, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(floats, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetBoolArraySize(bools, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);

  EXPECT_EQ(aclDestroyIntArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(ints), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(floats), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(bools), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");

  EXPECT_EQ(aclDestroyIntArray(ints), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyFloatArray(floats), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyBoolArray(bools), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetIntArraySize(ints, &size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetFloatArraySize(floats, &size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetBoolArraySize(bools, &size), ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("not a live aclBoolArray"), std::string::npos) << message;
  // A handle of another kind is not an array either.
  EXPECT_EQ(aclDestroyIntArray(Bogus<aclIntArray>()), ACLNN_ERR_PARAM_INVALID);
}

// ---------------------------------------------------------------------------------------------
// aclTensorList / aclScalarList

TEST_F(BaseApiTest, TensorListOwnsItsTensors) {
  aclTensor* tensors[] = {Contiguous({2}), nullptr, Contiguous({3, 4})};
  ASSERT_NE(tensors[0], nullptr);
  ASSERT_NE(tensors[2], nullptr);
  aclTensorList* list = aclCreateTensorList(tensors, 3);
  ASSERT_NE(list, nullptr);
  uint64_t size = 0;
  EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");
  // The elements died with the list.
  aclDataType dtype = ACL_FLOAT;
  EXPECT_EQ(aclGetDataType(tensors[0], &dtype), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetDataType(tensors[2], &dtype), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
}

TEST_F(BaseApiTest, TensorListEdgeCases) {
  aclTensorList* empty = aclCreateTensorList(nullptr, 4);
  ASSERT_NE(empty, nullptr);
  uint64_t size = 9;
  EXPECT_EQ(aclGetTensorListSize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyTensorList(empty), ACLNN_SUCCESS);
  aclTensor* one[] = {Contiguous({1})};
  aclTensorList* zero = aclCreateTensorList(one, 0);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(aclGetTensorListSize(zero, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyTensorList(zero), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensorList(nullptr), ACLNN_SUCCESS);

  // A dead element is refused.
  aclTensor* with_dead[] = {one[0], Bogus<aclTensor>()};
  EXPECT_EQ(aclCreateTensorList(with_dead, 2), nullptr);
  std::string message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("element 1"), std::string::npos) << message;

  // The same tensor twice is destroyed once.
  aclTensor* twice[] = {one[0], one[0]};
  aclTensorList* list = aclCreateTensorList(twice, 2);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");

  // An element the user destroyed behind the list's back is reported, the rest still freed.
  aclTensor* pair[] = {Contiguous({1}), Contiguous({2})};
  list = aclCreateTensorList(pair, 2);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(aclDestroyTensor(pair[0]), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_ERR_PARAM_INVALID);
  message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("already destroyed"), std::string::npos) << message;
  aclDataType dtype = ACL_FLOAT;
  EXPECT_EQ(aclGetDataType(pair[1], &dtype), ACLNN_ERR_PARAM_INVALID);

  EXPECT_EQ(aclGetTensorListSize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  list = aclCreateTensorList(nullptr, 0);
  EXPECT_EQ(aclGetTensorListSize(list, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclGetTensorListSize(Bogus<aclTensorList>(), &size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensorList(Bogus<aclTensorList>()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
}

TEST_F(BaseApiTest, ScalarListOwnsItsScalars) {
  int32_t value = 5;
  double other = 0.25;
  aclScalar* scalars[] = {aclCreateScalar(&value, ACL_INT32), nullptr,
                          aclCreateScalar(&other, ACL_DOUBLE)};
  aclScalarList* list = aclCreateScalarList(scalars, 3);
  ASSERT_NE(list, nullptr);
  uint64_t size = 0;
  EXPECT_EQ(aclGetScalarListSize(list, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyScalarList(list), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");
  EXPECT_EQ(aclDestroyScalar(scalars[0]), ACLNN_ERR_PARAM_INVALID);  // died with the list
  EXPECT_EQ(aclDestroyScalar(scalars[2]), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyScalarList(list), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
}

TEST_F(BaseApiTest, ScalarListEdgeCases) {
  aclScalarList* empty = aclCreateScalarList(nullptr, 2);
  ASSERT_NE(empty, nullptr);
  uint64_t size = 9;
  EXPECT_EQ(aclGetScalarListSize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyScalarList(empty), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyScalarList(nullptr), ACLNN_SUCCESS);

  float value = 1.0f;
  aclScalar* live = aclCreateScalar(&value, ACL_FLOAT);
  aclScalar* with_dead[] = {live, Bogus<aclScalar>()};
  EXPECT_EQ(aclCreateScalarList(with_dead, 2), nullptr);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);

  aclScalar* pair[] = {live, aclCreateScalar(&value, ACL_FLOAT)};
  aclScalarList* list = aclCreateScalarList(pair, 2);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(aclDestroyScalar(pair[1]), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyScalarList(list), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("already destroyed"), std::string::npos);
  EXPECT_EQ(aclDestroyScalar(live), ACLNN_ERR_PARAM_INVALID);  // freed by the list

  EXPECT_EQ(aclGetScalarListSize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  list = aclCreateScalarList(nullptr, 0);
  EXPECT_EQ(aclGetScalarListSize(list, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclGetScalarListSize(Bogus<aclScalarList>(), &size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyScalarList(Bogus<aclScalarList>()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyScalarList(list), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclSetDynamic*TensorAddr

TEST_F(BaseApiTest, DynamicTensorAddressesNeedAListArgument) {
  using Setter = aclnnStatus (*)(aclOpExecutor*, size_t, const size_t, aclTensorList*, void*);
  const Setter setters[] = {&aclSetDynamicInputTensorAddr,  &aclSetDynamicOutputTensorAddr,
                            &aclSetDynamicTensorAddr,       &AclSetDynamicInputTensorAddr,
                            &AclSetDynamicOutputTensorAddr, &AclSetDynamicTensorAddr};
  aclTensor* tensors[] = {Contiguous({2})};
  aclTensorList* list = aclCreateTensorList(tensors, 1);
  ASSERT_NE(list, nullptr);
  aclOpExecutor* executor = Bogus<aclOpExecutor>();
  float data[2] = {};
  for (Setter set : setters) {
    EXPECT_EQ(set(nullptr, 0, 0, list, data), ACLNN_ERR_INNER_NULLPTR);
    EXPECT_NE(RecentError().find(kInnerError), std::string::npos);
    EXPECT_EQ(set(executor, 0, 0, nullptr, data), ACLNN_ERR_INNER_NULLPTR);
    EXPECT_NE(RecentError().find(kInnerError), std::string::npos);
    EXPECT_EQ(set(executor, 3, 0, list, data), ACLNN_ERR_PARAM_INVALID);
    std::string message = RecentError();
    EXPECT_NE(message.find(kParamError), std::string::npos);
    EXPECT_NE(message.find("this executor has no tensor-list argument at irIndex 3"),
              std::string::npos)
        << message;
    EXPECT_EQ(set(executor, 0, 0, Bogus<aclTensorList>(), data), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  }
  void* address = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(tensors[0], &address), ACLNN_SUCCESS);
  EXPECT_EQ(address, nullptr);  // nothing was rebound
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclnnInit / aclnnFinalize

TEST_F(BaseApiTest, InitAcceptsNullAndReadableConfigsRepeatedly) {
  EXPECT_EQ(aclnnInit(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnInit(nullptr), ACLNN_SUCCESS);
  char path[] = "/tmp/openaclnn_base_api_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const char config[] = "{\"op_debug_config\":{\"enable_debug_kernel\":\"off\"}}";
  ASSERT_EQ(write(fd, config, sizeof(config) - 1), static_cast<ssize_t>(sizeof(config) - 1));
  close(fd);
  EXPECT_EQ(aclnnInit(path), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnInit(path), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");
  EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnInit(path), ACLNN_SUCCESS);  // init again after finalize
  EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
  unlink(path);
}

TEST_F(BaseApiTest, InitRejectsMissingConfigsAndDirectories) {
  EXPECT_EQ(aclnnInit("/nonexistent/openaclnn/config.json"), ACLNN_ERR_PARAM_INVALID);
  std::string message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("/nonexistent/openaclnn/config.json"), std::string::npos) << message;

  EXPECT_EQ(aclnnInit("/tmp"), ACLNN_ERR_PARAM_INVALID);  // a directory is not a config file
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
}

TEST_F(BaseApiTest, InitRejectsConfigsThatAreNotFiles) {
  // A directory cannot be read as a config file, whoever runs the test (root reads any file).
  char path[] = "/tmp/openaclnn_base_api_XXXXXX";
  ASSERT_NE(mkdtemp(path), nullptr);
  EXPECT_EQ(aclnnInit(path), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  rmdir(path);
}

// ---------------------------------------------------------------------------------------------
// aclDumpOpTensors

TEST_F(BaseApiTest, DumpOpTensorsValidatesArguments) {
  aclTensor* tensors[] = {Contiguous({2, 3}), nullptr, Contiguous({4}, ACL_FLOAT16)};
  EXPECT_EQ(aclDumpOpTensors("Add", "add0", tensors, 2, 1, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDumpOpTensors("Add", nullptr, tensors, 3, 0, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDumpOpTensors("Add", "add0", nullptr, 0, 0, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(RecentError(), "");

  EXPECT_EQ(aclDumpOpTensors(nullptr, "add0", tensors, 2, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclDumpOpTensors("Add", "add0", nullptr, 1, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDumpOpTensors("Add", "add0", nullptr, 0, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);
  EXPECT_EQ(aclDumpOpTensors("Add", "add0", tensors, SIZE_MAX, 2, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find(kParamError), std::string::npos);

  aclTensor* with_dead[] = {tensors[0], Bogus<aclTensor>()};
  EXPECT_EQ(aclDumpOpTensors("Add", "add0", with_dead, 1, 1, nullptr), ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentError();
  EXPECT_NE(message.find(kParamError), std::string::npos);
  EXPECT_NE(message.find("tensors[1]"), std::string::npos) << message;
  EXPECT_EQ(aclDestroyTensor(tensors[0]), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(tensors[2]), ACLNN_SUCCESS);
}

// Runs in a death-test child: turns info logging on before anything logs, dumps, and exits.
void DumpWithInfoLogging() {
  setenv("OPENACLNN_LOG_LEVEL", "info", 1);
  unsetenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  aclTensor* tensors[] = {Contiguous({2, 3}), Contiguous({5}, ACL_FLOAT16)};
  const aclnnStatus status = aclDumpOpTensors("MyAdd", "node7", tensors, 1, 1, nullptr);
  aclDestroyTensor(tensors[0]);
  aclDestroyTensor(tensors[1]);
  std::exit(status == ACLNN_SUCCESS ? 0 : 1);
}

TEST_F(BaseApiTest, DumpOpTensorsLogsShapesAndTypesAtInfoLevel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child reads the log settings afresh
  EXPECT_EXIT(DumpWithInfoLogging(), ::testing::ExitedWithCode(0),
              "MyAdd input 0: shape \\[2,3\\], dtype DT_FLOAT(.|\n)*MyAdd output 0: shape "
              "\\[5\\], dtype DT_FLOAT16");
}

}  // namespace
