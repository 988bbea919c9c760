// Live-object table for the aclnn handles users hold as raw pointers (aclScalar*, aclIntArray*,
// ...): a pointer is only dereferenced after the table says it names a live object of that type.
#pragma once

#include <mutex>
#include <unordered_set>

#include "runtime/fork.h"

namespace openaclnn {

template <class T>
class ObjectRegistry {
 public:
  ObjectRegistry() { HoldAcrossFork(&mu_, ForkRank::kTable); }
  ~ObjectRegistry() { ReleaseFromFork(&mu_); }
  ObjectRegistry(const ObjectRegistry&) = delete;
  ObjectRegistry& operator=(const ObjectRegistry&) = delete;

  // False only when the table could not grow (out of memory); the object is then not live.
  bool Add(const T* object) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    try {
      live_.insert(object);
      return true;
    } catch (...) {
      return false;
    }
  }

  bool Contains(const T* object) const noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.count(object) != 0;
  }

  // Unregisters `object`; false when it was not live, so of two racing destroyers only one wins.
  bool Remove(const T* object) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.erase(object) != 0;
  }

  // Calls use(object) if it is live, under the table's lock, so it cannot be removed (and
  // destroyed) meanwhile; false when it is not live.
  template <class Use>
  bool UseIfLive(const T* object, Use&& use) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.count(object) == 0) return false;
    use();
    return true;
  }

  size_t Size() const noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.size();
  }

 private:
  mutable std::mutex mu_;
  std::unordered_set<const T*> live_;
};

}  // namespace openaclnn
