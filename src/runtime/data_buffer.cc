// aclDataBuffer: a (data, size) pair the caller owns the memory of. Live buffers are tracked so a
// destroyed or foreign pointer is reported instead of freed twice.
#include <cstdint>
#include <limits>
#include <mutex>
#include <new>
#include <unordered_set>

#include "acl/acl_base.h"
#include "runtime/fork.h"
#include "runtime/log.h"
#include "runtime/report.h"

struct aclDataBuffer {
  void* data;
  size_t size;
};

namespace openaclnn {
namespace {

struct BufferTable {
  std::mutex mu;
  std::unordered_set<const aclDataBuffer*> live;
};

BufferTable& Buffers() {
  static auto* table = [] {
    auto* created = new BufferTable;
    HoldAcrossFork(&created->mu, ForkRank::kTable);
    return created;
  }();
  return *table;
}

bool IsLive(const aclDataBuffer* buffer) {
  BufferTable& table = Buffers();
  std::lock_guard<std::mutex> lock(table.mu);
  return table.live.count(buffer) != 0;
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  try {
    auto* buffer = new aclDataBuffer{data, size};
    BufferTable& table = Buffers();
    std::lock_guard<std::mutex> lock(table.mu);
    try {
      table.live.insert(buffer);
    } catch (...) {
      delete buffer;
      throw;
    }
    return buffer;
  } catch (...) {
    ReportFailure(ACL_ERROR_BAD_ALLOC, kRuntimeInnerError,
                  "aclCreateDataBuffer: out of host memory.");
    return nullptr;
  }
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  return Guarded(__func__, [&](const char* func) {
    if (dataBuffer == nullptr) return ReportNull(func, "dataBuffer");
    BufferTable& table = Buffers();
    {
      std::lock_guard<std::mutex> lock(table.mu);
      if (table.live.erase(dataBuffer) == 0) {
        return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "dataBuffer", PointerText(dataBuffer),
                             "it is not a live data buffer (never created, or already destroyed)");
      }
    }
    delete dataBuffer;
    return ACL_SUCCESS;
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  return Guarded(__func__, [&](const char* func) {
    if (dataBuffer == nullptr) return ReportNull(func, "dataBuffer");
    if (!IsLive(dataBuffer)) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "dataBuffer", PointerText(dataBuffer),
                           "it is not a live data buffer (never created, or already destroyed)");
    }
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  return dataBuffer == nullptr ? nullptr : dataBuffer->data;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  if (dataBuffer == nullptr) return 0;
  if (dataBuffer->size > std::numeric_limits<uint32_t>::max()) {
    Log(LogLevel::kWarning,
        "aclGetDataBufferSize: size %zu does not fit in 32 bits; use "
        "aclGetDataBufferSizeV2",
        dataBuffer->size);
  }
  return static_cast<uint32_t>(dataBuffer->size);
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  return dataBuffer == nullptr ? 0 : dataBuffer->size;
}

}  // extern "C"
