#include "base/tensor.h"

#include <algorithm>
#include <new>

#include "base/object_registry.h"
#include "base/status.h"
#include "runtime/data_type_size.h"
#include "runtime/error.h"
#include "runtime/report.h"

namespace openaclnn {
namespace {

// Row-major strides of `shape` (an empty shape's too: it has no elements, but its strides are
// still reported); false when one does not fit in int64.
bool ContiguousStrides(const std::vector<int64_t>& shape, std::vector<int64_t>* strides) {
  strides->assign(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) {
    if (__builtin_mul_overflow((*strides)[i], shape[i], &(*strides)[i - 1])) return false;
  }
  return true;
}

// aclInitTensor's update: everything but the lifetime fields.
void MoveDescription(aclTensor* from, aclTensor* to) {
  to->view_shape = std::move(from->view_shape);
  to->strides = std::move(from->strides);
  to->offset = from->offset;
  to->storage_shape = std::move(from->storage_shape);
  to->dtype = from->dtype;
  to->format = from->format;
  to->data = from->data;
}

ObjectRegistry<aclTensor>& Tensors() {
  static ObjectRegistry<aclTensor> registry;
  return registry;
}

// Fills `tensor` from the C arguments; false (with a message recorded) if they cannot describe
// a tensor at all. Views that are merely unsafe to read are rejected later, by the op, with
// ViewProblem, as CANN does.
bool Describe(aclTensor* tensor, const int64_t* view_dims, uint64_t view_rank, int32_t dtype,
              const int64_t* strides, int64_t offset, int32_t format, const int64_t* storage_dims,
              uint64_t storage_rank, void* data) {
  if ((view_dims == nullptr && view_rank > 0) || (storage_dims == nullptr && storage_rank > 0)) {
    Fail(ACLNN_ERR_PARAM_NULLPTR,
         "aclCreateTensor: viewDims or storageDims is null but its "
         "length is not 0.");
    return false;
  }
  std::vector<int64_t> view(view_dims, view_dims + view_rank);
  std::vector<int64_t> storage(storage_dims, storage_dims + storage_rank);
  if (ElementCount(view) < 0 || ElementCount(storage) < 0) {
    Fail(ACLNN_ERR_PARAM_INVALID,
         "aclCreateTensor: shape %s (storage %s) has a negative dimension or more than 2^63 "
         "elements.",
         ShapeString(view).c_str(), ShapeString(storage).c_str());
    return false;
  }
  if (strides != nullptr) {
    tensor->strides.assign(strides, strides + view_rank);
  } else if (!ContiguousStrides(view, &tensor->strides)) {
    Fail(ACLNN_ERR_PARAM_INVALID,
         "aclCreateTensor: the contiguous strides of shape %s overflow int64; pass strides.",
         ShapeString(view).c_str());
    return false;
  }
  tensor->view_shape = std::move(view);
  tensor->storage_shape = std::move(storage);
  tensor->offset = offset;
  tensor->dtype = dtype;
  tensor->format = format;
  tensor->data = data;
  return true;
}

}  // namespace

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || __builtin_mul_overflow(count, dim, &count)) return -1;
  }
  return count;
}

bool IsLiveTensor(const aclTensor* tensor) { return Tensors().Contains(tensor); }

bool IsAclFormat(int64_t format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FRACTAL_Z_3D:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
      return true;
    default:
      return false;
  }
}

void RetainTensor(aclTensor* tensor) { tensor->references.fetch_add(1, std::memory_order_relaxed); }

void ReleaseTensor(aclTensor* tensor) {
  if (tensor->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete tensor;
}

bool SetDataIfLive(aclTensor* tensor, void* data) {
  return Tensors().UseIfLive(tensor, [&] { tensor->data = data; });
}

std::string ViewProblem(const aclTensor& tensor) {
  if (tensor.offset < 0) return "its offset " + std::to_string(tensor.offset) + " is negative";
  int64_t last = tensor.offset;  // largest element index the view touches
  for (size_t i = 0; i < tensor.view_shape.size(); ++i) {
    if (tensor.strides[i] < 0) {
      return "its stride " + std::to_string(tensor.strides[i]) + " is negative";
    }
    if (tensor.view_shape[i] == 0) return "";  // an empty view touches nothing
    int64_t reach;
    if (__builtin_mul_overflow(tensor.strides[i], tensor.view_shape[i] - 1, &reach) ||
        __builtin_add_overflow(last, reach, &last)) {
      return "its strides overflow int64";
    }
  }
  const int64_t storage = ElementCount(tensor.storage_shape);
  if (last >= storage) {
    return "it reaches element " + std::to_string(last) + " but its storage shape " +
           ShapeString(tensor.storage_shape) + " holds " + std::to_string(storage) + " elements";
  }
  // Kernels address elements as byte offsets from the storage's start.
  const auto element_bytes = static_cast<int64_t>(std::max<size_t>(DataTypeBytes(tensor.dtype), 1));
  int64_t bytes;
  if (__builtin_mul_overflow(last + 1, element_bytes, &bytes)) {
    return "its element " + std::to_string(last) +
           " lies beyond 2^63 bytes from the storage's start";
  }
  return "";
}

}  // namespace openaclnn

using openaclnn::Fail;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  auto* tensor = new (std::nothrow) aclTensor;
  if (tensor == nullptr) return nullptr;
  bool described = false;
  try {
    described = openaclnn::Describe(tensor, viewDims, viewDimsNum,
                                    static_cast<int32_t>(openaclnn::EnumValue(dataType)), stride,
                                    offset, static_cast<int32_t>(openaclnn::EnumValue(format)),
                                    storageDims, storageDimsNum, tensorData);
  } catch (const std::bad_alloc&) {
    Fail(ACLNN_ERR_INNER_NULLPTR, "aclCreateTensor: out of memory.");
  }
  if (!described) {
    delete tensor;
    return nullptr;
  }
  if (!openaclnn::Tensors().Add(tensor)) {
    delete tensor;
    return nullptr;
  }
  return tensor;
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t* stride, int64_t offset,
                          aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                          void* tensorDataAddr) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: tensor is null.");
  if (!openaclnn::IsLiveTensor(tensor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "aclInitTensor: tensor is not a live aclTensor.");
  }
  try {
    aclTensor updated;
    if (!openaclnn::Describe(&updated, viewDims, viewDimsNum,
                             static_cast<int32_t>(openaclnn::EnumValue(dataType)), stride, offset,
                             static_cast<int32_t>(openaclnn::EnumValue(format)), storageDims,
                             storageDimsNum, tensorDataAddr)) {
      return ACLNN_ERR_PARAM_INVALID;
    }
    openaclnn::MoveDescription(&updated, tensor);
    return ACLNN_SUCCESS;
  } catch (const std::bad_alloc&) {
    return Fail(ACLNN_ERR_INNER_NULLPTR, "aclInitTensor: out of memory.");
  }
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  if (!openaclnn::Tensors().Remove(tensor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "aclDestroyTensor: %p is not a live aclTensor (destroyed twice?).",
                static_cast<const void*>(tensor));
  }
  // Executors that name it keep its memory until they go, and see it marked destroyed.
  auto* dead = const_cast<aclTensor*>(tensor);
  dead->destroyed.store(true, std::memory_order_release);
  openaclnn::ReleaseTensor(dead);
  return ACLNN_SUCCESS;
}

}  // extern "C"
