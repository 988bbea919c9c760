// openaclnn._binding: the Python package's only compiled part. It hands caller memory (NumPy
// arrays through the buffer protocol, anything else through __dlpack__) to the public C API as
// strided aclTensors, without copying, runs one op with the GIL released and raises
// openaclnn.Error (ShapeError, DtypeError: openaclnn._error.error picks the kind) with the
// library's status and message when the C API rejects the call.
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"
#include "openaclnn/op_table.h"

namespace py = pybind11;

namespace openaclnn::python {
namespace {

// The status of a parameter the C API would reject as invalid (ACLNN_ERR_PARAM_INVALID); the
// binding uses it for what it rejects itself before reaching the C API.
constexpr int kParamInvalid = 161002;

// What the binding raises; translated into openaclnn.Error(status, message).
struct Failure {
  int status;
  std::string message;
};

[[noreturn]] void Fail(int status, std::string message) {
  throw Failure{status, std::move(message)};
}

std::string RecentMessage() {
  const char* message = aclGetRecentErrMsg();
  return message != nullptr ? message : "";
}

// ---------------------------------------------------------------------------------------------
// DLPack's stable ABI (dlpack.h, unversioned "dltensor" capsules, which every producer exports
// when asked without max_version).

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr int32_t kDLCPU = 1;
enum DLCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};

// ---------------------------------------------------------------------------------------------
// One operand: a strided view (element strides) over caller memory, and whatever keeps that
// memory alive and exported until the call ends.

class Operand {
 public:
  Operand(py::handle object, const char* name, bool writable) : name_(name) {
    if (IsTorchTensor(object)) {
      FromTorch(object);
    } else if (PyObject_CheckBuffer(object.ptr())) {
      FromBuffer(object, writable);
    } else if (py::hasattr(object, "__dlpack__")) {
      FromDlpack(object);
    } else {
      Fail(kParamInvalid, std::string(name) +
                              " must be a NumPy array, a PyTorch CPU tensor or "
                              "an object with __dlpack__, not " +
                              std::string(py::str(py::type::handle_of(object).attr("__name__"))));
    }
  }
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;
  ~Operand() {
    if (buffer_) PyBuffer_Release(&*buffer_);
  }

  // The aclTensor over this view; the storage is the view's own extent, starting at its first
  // element (so offset 0): the C API reads exactly the elements the view names. The caller's
  // host address is the device address: on the CPU backend device memory is this process's
  // memory, and the C API takes any address as tensor data. (A backend with memory of its own
  // would need the caller's pages mapped for it first, as CANN's aclrtHostRegister does.)
  aclTensor* CreateTensor() const {
    int64_t extent = 1;
    for (size_t d = 0; d < shape_.size(); ++d) {
      if (shape_[d] == 0) extent = 0;
    }
    if (extent != 0) {
      for (size_t d = 0; d < shape_.size(); ++d) extent += (shape_[d] - 1) * strides_[d];
    }
    const int64_t storage[1] = {extent};
    return aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides_.data(), 0, ACL_FORMAT_ND,
                           storage, 1, data_);
  }

 private:
  void FromBuffer(py::handle object, bool writable) {
    buffer_.emplace();
    const int flags = writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO;
    if (PyObject_GetBuffer(object.ptr(), &*buffer_, flags) != 0) {
      buffer_.reset();
      throw py::error_already_set();
    }
    const Py_buffer& view = *buffer_;
    dtype_ = BufferDtype(view.format != nullptr ? view.format : "B", view.itemsize);
    data_ = view.buf;
    for (int d = 0; d < view.ndim; ++d) {
      shape_.push_back(view.shape[d]);
      strides_.push_back(ElementStride(view.strides[d], view.itemsize));
    }
  }

