#include "atk_dump.h"

#include <stdexcept>
#include <vector>

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

// The golden's (atk_golden.py's) names for the op's family and for what the op computes.
const char* FamilyKey(const openaclnnOpDescriptor& op) {
  return op.family == OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY ? "binary_cross_entropy"
                                                            : "bce_with_logits";
}

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

// Appends the tensor to data.bin, describes it in the manifest and frees its bytes.
void DumpTensor(HostTensor* tensor, std::ofstream& data, std::ostream& manifest) {
  manifest << "{\"name\": " << Quote(tensor->name) << ", \"dtype\": \"" << DtypeName(tensor->dtype)
           << "\", \"shape\": [";
  for (size_t i = 0; i < tensor->shape.size(); ++i) {
    manifest << (i ? ", " : "") << tensor->shape[i];
  }
  manifest << "], \"offset\": " << data.tellp() << ", \"nbytes\": " << tensor->bytes.size() << "}";
  data.write(reinterpret_cast<const char*>(tensor->bytes.data()),
             static_cast<std::streamsize>(tensor->bytes.size()));
  std::vector<uint8_t>().swap(tensor->bytes);
}

}  // namespace

DumpWriter::DumpWriter(const std::string& dir, const std::string& case_file, uint64_t seed)
    : dir_(dir), data_(dir + "/data.bin", std::ios::binary) {
  manifest_ << "{\"case_file\": " << Quote(case_file) << ", \"seed\": " << seed
            << ", \"cases\": [\n";
}

void DumpWriter::Add(CaseRun* run) {
  const AtkCase& atk_case = *run->atk_case;
  manifest_ << (first_ ? "" : ",\n") << "  {\"id\": " << atk_case.id << ", \"family\": \""
            << FamilyKey(*atk_case.op) << "\", \"op\": \"" << OpKey(*atk_case.op)
            << "\", \"reduction\": " << atk_case.reduction
            << ", \"error\": " << (run->error.empty() ? "null" : Quote(run->error))
            << ", \"skipped\": " << (run->skipped.empty() ? "null" : Quote(run->skipped))
            << ", \"tensors\": [";
  first_ = false;
  if (run->error.empty() && run->skipped.empty()) {
    for (HostTensor& input : run->inputs) {
      DumpTensor(&input, data_, manifest_);
      manifest_ << ", ";
    }
    DumpTensor(&run->out, data_, manifest_);
  }
  manifest_ << "]}";
  if (!data_.good()) throw std::runtime_error("cannot write " + dir_ + "/data.bin");
}

void DumpWriter::Finish() {
  manifest_ << "\n]}\n";
  data_.close();
  std::ofstream manifest_file(dir_ + "/manifest.json");
  manifest_file << manifest_.str();
  if (!data_.good() || !manifest_file.good()) {
    throw std::runtime_error("cannot write the dump in " + dir_);
  }
}

}  // namespace openaclnn::tools
