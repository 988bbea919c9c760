#include "atk_dump.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace openaclnn::tools {
namespace {

// JSON string literal; case files and error messages are ASCII, so only these need escapes.
std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The golden's (atk_golden.py's) name for what the op computes.
const char* OpKey(const openaclnnOpDescriptor& op) {
  switch (op.kind) {
    case OPENACLNN_OP_GRAD_SELF:
      return "backward";
    case OPENACLNN_OP_GRAD_TARGET:
      return "target_backward";
    default:
      return "forward";
  }
}

// Appends the tensor to data.bin and describes it in the manifest.
void DumpTensor(const HostTensor& tensor, std::ofstream& data, std::ostream& manifest) {
  manifest << "{\"name\": " << Quote(tensor.name) << ", \"dtype\": \"" << DtypeName(tensor.dtype)
           << "\", \"shape\": [";
  for (size_t i = 0; i < tensor.shape.size(); ++i) manifest << (i ? ", " : "") << tensor.shape[i];
  manifest << "], \"offset\": " << data.tellp() << ", \"nbytes\": " << tensor.bytes.size() << "}";
  data.write(reinterpret_cast<const char*>(tensor.bytes.data()),
             static_cast<std::streamsize>(tensor.bytes.size()));
}

void DumpCase(const CaseRun& run, std::ofstream& data, std::ostream& manifest) {
  const AtkCase& atk_case = *run.atk_case;
  manifest << "  {\"id\": " << atk_case.id << ", \"op\": \"" << OpKey(*atk_case.op)
           << "\", \"reduction\": " << atk_case.reduction
           << ", \"error\": " << (run.error.empty() ? "null" : Quote(run.error))
           << ", \"tensors\": [";
  if (run.error.empty()) {
    for (const HostTensor& input : run.inputs) {
      DumpTensor(input, data, manifest);
      manifest << ", ";
    }
    DumpTensor(run.out, data, manifest);
  }
  manifest << "]}";
}

}  // namespace

void WriteDump(const std::string& dir, const std::string& case_file, uint64_t seed,
               const std::vector<CaseRun>& runs) {
  std::ofstream data(dir + "/data.bin", std::ios::binary);
  std::ostringstream manifest;
  manifest << "{\"case_file\": " << Quote(case_file) << ", \"seed\": " << seed
           << ", \"cases\": [\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    DumpCase(runs[i], data, manifest);
    manifest << (i + 1 < runs.size() ? ",\n" : "\n");
  }
  manifest << "]}\n";
  std::ofstream manifest_file(dir + "/manifest.json");
  manifest_file << manifest.str();
  if (!data.good() || !manifest_file.good()) {
    throw std::runtime_error("cannot write the dump in " + dir);
  }
}

}  // namespace openaclnn::tools
