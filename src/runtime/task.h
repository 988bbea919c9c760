// A unit of stream work: a small callable stored inline, so queueing work never allocates.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

namespace openaclnn {

class Task {
 public:
  static constexpr size_t kCapacity = 128;

  Task() = default;

  // F is copied bytewise, so it must be trivially copyable (a lambda capturing pointers and
  // plain values is); anything that owns resources travels as a pointer to an object that
  // the callable itself releases.
  template <class F>
  requires(!std::is_same_v<std::decay_t<F>, Task>) explicit Task(const F& callable)
      : invoke_(&Invoke<F>) {
    static_assert(sizeof(F) <= kCapacity, "task callable too large");
    static_assert(alignof(F) <= alignof(std::max_align_t), "task callable over-aligned");
    static_assert(std::is_trivially_copyable_v<F>, "task callable must be trivially copyable");
    std::memcpy(storage_, &callable, sizeof(F));
  }

  // A task that holds something (a reference) also says how to let it go when a stream drops
  // the task unrun (aclrtDestroyStreamForce, process exit).
  template <class F, class D>
  Task(const F& callable, const D& on_drop) : Task(WithDrop<F, D>{callable, on_drop}) {
    drop_ = &Drop<F, D>;
  }

  void operator()() const { invoke_(storage_); }
  // Called instead of operator() for a task that will never run.
  void Dropped() const {
    if (drop_ != nullptr) drop_(storage_);
  }
  explicit operator bool() const { return invoke_ != nullptr; }

 private:
  template <class F, class D>
  struct WithDrop {
    F run;
    D drop;
    void operator()() const { run(); }
  };

  template <class F>
  static void Invoke(const void* storage) {
    (*std::launder(reinterpret_cast<const F*>(storage)))();
  }
  template <class F, class D>
  static void Drop(const void* storage) {
    std::launder(reinterpret_cast<const WithDrop<F, D>*>(storage))->drop();
  }

  alignas(std::max_align_t) unsigned char storage_[kCapacity] = {};
  void (*invoke_)(const void*) = nullptr;
  void (*drop_)(const void*) = nullptr;
};

}  // namespace openaclnn