  // A torch tensor through its public attributes (data_ptr, shape, stride, dtype, is_cpu, the
  // same in PyTorch 1.x and 2.x): a third of what a DLPack export costs per call, and it reads
  // tensors that require grad as they are.
  // Attribute names are Python strings made once (a lookup by C string builds one per call),
  // and shape and strides are read from their tuples directly: together a third of the
  // binding's own cost for a small call.
  void FromTorch(py::handle tensor) {
    static PyObject* const is_cpu = PyUnicode_InternFromString("is_cpu");
    static PyObject* const dtype = PyUnicode_InternFromString("dtype");
    static PyObject* const data_ptr = PyUnicode_InternFromString("data_ptr");
    static PyObject* const shape = PyUnicode_InternFromString("shape");
    static PyObject* const stride = PyUnicode_InternFromString("stride");
    if (!Attribute(tensor, is_cpu).cast<bool>()) {
      Fail(kParamInvalid, std::string(name_) + " is a torch tensor on " +
                              std::string(py::str(tensor.attr("device"))) +
                              "; the package reads CPU tensors only");
    }
    dtype_ = TorchDtype(Attribute(tensor, dtype));
    data_ = reinterpret_cast<void*>(Call(tensor, data_ptr).cast<uintptr_t>());
    shape_ = Int64s(Attribute(tensor, shape));
    strides_ = Int64s(Call(tensor, stride));
    for (const int64_t element_stride : strides_) CheckStride(element_stride);
  }

  static py::object Attribute(py::handle object, PyObject* name) {
    PyObject* value = PyObject_GetAttr(object.ptr(), name);
    if (value == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(value);
  }

  static py::object Call(py::handle object, PyObject* method) {
    PyObject* value = PyObject_CallMethodObjArgs(object.ptr(), method, nullptr);
    if (value == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(value);
  }

  // A tuple of ints (torch.Size is a tuple).
  static std::vector<int64_t> Int64s(const py::object& tuple) {
    if (!PyTuple_Check(tuple.ptr())) return tuple.cast<std::vector<int64_t>>();
    const Py_ssize_t size = PyTuple_GET_SIZE(tuple.ptr());
    std::vector<int64_t> values(static_cast<size_t>(size));
    for (Py_ssize_t i = 0; i < size; ++i) {
      values[static_cast<size_t>(i)] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple.ptr(), i));
    }
    if (PyErr_Occurred()) throw py::error_already_set();
    return values;
  }

  aclDataType TorchDtype(py::handle dtype) const {
    static const auto& known = *new std::vector<std::pair<py::object, aclDataType>>([] {
      const py::module_ torch = py::module_::import("torch");
      std::vector<std::pair<py::object, aclDataType>> table;
      for (const auto& [name, acl] : std::initializer_list<std::pair<const char*, aclDataType>>{
               {"float32", ACL_FLOAT},
               {"float16", ACL_FLOAT16},
               {"bfloat16", ACL_BF16},
               {"float64", ACL_DOUBLE},
               {"int8", ACL_INT8},
               {"uint8", ACL_UINT8},
               {"int16", ACL_INT16},
               {"int32", ACL_INT32},
               {"int64", ACL_INT64},
               {"bool", ACL_BOOL},
               {"complex64", ACL_COMPLEX64},
               {"complex128", ACL_COMPLEX128}}) {
        table.emplace_back(torch.attr(name), acl);
      }
      return table;
    }());
    for (const auto& [object, acl] : known) {
      if (object.is(dtype)) return acl;
    }
    return Unsupported(std::string(py::str(dtype)));
  }

  static bool IsTorchTensor(py::handle object) {
    // torch is looked up only once the caller has imported it; NumPy users never load it.
    static PyObject* tensor_type = nullptr;
    if (tensor_type == nullptr) {
      PyObject* torch = PyImport_GetModule(py::str("torch").ptr());
      if (torch == nullptr) {
        PyErr_Clear();
        return false;
      }
      tensor_type = PyObject_GetAttrString(torch, "Tensor");
      Py_DECREF(torch);
      if (tensor_type == nullptr) throw py::error_already_set();
    }
    const int is = PyObject_IsInstance(object.ptr(), tensor_type);
    if (is < 0) throw py::error_already_set();
    return is == 1;
  }

