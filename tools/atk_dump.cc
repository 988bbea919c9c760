#include "atk_dump.h"

#include <cmath>
#include <cstdio>
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

// A double exactly (%.17g), in Python's JSON spelling where it is not finite.
std::string Number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

// What the op computes, in the golden's (atk_golden.py's) words.
const char* KindName(openaclnnOpKind kind) {
  switch (kind) {
    case OPENACLNN_OP_GRAD_SELF:
      return "grad_self";
    case OPENACLNN_OP_GRAD_TARGET:
      return "grad_target";
    case OPENACLNN_OP_LOSS_AND_GRAD:
      return "loss_and_grad";
    default:
      return "loss";
  }
}

// How the output's shape follows a reduction, in the golden's words.
const char* ReducedName(int reduced) {
  switch (reduced) {
    case OPENACLNN_REDUCED_TO_ONE:
      return "to_one";
    case OPENACLNN_REDUCED_FIRST_DIM:
      return "first_dim";
    default:
      return "never";
  }
}

// The op's first output operand, its result (role OUT).
const openaclnnOperand* OutputOperand(const openaclnnOpDescriptor& op) {
  for (size_t i = 0; i < op.operandCount; ++i) {
    if (op.operands[i].output) return &op.operands[i];
  }
  return nullptr;
}

// Appends the tensor to data.bin, describes it in the manifest and frees its bytes.
void DumpTensor(HostTensor* tensor, std::ofstream& data, std::ostream& manifest) {
  manifest << "{\"name\": " << Quote(tensor->name) << ", \"role\": \"" << RoleName(tensor->role)
           << "\", \"dtype\": \"" << DtypeName(tensor->dtype) << "\", \"shape\": [";
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
  const openaclnnOpDescriptor& op = *atk_case.op;
  const openaclnnOperand* output = OutputOperand(op);
  manifest_ << (first_ ? "" : ",\n") << "  {\"id\": " << atk_case.id << ", \"api\": \"" << op.api
            << "\", \"kind\": \"" << KindName(op.kind)
            << "\", \"reduction\": " << atk_case.reduction << ", \"out_reduced\": \""
            << ReducedName(output != nullptr ? output->reduced : OPENACLNN_REDUCED_NEVER)
            << "\", \"attributes\": {";
  for (size_t k = 0; k < atk_case.attributes.size(); ++k) {
    manifest_ << (k ? ", " : "") << Quote(op.attributes[k].name) << ": "
              << Number(atk_case.attributes[k]);
  }
  manifest_ << "}, \"error\": " << (run->error.empty() ? "null" : Quote(run->error))
            << ", \"skipped\": " << (run->skipped.empty() ? "null" : Quote(run->skipped))
            << ", \"tensors\": [";
  first_ = false;
  const bool ran = run->error.empty() && run->skipped.empty();
  DumpTensors(ran ? &run->inputs : nullptr);
  manifest_ << "], \"outputs\": [";
  DumpTensors(ran ? &run->outputs : nullptr);
  manifest_ << "]}";
  if (!data_.good()) throw std::runtime_error("cannot write " + dir_ + "/data.bin");
}

void DumpWriter::DumpTensors(std::vector<HostTensor>* tensors) {
  for (size_t i = 0; tensors != nullptr && i < tensors->size(); ++i) {
    if (i > 0) manifest_ << ", ";
    DumpTensor(&(*tensors)[i], data_, manifest_);
  }
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
