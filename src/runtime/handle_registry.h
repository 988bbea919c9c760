// Live-object tables behind the opaque handles users hold (aclrtStream, aclrtEvent, aclrtContext).
// A handle is a fresh number, never a pointer, so a destroyed or made-up handle is recognised as
// such even when the allocator later reuses the object's address.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/fork.h"

namespace openaclnn {

template <class T>
class HandleRegistry {
 public:
  // `tag` goes into the top bits so handles of different kinds never coincide.
  explicit HandleRegistry(uint16_t tag) : next_(static_cast<uintptr_t>(tag) << 48) {
    HoldAcrossFork(&mu_, ForkRank::kTable);
  }
  ~HandleRegistry() { ReleaseFromFork(&mu_); }
  HandleRegistry(const HandleRegistry&) = delete;
  HandleRegistry& operator=(const HandleRegistry&) = delete;

  void* Add(T* object) {
    std::lock_guard<std::mutex> lock(mu_);
    next_ += 16;
    live_.emplace(next_, object);
    return reinterpret_cast<void*>(next_);
  }

  // nullptr when `handle` names no live object.
  T* Find(const void* handle) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto found = live_.find(reinterpret_cast<uintptr_t>(handle));
    return found == live_.end() ? nullptr : found->second;
  }

  // Unregisters and returns the object; nullptr when it was not live, so of two racing
  // destroyers only one gets it.
  T* Remove(const void* handle) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto found = live_.find(reinterpret_cast<uintptr_t>(handle));
    if (found == live_.end()) return nullptr;
    T* object = found->second;
    live_.erase(found);
    return object;
  }

  std::vector<T*> All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<T*> objects;
    objects.reserve(live_.size());
    for (const auto& entry : live_) objects.push_back(entry.second);
    return objects;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<uintptr_t, T*> live_;
  uintptr_t next_;
};

}  // namespace openaclnn
