// aclIntArray / aclFloatArray / aclBoolArray: deep copies of host values.
#include <new>

#include "base/containers.h"
#include "base/object_registry.h"
#include "base/status.h"

namespace openaclnn {
namespace {

template <class Array>
ObjectRegistry<Array>& Arrays() {
  static auto* registry = new ObjectRegistry<Array>;  // never destroyed: used at exit too
  return *registry;
}

// NULL values or size 0 give an empty array; nullptr only when memory runs out.
template <class Array, class Value>
Array* CreateArray(const char* api, const Value* values, uint64_t size) {
  auto* array = new (std::nothrow) Array;
  if (array == nullptr) return nullptr;
  if (values != nullptr && size > 0) {
    try {
      array->values.assign(values, values + size);
    } catch (...) {
      delete array;
      Fail(ACLNN_ERR_INNER, "%s: cannot copy %llu values (out of memory).", api,
           static_cast<unsigned long long>(size));
      return nullptr;
    }
  }
  if (!Arrays<Array>().Add(array)) {
    delete array;
    return nullptr;
  }
  return array;
}

template <class Array>
aclnnStatus DestroyArray(const char* api, const char* type, const Array* array) {
  if (array == nullptr) return ACLNN_SUCCESS;
  if (!Arrays<Array>().Remove(array)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live %s (destroyed twice?).", api,
                static_cast<const void*>(array), type);
  }
  delete array;
  return ACLNN_SUCCESS;
}

template <class Array>
aclnnStatus ArraySize(const char* api, const char* type, const Array* array, uint64_t* size) {
  if (array == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: array is nullptr.", api);
  if (size == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: size is nullptr.", api);
  if (!Arrays<Array>().Contains(array)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live %s.", api,
                static_cast<const void*>(array), type);
  }
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // namespace

bool IsLiveIntArray(const aclIntArray* array) { return Arrays<aclIntArray>().Contains(array); }
bool IsLiveFloatArray(const aclFloatArray* array) {
  return Arrays<aclFloatArray>().Contains(array);
}
bool IsLiveBoolArray(const aclBoolArray* array) { return Arrays<aclBoolArray>().Contains(array); }

}  // namespace openaclnn

using openaclnn::ArraySize;
using openaclnn::CreateArray;
using openaclnn::DestroyArray;

extern "C" {

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return CreateArray<aclIntArray>("aclCreateIntArray", value, size);
}

aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return CreateArray<aclFloatArray>("aclCreateFloatArray", value, size);
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return CreateArray<aclBoolArray>("aclCreateBoolArray", value, size);
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return DestroyArray("aclDestroyIntArray", "aclIntArray", array);
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return DestroyArray("aclDestroyFloatArray", "aclFloatArray", array);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return DestroyArray("aclDestroyBoolArray", "aclBoolArray", array);
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return ArraySize("aclGetIntArraySize", "aclIntArray", array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return ArraySize("aclGetFloatArraySize", "aclFloatArray", array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return ArraySize("aclGetBoolArraySize", "aclBoolArray", array, size);
}

}  // extern "C"
