// aclTensorList / aclScalarList: owning lists of tensors or scalars.
#include <algorithm>
#include <new>
#include <vector>

#include "base/containers.h"
#include "base/object_registry.h"
#include "base/status.h"
#include "base/tensor.h"

namespace openaclnn {
namespace {

template <class List>
ObjectRegistry<List>& Lists() {
  static auto* registry = new ObjectRegistry<List>;  // never destroyed: used at exit too
  return *registry;
}

bool IsLive(const aclTensor* tensor) { return IsLiveTensor(tensor); }
bool IsLive(const aclScalar* scalar) { return IsLiveScalar(scalar); }
aclnnStatus DestroyElement(const aclTensor* tensor) { return aclDestroyTensor(tensor); }
aclnnStatus DestroyElement(const aclScalar* scalar) { return aclDestroyScalar(scalar); }

std::vector<aclTensor*>& Elements(aclTensorList* list) { return list->tensors; }
std::vector<aclScalar*>& Elements(aclScalarList* list) { return list->scalars; }
size_t ListLength(const aclTensorList* list) { return list->tensors.size(); }
size_t ListLength(const aclScalarList* list) { return list->scalars.size(); }

// Takes the given elements over. Null elements are kept (absent entries); an element that is
// not a live object of its type makes the whole call fail, since the list would own garbage.
template <class List, class Element>
List* CreateList(const char* api, const char* element_type, const Element* const* values,
                 uint64_t size) {
  if (values != nullptr) {
    for (uint64_t i = 0; i < size; ++i) {
      if (values[i] != nullptr && !IsLive(values[i])) {
        Fail(ACLNN_ERR_PARAM_INVALID, "%s: element %llu (%p) is not a live %s.", api,
             static_cast<unsigned long long>(i), static_cast<const void*>(values[i]), element_type);
        return nullptr;
      }
    }
  }
  auto* list = new (std::nothrow) List;
  if (list == nullptr) return nullptr;
  if (values != nullptr && size > 0) {
    try {
      auto& elements = Elements(list);
      elements.reserve(size);
      for (uint64_t i = 0; i < size; ++i) elements.push_back(const_cast<Element*>(values[i]));
    } catch (...) {
      delete list;
      Fail(ACLNN_ERR_INNER, "%s: cannot store %llu elements (out of memory).", api,
           static_cast<unsigned long long>(size));
      return nullptr;
    }
  }
  if (!Lists<List>().Add(list)) {
    delete list;
    return nullptr;
  }
  return list;
}

// Destroys the list and every element it owns. An element the caller already destroyed is
// skipped and reported (161002) after everything else is freed; an element listed twice is
// destroyed once.
template <class List>
aclnnStatus DestroyList(const char* api, const char* type, const List* list) {
  if (list == nullptr) return ACLNN_SUCCESS;
  if (!Lists<List>().Remove(list)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live %s (destroyed twice?).", api,
                static_cast<const void*>(list), type);
  }
  auto* owned = const_cast<List*>(list);
  auto& elements = Elements(owned);
  size_t dead = 0;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i] == nullptr) continue;
    if (std::find(elements.begin(), elements.begin() + static_cast<std::ptrdiff_t>(i),
                  elements[i]) != elements.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;  // listed earlier, already destroyed in this call
    }
    if (!IsLive(elements[i])) {
      ++dead;
      continue;
    }
    DestroyElement(elements[i]);
  }
  const aclnnStatus status =
      dead == 0 ? ACLNN_SUCCESS
                : Fail(ACLNN_ERR_PARAM_INVALID,
                       "%s: %zu element(s) of %s %p were already destroyed; a list owns its "
                       "elements, destroy only the list.",
                       api, dead, type, static_cast<const void*>(list));
  delete owned;
  return status;
}

template <class List>
aclnnStatus ListSize(const char* api, const char* type, const List* list, uint64_t* size) {
  if (list == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: list is nullptr.", api);
  if (size == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: size is nullptr.", api);
  if (!Lists<List>().Contains(list)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live %s.", api,
                static_cast<const void*>(list), type);
  }
  *size = ListLength(list);
  return ACLNN_SUCCESS;
}

}  // namespace

bool IsLiveTensorList(const aclTensorList* list) { return Lists<aclTensorList>().Contains(list); }
bool IsLiveScalarList(const aclScalarList* list) { return Lists<aclScalarList>().Contains(list); }

}  // namespace openaclnn

using openaclnn::CreateList;
using openaclnn::DestroyList;
using openaclnn::ListSize;

extern "C" {

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  return CreateList<aclTensorList>("aclCreateTensorList", "aclTensor", value, size);
}

aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  return CreateList<aclScalarList>("aclCreateScalarList", "aclScalar", value, size);
}

aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  return DestroyList("aclDestroyTensorList", "aclTensorList", array);
}

aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  return DestroyList("aclDestroyScalarList", "aclScalarList", array);
}

aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  return ListSize("aclGetTensorListSize", "aclTensorList", tensorList, size);
}

aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  return ListSize("aclGetScalarListSize", "aclScalarList", scalarList, size);
}

}  // extern "C"