  void FromDlpack(py::handle object) {
    capsule_ = object.attr("__dlpack__")();
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule_.ptr(), "dltensor"));
    if (managed == nullptr) throw py::error_already_set();
    const DLTensor& t = managed->dl_tensor;
    if (t.device.device_type != kDLCPU) {
      Fail(kParamInvalid, std::string(name_) + " is not in CPU memory (DLPack device type " +
                              std::to_string(t.device.device_type) + ")");
    }
    dtype_ = DlpackDtype(t.dtype);
    const int64_t itemsize = (t.dtype.bits + 7) / 8;
    data_ = static_cast<char*>(t.data) + t.byte_offset;
    int64_t contiguous = 1;
    shape_.assign(t.shape, t.shape + t.ndim);
    strides_.resize(t.ndim);
    for (int d = t.ndim - 1; d >= 0; --d) {
      // Null strides mean a C-contiguous tensor (DLPack < 0.8 allowed it).
      strides_[d] = t.strides != nullptr ? t.strides[d] : contiguous;
      contiguous *= shape_[d];
      CheckStride(strides_[d] * itemsize);
    }
  }

  int64_t ElementStride(Py_ssize_t bytes, Py_ssize_t itemsize) const {
    CheckStride(bytes);
    if (bytes % itemsize != 0) {
      Fail(kParamInvalid, std::string(name_) + " has a stride of " + std::to_string(bytes) +
                              " bytes, not a multiple of its element size " +
                              std::to_string(itemsize));
    }
    return bytes / itemsize;
  }

  // The C API addresses views with non-negative strides only; a reversed view (a[::-1]) would
  // need a copy, which the binding never makes behind the caller's back.
  void CheckStride(int64_t stride) const {
    if (stride < 0) {
      Fail(kParamInvalid, std::string(name_) +
                              " has a negative stride (a reversed view); the C API takes "
                              "non-negative strides only: pass a copy (e.g. a.copy())");
    }
  }

  // A dtype the C API knows (it rejects those it does not support with its own message).
  aclDataType BufferDtype(std::string_view format, Py_ssize_t itemsize) const {
    while (!format.empty() && std::strchr("@=<>!", format.front()) != nullptr) {
      format.remove_prefix(1);
    }
    if (format == "f") return ACL_FLOAT;
    if (format == "e") return ACL_FLOAT16;
    if (format == "d") return ACL_DOUBLE;
    if (format == "?") return ACL_BOOL;
    if (format == "Zf") return ACL_COMPLEX64;
    if (format == "Zd") return ACL_COMPLEX128;
    if (format.size() == 1 && std::strchr("bhilq", format.front()) != nullptr) {
      return IntegerDtype(itemsize, true);
    }
    if (format.size() == 1 && std::strchr("BHILQ", format.front()) != nullptr) {
      return IntegerDtype(itemsize, false);
    }
    return Unsupported("buffer format '" + std::string(format) + "'");
  }

  aclDataType DlpackDtype(DLDataType dtype) const {
    if (dtype.lanes == 1) {
      switch (dtype.code) {
        case kDLFloat:
          if (dtype.bits == 32) return ACL_FLOAT;
          if (dtype.bits == 16) return ACL_FLOAT16;
          if (dtype.bits == 64) return ACL_DOUBLE;
          break;
        case kDLBfloat:
          if (dtype.bits == 16) return ACL_BF16;
          break;
        case kDLInt:
        case kDLUInt:
          return IntegerDtype(dtype.bits / 8, dtype.code == kDLInt);
        case kDLBool:
          return ACL_BOOL;
        case kDLComplex:
          if (dtype.bits == 64) return ACL_COMPLEX64;
          if (dtype.bits == 128) return ACL_COMPLEX128;
          break;
        default:
          break;
      }
    }
    return Unsupported("DLPack dtype (code " + std::to_string(dtype.code) + ", " +
                       std::to_string(dtype.bits) + " bits, " + std::to_string(dtype.lanes) +
                       " lanes)");
  }

  aclDataType IntegerDtype(int64_t bytes, bool is_signed) const {
    switch (bytes) {
      case 1:
        return is_signed ? ACL_INT8 : ACL_UINT8;
      case 2:
        return is_signed ? ACL_INT16 : ACL_UINT16;
      case 4:
        return is_signed ? ACL_INT32 : ACL_UINT32;
      case 8:
        return is_signed ? ACL_INT64 : ACL_UINT64;
      default:
        return Unsupported(std::to_string(bytes) + "-byte integers");
    }
  }

  [[noreturn]] aclDataType Unsupported(const std::string& what) const {
    Fail(kParamInvalid, std::string(name_) + " has an unsupported dtype (" + what +
                            "); the ops take float32, float16, bfloat16 and the integer dtypes "
                            "their C APIs list");
  }

  const char* name_;
  aclDataType dtype_ = ACL_DT_UNDEFINED;
  void* data_ = nullptr;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  std::optional<Py_buffer> buffer_;
  py::object capsule_;  // keeps a DLPack export alive; its destructor runs the deleter
};

