// The CUDA backend lives in its own library, libopenaclnn_cuda.so, beside this one: it is
// loaded only when OPENACLNN_DEVICE=cuda asks for it, so neither this library nor any CANN-named
// link needs CUDA to load. That library links the CUDA runtime statically and needs only the
// driver; without a driver or a GPU it reports why and no device.
#include <dlfcn.h>

#include <string>

#include "runtime/device.h"

namespace openaclnn {
namespace {

constexpr const char* kCudaLibrary = "libopenaclnn_cuda.so";
// The one symbol the CUDA library exports: fills a Backend (see runtime/device.h).
constexpr const char* kCudaEntry = "openaclnn_cuda_backend";

// The folder this library was loaded from, with a trailing '/'; empty if unknown.
std::string OwnFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadCudaBackend), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

void LoadCudaBackend(Backend* backend) {
  const std::string path = OwnFolder() + kCudaLibrary;
  // Never closed: its devices and kernels live as long as the process.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    backend->unavailable_reason = "no CUDA device: the CUDA backend (" + path +
                                  ") could not be loaded (" + (why ? why : "unknown reason") +
                                  "); this build of OpenACLNN may have been made without nvcc";
    return;
  }
  using Entry = void (*)(Backend*);
  auto entry = reinterpret_cast<Entry>(dlsym(library, kCudaEntry));
  if (entry == nullptr) {
    backend->unavailable_reason = "no CUDA device: " + path + " lacks " + kCudaEntry;
    return;
  }
  entry(backend);
}

}  // namespace openaclnn
