#include "atk_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>

#include "json_file.h"

namespace openaclnn::tools {
namespace {

// One judged output of a case.
struct CaseResult {
  std::string output;  // the op's operand name (out, lossOut, logProbOut, ...)
  bool passed = false;
  double mere = 0, mare = 0, threshold = 0;
  double torch_mere = 0, torch_mare = 0;      // against PyTorch in the case's dtype
  double exact_mere = 0, exact_mare = 0;      // PyTorch in the case's dtype against float64
  double rounded_mere = 0, rounded_mare = 0;  // against the unrounded float64 golden
  std::string dtype, torch_dtype, note;
};

// A row of the table: output, its dtype, reduction.
using RowKey = std::tuple<std::string, std::string, int64_t>;

struct Row {
  int passed = 0, failed = 0;
  double mere = 0, mare = 0, threshold = 0, torch_mere = 0, torch_mare = 0;
  double exact_mere = 0, exact_mare = 0;
};

// Each case's results, one per judged output, by case id.
std::map<int64_t, std::vector<CaseResult>> LoadResults(const std::string& dir) {
  const std::string path = dir + "/results.json";
  if (!std::ifstream(path)) throw std::runtime_error(path + ": the golden script wrote no results");
  const Json document = ParseJsonFile(path);
  std::map<int64_t, std::vector<CaseResult>> results;
  // A metric; JSON has no infinity, so the golden script writes an unbounded error as null.
  auto metric = [](const Json& value, const char* key) {
    return value.is_null() ? HUGE_VAL : NumberOf(value, key);
  };
  // A pair [MERE, MARE] of metrics.
  auto pair = [&](const Json& entry, const char* key, double* mere, double* mare) {
    const Json::array_t& values = ArrayOf(Member(entry, key), key);
    if (values.size() != 2) throw std::runtime_error(std::string(key) + " must hold 2 numbers");
    *mere = metric(values[0], key);
    *mare = metric(values[1], key);
  };
  try {
    for (const Json& entry : ArrayOf(Member(document, "cases"), "cases")) {
      CaseResult& r = results[IntegerOf(Member(entry, "id"), "id")].emplace_back();
      r.output = StringOf(Member(entry, "output"), "output");
      r.passed = BoolOf(Member(entry, "passed"), "passed");
      r.mere = metric(Member(entry, "mere"), "mere");
      r.mare = metric(Member(entry, "mare"), "mare");
      r.threshold = NumberOf(Member(entry, "threshold"), "threshold");
      pair(entry, "vs_torch", &r.torch_mere, &r.torch_mare);
      pair(entry, "torch_vs_exact", &r.exact_mere, &r.exact_mare);
      pair(entry, "vs_rounded", &r.rounded_mere, &r.rounded_mare);
      r.dtype = StringOf(Member(entry, "dtype"), "dtype");
      r.torch_dtype = StringOf(Member(entry, "torch_dtype"), "torch_dtype");
      r.note = StringOf(Member(entry, "note"), "note");
    }
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(path + ": " + error.what());
  }
  return results;
}

std::string Describe(const AtkCase& atk_case) {
  std::string shape = "[";
  const AtkTensor* self = atk_case.Find(OPENACLNN_ROLE_SELF);
  for (size_t i = 0; self != nullptr && i < self->shape.size(); ++i) {
    if (i > 0) shape += ',';
    shape += std::to_string(self->shape[i]);
  }
  std::string dtypes;
  for (const AtkTensor& input : atk_case.inputs)
    dtypes += std::string(" ") + DtypeName(input.dtype);
  std::string attributes;
  for (size_t k = 0; k < atk_case.attributes.size(); ++k) {
    char value[48];
    std::snprintf(value, sizeof(value), ", %s %.9g", atk_case.op->attributes[k].name,
                  atk_case.attributes[k]);
    attributes += value;
  }
  return "case " + std::to_string(atk_case.id) + " (" + ReductionName(atk_case.reduction) + "," +
         dtypes + ", self " + shape + "]" + attributes + ")";
}

void PrintCase(const AtkCase& atk_case, const CaseResult& r) {
  std::printf(
      "%s %s -> %s %s: MERE %.3g (< %.3g) MARE %.3g (< %.3g) vs float64 rounded to %s; vs torch "
      "%s: %.3g / %.3g; vs unrounded float64: %.3g / %.3g",
      r.passed ? "ok  " : "FAIL", Describe(atk_case).c_str(), r.output.c_str(), r.dtype.c_str(),
      r.mere, r.threshold, r.mare, 10 * r.threshold, r.dtype.c_str(), r.torch_dtype.c_str(),
      r.torch_mere, r.torch_mare, r.rounded_mere, r.rounded_mare);
  std::printf("%s%s\n", r.note.empty() ? "" : "; ", r.note.c_str());
}

void Accumulate(const CaseResult& r, Row* row) {
  (r.passed ? row->passed : row->failed) += 1;
  row->threshold = r.threshold;
  row->mere = std::max(row->mere, r.mere);
  row->mare = std::max(row->mare, r.mare);
  row->torch_mere = std::max(row->torch_mere, r.torch_mere);
  row->torch_mare = std::max(row->torch_mare, r.torch_mare);
  row->exact_mere = std::max(row->exact_mere, r.exact_mere);
  row->exact_mare = std::max(row->exact_mare, r.exact_mare);
}

void PrintTable(const std::map<RowKey, Row>& rows) {
  std::printf(
      "\n%-10s %-5s %-9s %6s %6s | %-22s | %-21s | %-21s\n%-10s %-5s %-9s %6s %6s | %10s %11s | "
      "%10s %10s | %10s %10s\n",
      "output", "dtype", "reduction", "passed", "failed", "library vs float64",
      "library vs torch(dtype)", "torch(dtype) vs f64", "", "", "", "", "", "worst MERE",
      "worst MARE", "MERE", "MARE", "MERE", "MARE");
  for (const auto& [key, row] : rows) {
    const auto& [output, dtype, reduction] = key;
    std::printf("%-10s %-5s %-9s %6d %6d | %10.3g %11.3g | %10.3g %10.3g | %10.3g %10.3g\n",
                output.c_str(), dtype.c_str(), ReductionName(reduction), row.passed, row.failed,
                row.mere, row.mare, row.torch_mere, row.torch_mare, row.exact_mere, row.exact_mare);
  }
  std::printf(
      "(pass: MERE < T and MARE < 10 T; T = 2^-13 fp32, 2^-10 fp16, 2^-7 bf16; int64: equal)\n");
}

// A negative case passes when the C API rejected it with a message holding the expected text.
bool JudgeNegative(const CaseRun& run, bool verbose) {
  const AtkCase& atk_case = *run.atk_case;
  const bool rejected = !run.error.empty();
  const bool passed = rejected && run.error.find(atk_case.expected_error) != std::string::npos;
  if (passed && !verbose) return true;
  std::printf("%s %s, expecting a rejection mentioning \"%s\": %s%s\n", passed ? "ok  " : "FAIL",
              Describe(atk_case).c_str(), atk_case.expected_error.c_str(),
              rejected ? "rejected: " : "the call succeeded", rejected ? run.error.c_str() : "");
  return passed;
}

// The results of the run's judged outputs, in their order; empty where the golden script did not
// report one of them.
std::vector<const CaseResult*> ResultsOf(const CaseRun& run,
                                         const std::map<int64_t, std::vector<CaseResult>>& all) {
  const auto found = all.find(run.atk_case->id);
  std::vector<const CaseResult*> judged;
  for (const HostTensor& output : run.outputs) {
    const CaseResult* result = nullptr;
    for (size_t i = 0; found != all.end() && i < found->second.size(); ++i) {
      if (found->second[i].output == output.name) result = &found->second[i];
    }
    if (result == nullptr) return {};
    judged.push_back(result);
  }
  return judged;
}

// The table row of a case that produced no results: its first output's.
RowKey FailedRowKey(const CaseRun& run) {
  if (run.outputs.empty()) return {"-", "-", run.atk_case->reduction};
  const HostTensor& first = run.outputs.front();
  return {first.name, DtypeName(first.dtype), run.atk_case->reduction};
}

}  // namespace

AtkTally ReportResults(const std::string& dir, const std::vector<CaseRun>& runs,
                       const ReportOptions& options) {
  const std::map<int64_t, std::vector<CaseResult>> results = LoadResults(dir);
  std::map<RowKey, Row> rows;
  int failed = 0;
  int negative_passed = 0, negative_failed = 0, skipped = 0;
  for (const CaseRun& run : runs) {
    const AtkCase& atk_case = *run.atk_case;
    if (!run.skipped.empty()) {
      ++skipped;
      std::printf("SKIPPED %s: %s\n", Describe(atk_case).c_str(), run.skipped.c_str());
      continue;
    }
    if (!atk_case.expected_error.empty()) {
      (JudgeNegative(run, options.verbose) ? negative_passed : negative_failed) += 1;
      continue;
    }
    const std::vector<const CaseResult*> judged = ResultsOf(run, results);
    if (!run.error.empty() || judged.empty()) {
      ++failed;
      rows[FailedRowKey(run)].failed += 1;
      std::printf("FAIL %s: %s\n", Describe(atk_case).c_str(),
                  run.error.empty() ? "no result from the golden script" : run.error.c_str());
      continue;
    }
    bool passed = true;
    for (const CaseResult* result : judged) {
      passed = passed && result->passed;
      if (!result->passed || options.verbose) PrintCase(atk_case, *result);
      Accumulate(*result, &rows[{result->output, result->dtype, atk_case.reduction}]);
    }
    if (!passed) ++failed;
  }
  if (!rows.empty()) PrintTable(rows);
  if (negative_passed + negative_failed > 0) {
    std::printf("negative cases (expected_error_msg): %d passed, %d failed\n", negative_passed,
                negative_failed);
  }
  return {failed + negative_failed, skipped};
}

}  // namespace openaclnn::tools