// ---------------------------------------------------------------------------------------------
// The runtime, per thread: ACL binds the current context to the calling thread, so every Python
// thread that calls in sets the device once and gets a stream of its own (threads then run side
// by side and each synchronizes only its own work).

void InitializeOnce() {
  static std::once_flag once;
  static aclError status = ACL_SUCCESS;
  std::call_once(once, [] {
    status = aclInit(nullptr);
    // The host program may have initialised ACL itself.
    if (status == ACL_ERROR_REPEAT_INITIALIZE) status = ACL_SUCCESS;
  });
  if (status != ACL_SUCCESS) Fail(status, "aclInit failed: " + RecentMessage());
}

// A thread's workspace, kept between calls (they are synchronous) and grown on demand: an
// aclrtMalloc + aclrtFree per call would cost as much as the math of a small one.
class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() { Release(); }

  void* Reserve(uint64_t bytes) {
    if (bytes > bytes_) {
      Release();
      if (const aclError status = aclrtMalloc(&address_, bytes, ACL_MEM_MALLOC_HUGE_FIRST)) {
        Fail(status, RecentMessage());
      }
      bytes_ = bytes;
    }
    return address_;
  }

 private:
  void Release() {
    if (address_ != nullptr) aclrtFree(address_);
    address_ = nullptr;
    bytes_ = 0;
  }

  void* address_ = nullptr;
  uint64_t bytes_ = 0;
};

class ThreadRuntime {
 public:
  ThreadRuntime() {
    InitializeOnce();
    if (const aclError status = aclrtSetDevice(0)) {
      Fail(status, "aclrtSetDevice(0) failed: " + RecentMessage());
    }
    if (const aclError status = aclrtCreateStream(&stream_)) {
      const std::string message = RecentMessage();
      aclrtResetDevice(0);
      Fail(status, "aclrtCreateStream failed: " + message);
    }
  }
  ThreadRuntime(const ThreadRuntime&) = delete;
  ThreadRuntime& operator=(const ThreadRuntime&) = delete;
  ~ThreadRuntime() {
    workspace_.reset();
    aclrtDestroyStream(stream_);
    aclrtResetDevice(0);
  }
  aclrtStream stream() const { return stream_; }
  Workspace& workspace() { return *workspace_; }

 private:
  aclrtStream stream_ = nullptr;
  std::unique_ptr<Workspace> workspace_ = std::make_unique<Workspace>();
};

