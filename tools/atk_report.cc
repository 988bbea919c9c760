#include "atk_report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "json.h"

namespace openaclnn::tools {
namespace {

struct CaseResult {
  bool passed = false;
  double mere = 0, mare = 0, threshold = 0;
  double torch_mere = 0, torch_mare = 0;      // against PyTorch in the case's dtype
  double exact_mere = 0, exact_mare = 0;      // PyTorch in the case's dtype against float64
  double rounded_mere = 0, rounded_mare = 0;  // against the unrounded float64 golden
  std::string dtype, torch_dtype, note;
};

struct Row {
  int passed = 0, failed = 0;
  double mere = 0, mare = 0, threshold = 0, torch_mere = 0, torch_mare = 0;
  double exact_mere = 0, exact_mare = 0;
};

std::map<int64_t, CaseResult> LoadResults(const std::string& dir) {
  std::ifstream file(dir + "/results.json");
  if (!file) throw std::runtime_error(dir + "/results.json: the golden script wrote no results");
  std::stringstream text;
  text << file.rdbuf();
  const Json document = Json::Parse(text.str());
  std::map<int64_t, CaseResult> results;
  for (const Json& entry : document["cases"].AsArray()) {
    CaseResult& r = results[entry["id"].AsInt()];
    r.passed = entry["passed"].AsBool();
    r.mere = entry["mere"].AsNumber();
    r.mare = entry["mare"].AsNumber();
    r.threshold = entry["threshold"].AsNumber();
    r.torch_mere = entry["vs_torch"].AsArray().at(0).AsNumber();
    r.torch_mare = entry["vs_torch"].AsArray().at(1).AsNumber();
    r.exact_mere = entry["torch_vs_exact"].AsArray().at(0).AsNumber();
    r.exact_mare = entry["torch_vs_exact"].AsArray().at(1).AsNumber();
    r.rounded_mere = entry["vs_rounded"].AsArray().at(0).AsNumber();
    r.rounded_mare = entry["vs_rounded"].AsArray().at(1).AsNumber();
    r.dtype = entry["dtype"].AsString();
    r.torch_dtype = entry["torch_dtype"].AsString();
    r.note = entry["note"].AsString();
  }
  return results;
}

std::string Describe(const AtkCase& atk_case) {
  std::string shape = "[";
  const AtkTensor* self = atk_case.Find("self");
  for (size_t i = 0; self != nullptr && i < self->shape.size(); ++i) {
    if (i > 0) shape += ',';
    shape += std::to_string(self->shape[i]);
  }
  std::string dtypes;
  for (const AtkTensor& input : atk_case.inputs)
    dtypes += std::string(" ") + DtypeName(input.dtype);
  return "case " + std::to_string(atk_case.id) + " (" + ReductionName(atk_case.reduction) + "," +
         dtypes + ", self " + shape + "])";
}

void PrintCase(const AtkCase& atk_case, const CaseResult& r) {
  std::printf(
      "%s %s -> %s: MERE %.3g (< %.3g) MARE %.3g (< %.3g) vs float64 rounded to %s; vs torch "
      "%s: %.3g / %.3g; vs unrounded float64: %.3g / %.3g",
      r.passed ? "ok  " : "FAIL", Describe(atk_case).c_str(), r.dtype.c_str(), r.mere, r.threshold,
      r.mare, 10 * r.threshold, r.dtype.c_str(), r.torch_dtype.c_str(), r.torch_mere, r.torch_mare,
      r.rounded_mere, r.rounded_mare);
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

void PrintTable(const std::map<std::pair<std::string, int64_t>, Row>& rows) {
  std::printf(
      "\n%-5s %-9s %6s %6s | %-22s | %-21s | %-21s\n%-5s %-9s %6s %6s | %10s %11s | %10s %10s | "
      "%10s %10s\n",
      "out", "reduction", "passed", "failed", "library vs float64", "library vs torch(dtype)",
      "torch(dtype) vs f64", "", "", "", "", "worst MERE", "worst MARE", "MERE", "MARE", "MERE",
      "MARE");
  for (const auto& [key, row] : rows) {
    std::printf("%-5s %-9s %6d %6d | %10.3g %11.3g | %10.3g %10.3g | %10.3g %10.3g\n",
                key.first.c_str(), ReductionName(key.second), row.passed, row.failed, row.mere,
                row.mare, row.torch_mere, row.torch_mare, row.exact_mere, row.exact_mare);
  }
  std::printf("(pass: MERE < T and MARE < 10 T; T = 2^-13 fp32, 2^-10 fp16, 2^-7 bf16)\n");
}

}  // namespace

int ReportResults(const std::string& dir, const std::vector<CaseRun>& runs,
                  const ReportOptions& options) {
  const std::map<int64_t, CaseResult> results = LoadResults(dir);
  std::map<std::pair<std::string, int64_t>, Row> rows;
  int failed = 0;
  for (const CaseRun& run : runs) {
    const AtkCase& atk_case = *run.atk_case;
    const auto found = results.find(atk_case.id);
    if (!run.error.empty() || found == results.end()) {
      ++failed;
      rows[{DtypeName(run.out.dtype), atk_case.reduction}].failed += 1;
      std::printf("FAIL %s: %s\n", Describe(atk_case).c_str(),
                  run.error.empty() ? "no result from the golden script" : run.error.c_str());
      continue;
    }
    const CaseResult& result = found->second;
    if (!result.passed) ++failed;
    if (!result.passed || options.verbose) PrintCase(atk_case, result);
    Accumulate(result, &rows[{result.dtype, atk_case.reduction}]);
  }
  PrintTable(rows);
  return failed;
}

}  // namespace openaclnn::tools