ThreadRuntime& ThisThread() {
  thread_local ThreadRuntime runtime;
  return runtime;
}

// ---------------------------------------------------------------------------------------------
// One op call.

struct TensorDeleter {
  void operator()(aclTensor* tensor) const { aclDestroyTensor(tensor); }
};
using TensorHandle = std::unique_ptr<aclTensor, TensorDeleter>;

using Tensors = std::vector<const aclTensor*>;

// The ops come from the library's op table (openaclnn/op_table.h): its descriptors run both
// phases with the tensors in API order, so no op is switched on here.
const openaclnnOpDescriptor& OpNamed(const char* api) {
  const openaclnnOpDescriptor* op = openaclnnFindOp(api);
  if (op == nullptr) throw std::logic_error(std::string("the library has no op ") + api);
  return *op;
}

// Both phases of one op on this thread's stream, then a synchronisation. Called without the GIL.
// `attributes`: the op's scalar attributes in API order (op.attributeCount of them), or empty
// for their defaults.
void Launch(const openaclnnOpDescriptor& op, Tensors operands, int64_t reduction,
            const std::vector<double>& attributes) {
  ThreadRuntime& runtime = ThisThread();
  const aclrtStream stream = runtime.stream();
  uint64_t bytes = 0;
  aclOpExecutor* executor = nullptr;
  if (const aclnnStatus status = op.getWorkspaceSize(
          operands.data(), reduction, attributes.empty() ? nullptr : attributes.data(), &bytes,
          &executor)) {
    Fail(status, RecentMessage());
  }
  void* workspace = runtime.workspace().Reserve(bytes);
  if (const aclnnStatus status = op.launch(workspace, bytes, executor, stream)) {
    Fail(status, RecentMessage());
  }
  if (const aclError status = aclrtSynchronizeStream(stream)) Fail(status, RecentMessage());
}

TensorHandle Create(const Operand& operand) {
  TensorHandle tensor(operand.CreateTensor());
  if (tensor == nullptr) Fail(kParamInvalid, RecentMessage());
  return tensor;
}

// Runs `op` on `inputs` (None for an absent optional operand) writing into `outputs`, both in
// the op's API order, with its attributes (empty: their defaults).
void Run(const openaclnnOpDescriptor& op, const py::tuple& inputs, int64_t reduction,
         const py::tuple& outputs, const std::vector<const char*>& input_names,
         const std::vector<const char*>& output_names, const std::vector<double>& attributes = {}) {
  if (!attributes.empty() && attributes.size() != op.attributeCount) {
    throw py::value_error(std::string(op.api) + " takes " + std::to_string(op.attributeCount) +
                          " attributes");
  }
  std::vector<std::unique_ptr<Operand>> in_operands(inputs.size());
  std::vector<std::unique_ptr<Operand>> out_operands(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_none()) {
      in_operands[i] = std::make_unique<Operand>(inputs[i], input_names[i], false);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    out_operands[i] = std::make_unique<Operand>(outputs[i], output_names[i], true);
  }
  py::gil_scoped_release release;
  std::vector<TensorHandle> owned;
  Tensors operands;  // API order: the inputs, then the outputs
  for (const auto& operand : in_operands) {
    owned.push_back(operand ? Create(*operand) : nullptr);
    operands.push_back(owned.back().get());
  }
  for (const auto& operand : out_operands) {
    owned.push_back(Create(*operand));
    operands.push_back(owned.back().get());
  }
  if (operands.size() != op.operandCount) {
    throw std::logic_error(std::string(op.api) + ": the binding passes another operand count");
  }
  Launch(op, std::move(operands), reduction, attributes);
}

// Python users get a rejected call's reason in the exception, not also as a log line on stderr.
// The library reads its log level once, at its first log call; unless the environment chose a
// level (OPENACLNN_LOG_LEVEL, ASCEND_GLOBAL_LOG_LEVEL), that first read is made here, with
// OPENACLNN_LOG_LEVEL=null set only for its duration, so that child processes inherit nothing.
void QuietUnlessAsked() {
  if (std::getenv("OPENACLNN_LOG_LEVEL") != nullptr ||
      std::getenv("ASCEND_GLOBAL_LOG_LEVEL") != nullptr) {
    return;
  }
  setenv("OPENACLNN_LOG_LEVEL", "null", 1);
  aclAppLog(ACL_DEBUG, __func__, __FILE__, __LINE__, "the openaclnn package is loaded");
  unsetenv("OPENACLNN_LOG_LEVEL");
}

// The file the library was loaded from (`python -m openaclnn`).
std::string LibraryPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&aclInit), &info) == 0 || info.dli_fname == nullptr) {
    return "?";
  }
  return info.dli_fname;
}

}  // namespace
}  // namespace openaclnn::python

PYBIND11_MODULE(_binding, m) {
  using namespace openaclnn::python;
  m.doc() = "OpenACLNN's C API on caller memory (internal; use the openaclnn package)";
  QuietUnlessAsked();
  // Kept for the process's life, as the module itself is: openaclnn._error.error(status,
  // message) makes the Error of the right kind (shape, dtype or other).
  static py::handle make_error =
      py::object(py::module_::import("openaclnn._error").attr("error")).release();
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Failure& failure) {
      const py::object error = make_error(failure.status, failure.message);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
  m.def(
      "info",
      [] {
        return py::dict(py::arg("library") = LibraryPath(),
                        py::arg("simd_target") = openaclnnKernelSimdTarget(),
                        py::arg("threads") = openaclnnKernelThreads());
      },
      "Where the library was loaded from, its kernels' SIMD target and thread count");
  // The op table itself, for programs that drive every op alike (the conformance helpers).
  m.def(
      "ops",
      [] {
        py::list ops;
        for (size_t i = 0; i < openaclnnOpCount(); ++i) {
          const openaclnnOpDescriptor& op = *openaclnnGetOp(i);
          py::list operands;
          for (size_t k = 0; k < op.operandCount; ++k) {
            const openaclnnOperand& operand = op.operands[k];
            operands.append(py::dict(py::arg("name") = operand.name,
                                     py::arg("role") = static_cast<int>(operand.role),
                                     py::arg("optional") = operand.optional != 0,
                                     py::arg("output") = operand.output != 0));
          }
          py::list attributes;
          for (size_t k = 0; k < op.attributeCount; ++k) {
            const openaclnnAttribute& attribute = op.attributes[k];
            attributes.append(py::dict(py::arg("name") = attribute.name,
                                       py::arg("type") = static_cast<int>(attribute.type),
                                       py::arg("default") = attribute.defaultValue));
          }
          ops.append(py::dict(py::arg("api") = op.api,
                              py::arg("family") = static_cast<int>(op.family),
                              py::arg("kind") = static_cast<int>(op.kind),
                              py::arg("operands") = operands, py::arg("attributes") = attributes));
        }
        return ops;
      },
      "The library's op table: per op its API name, family, kind, operands in API order and "
      "scalar attributes in API order");
  m.def(
      "run",
      [](const std::string& api, const py::tuple& operands, int64_t reduction,
         const std::vector<double>& attributes) {
        const openaclnnOpDescriptor& op = OpNamed(api.c_str());
        if (operands.size() != op.operandCount) {
          throw py::value_error(api + " takes " + std::to_string(op.operandCount) + " operands");
        }
        py::list inputs, outputs;
        std::vector<const char*> input_names, output_names;
        for (size_t k = 0; k < op.operandCount; ++k) {  // outputs follow inputs in every API
          const bool output = op.operands[k].output != 0;
          (output ? outputs : inputs).append(operands[k]);
          (output ? output_names : input_names).push_back(op.operands[k].name);
        }
        Run(op, py::tuple(inputs), reduction, py::tuple(outputs), input_names, output_names,
            attributes);
      },
      py::arg("api"), py::arg("operands"), py::arg("reduction"),
      py::arg("attributes") = std::vector<double>{},
      "Both phases of the op named `api` on its operands in API order (None: absent), with its "
      "scalar attributes in API order (empty: their defaults; bools as 0 or 1)");
  m.def(
      "forward",
      [](py::handle self, py::handle target, py::handle weight, py::handle pos_weight,
         int64_t reduction, py::handle out) {
        static const openaclnnOpDescriptor& op = OpNamed("aclnnBinaryCrossEntropyWithLogits");
        Run(op, py::make_tuple(self, target, weight, pos_weight), reduction, py::make_tuple(out),
            {"input", "target", "weight", "pos_weight"}, {"out"});
      },
      "aclnnBinaryCrossEntropyWithLogits into `out`");
  m.def(
      "backward",
      [](py::handle grad_output, py::handle self, py::handle target, py::handle weight,
         py::handle pos_weight, int64_t reduction, py::handle out) {
        static const openaclnnOpDescriptor& op =
            OpNamed("aclnnBinaryCrossEntropyWithLogitsBackward");
        Run(op, py::make_tuple(grad_output, self, target, weight, pos_weight), reduction,
            py::make_tuple(out), {"grad_output", "input", "target", "weight", "pos_weight"},
            {"out"});
      },
      "aclnnBinaryCrossEntropyWithLogitsBackward into `out`");
  m.def(
      "target_backward",
      [](py::handle grad_output, py::handle self, py::handle target, py::handle weight,
         py::handle pos_weight, int64_t reduction, py::handle out) {
        static const openaclnnOpDescriptor& op =
            OpNamed("aclnnBinaryCrossEntropyWithLogitsTargetBackward");
        Run(op, py::make_tuple(grad_output, self, target, weight, pos_weight), reduction,
            py::make_tuple(out), {"grad_output", "input", "target", "weight", "pos_weight"},
            {"out"});
      },
      "aclnnBinaryCrossEntropyWithLogitsTargetBackward into `out`");
  m.def(
      "forward_and_grad",
      [](py::handle self, py::handle target, py::handle weight, py::handle pos_weight,
         int64_t reduction, py::handle out, py::handle grad_self) {
        // gradOutput null: the gradient for grad_output = 1
        static const openaclnnOpDescriptor& op =
            OpNamed("aclnnBinaryCrossEntropyWithLogitsAndGrad");
        Run(op, py::make_tuple(self, target, weight, pos_weight, py::none()), reduction,
            py::make_tuple(out, grad_self),
            {"input", "target", "weight", "pos_weight", "grad_output"}, {"out", "grad_input"});
      },
      "aclnnBinaryCrossEntropyWithLogitsAndGrad (gradOutput = 1) into `out` and `grad_self`");
  m.def(
      "binary_cross_entropy",
      [](py::handle self, py::handle target, py::handle weight, int64_t reduction, py::handle out) {
        static const openaclnnOpDescriptor& op = OpNamed("aclnnBinaryCrossEntropy");
        Run(op, py::make_tuple(self, target, weight), reduction, py::make_tuple(out),
            {"input", "target", "weight"}, {"out"});
      },
      "aclnnBinaryCrossEntropy into `out`");
  m.def(
      "binary_cross_entropy_backward",
      [](py::handle grad_output, py::handle self, py::handle target, py::handle weight,
         int64_t reduction, py::handle out) {
        static const openaclnnOpDescriptor& op = OpNamed("aclnnBinaryCrossEntropyBackward");
        Run(op, py::make_tuple(grad_output, self, target, weight), reduction, py::make_tuple(out),
            {"grad_output", "input", "target", "weight"}, {"out"});
      },
      "aclnnBinaryCrossEntropyBackward into `out`");
}
