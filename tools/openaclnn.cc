// `openaclnn`: the OpenACLNN command-line tool, in the spirit of oneDNN's benchdnn.
//   openaclnn info        what this build runs on
//   openaclnn atk FILE... CANN ATK conformance cases against a float64 PyTorch golden
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "atk_case.h"
#include "atk_dump.h"
#include "atk_memory.h"
#include "atk_report.h"
#include "atk_runner.h"
#include "openaclnn/op_table.h"

extern char** environ;

namespace openaclnn::tools {
namespace {

namespace fs = std::filesystem;

// CTest's SKIP_RETURN_CODE for --skip-absent-op.
constexpr int kSkipStatus = 77;

constexpr const char kUsage[] = R"(Usage: openaclnn COMMAND [OPTIONS]

Commands:
  info              Print the OpenACLNN version, the device backend and its device count,
                    the SoC profile, the SIMD target the CPU kernels dispatch to, and the
                    number of threads they use.
  atk FILE...       Run CANN ATK conformance cases (JSON case files, as CANN's ATK reads
                    them) of any op in the library's op table. For each case: match its
                    tensors to the op's operands (by name, case and underscores ignored,
                    else by role: input = self, grad_output = gradOutput) and its attributes
                    to the op's (log_target = logTarget; a range [lo, hi] draws one, as
                    does a reduction's, also given by name or as a list of names), draw
                    the inputs from the case's shapes, dtypes (fp32, fp16, bf16, int64,
                    int32) and range_values ([lo, hi]; {"name": "nd", "mean": [lo, hi],
                    "std": [lo, hi]}, normal; or special values: ["inf"], ["nan"],
                    ["-inf", "inf"], 0) with a fixed seed (a class-axis op's target from
                    their valid part only: class indices in [0, C) and ignoreIndex), run
                    the operator through the public C API (tensors, both phases, stream,
                    synchronize) into outputs of the dtypes and shapes CANN's executor
                    gives them, and keep inputs and outputs. CANN's zloss operands, which
                    the ops never use, are passed as NULL (inputs) or not compared
                    (outputs).
                    Then one Python process per file computes the op's formula in float64
                    on those inputs and applies ATK's "high_precision" standard:
                      rel = |out - golden| / (|golden| + 1e-7),
                      MERE = mean(rel) < T and MARE = max(rel) < 10 T,
                      T = 2^-13 (fp32), 2^-10 (fp16), 2^-7 (bf16) of the output dtype;
                    an int64 result must equal the golden.
                    Prints a line per failing output of a case and a table per output x
                    dtype x reduction (also against PyTorch run in the case's own dtype,
                    for information).
                    A case that would need more than 3/4 of the memory available (its
                    tensors, or the golden's float64 work on them, about 128 bytes per
                    element) is not run: it is reported as SKIPPED with its size.
                    Anything in a file the tool does not understand stops it (status 2).
                    Exit status 1 if any case fails, 2 on usage or setup errors.
  help              Print this text.

Options of atk:
  --out DIR         Keep the inputs and outputs in DIR/<file name>/ (data.bin, manifest.json,
                    results.json). Default: a temporary directory, removed afterwards.
  --seed N          Seed of the input generator (default 2024). Case i uses (N, i).
  --cases LIST      Run only these case ids, e.g. 0-9,12,200-210.
  --python EXE      Python 3 interpreter with numpy and PyTorch (default: $OPENACLNN_PYTHON,
                    else the one this build was configured with, else python3 from PATH).
  --golden FILE     The golden script (default: atk_golden.py next to this program, else
                    ../share/openaclnn/atk_golden.py relative to it).
  --max-elements N  Also skip (and report) the cases whose largest tensor has more than N
                    elements, e.g. to keep a test run short.
  --fused           Run the Backward cases (aclnn_name BinaryCrossEntropyWithLogitsBackward)
                    through the OpenACLNN extension aclnnBinaryCrossEntropyWithLogitsAndGrad:
                    its gradient is judged as the Backward's; its loss and gradient must also
                    equal, bit for bit, a forward and a Backward call on the same inputs.
  --skip-absent-op  A file whose every case names an op this library does not have yet is
                    not run but reported as skipped; exit status 77 (CTest's skip) when every
                    file was. For a suite listing the files of ops still being written.
  -v, --verbose     Print every case's metrics, not only the failing cases'.
  -h, --help        Print this text.

Environment: OPENACLNN_DEVICE, OPENACLNN_SOC_VERSION and OPENACLNN_NUM_THREADS select the
backend, the SoC profile and the thread count, as for any program using the library.
)";

struct AtkOptions {
  std::vector<std::string> files;
  std::string out_dir;
  uint64_t seed = 2024;
  std::vector<std::pair<int64_t, int64_t>> case_ranges;  // empty: all cases
  int64_t max_elements = -1;                             // -1: no limit
  std::string python;
  std::string golden;
  bool verbose = false;
  bool fused = false;
  bool skip_absent_op = false;
};

[[noreturn]] void UsageError(const std::string& message) {
  throw std::invalid_argument(message + " (see openaclnn --help)");
}

int Info() {
  int32_t major = 0, minor = 0, patch = 0;
  aclrtGetVersion(&major, &minor, &patch);
  std::printf("OpenACLNN %s (CANN runtime API %d.%d.%d)\n", OPENACLNN_VERSION, major, minor, patch);
  const char* backend = std::getenv("OPENACLNN_DEVICE");
  std::printf("device backend: %s\n", backend && backend[0] ? backend : "cpu");
  aclInit(nullptr);
  uint32_t count = 0;
  if (aclError status = aclrtGetDeviceCount(&count)) {
    std::printf("devices:        none (%d: %s)\n", status, aclGetRecentErrMsg());
  } else {
    std::printf("devices:        %u\n", count);
  }
  const char* soc = aclrtGetSocName();
  std::printf("SoC profile:    %s\n", soc ? soc : "?");
  std::printf("SIMD target:    %s\n", openaclnnKernelSimdTarget());
  std::printf("threads:        %d\n", openaclnnKernelThreads());
  aclFinalize();
  return 0;
}

std::vector<std::pair<int64_t, int64_t>> ParseCaseList(const std::string& list) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string item = list.substr(pos, comma - pos);
    const size_t dash = item.find('-', 1);
    try {
      const int64_t first = std::stoll(item.substr(0, dash));
      ranges.emplace_back(first,
                          dash == std::string::npos ? first : std::stoll(item.substr(dash + 1)));
    } catch (const std::exception&) {
      UsageError("--cases: cannot read \"" + item + "\"");
    }
    pos = comma + 1;
  }
  return ranges;
}

AtkOptions ParseAtkOptions(int argc, char** argv) {
  AtkOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--out") {
      options.out_dir = value();
    } else if (arg == "--seed") {
      options.seed = std::stoull(value());
    } else if (arg == "--cases") {
      options.case_ranges = ParseCaseList(value());
    } else if (arg == "--max-elements") {
      options.max_elements = static_cast<int64_t>(std::stod(value()));
    } else if (arg == "--python") {
      options.python = value();
    } else if (arg == "--golden") {
      options.golden = value();
    } else if (arg == "--fused") {
      options.fused = true;
    } else if (arg == "--skip-absent-op") {
      options.skip_absent_op = true;
    } else if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
    } else if (!arg.empty() && arg[0] == '-') {
      UsageError("unknown option " + arg);
    } else {
      options.files.push_back(arg);
    }
  }
  if (options.files.empty()) UsageError("atk needs at least one case file");
  return options;
}

fs::path ProgramDir() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path(".") : self.parent_path();
}

std::string FindGolden(const AtkOptions& options) {
  if (!options.golden.empty()) return options.golden;
  for (const fs::path& candidate :
       {ProgramDir() / "atk_golden.py",
        ProgramDir() / ".." / "share" / "openaclnn" / "atk_golden.py"}) {
    if (fs::exists(candidate)) return candidate.string();
  }
  throw std::runtime_error("cannot find atk_golden.py; name it with --golden");
}

struct Python {
  std::string executable;
  const char* chosen_by;
};

// --python, else $OPENACLNN_PYTHON, else the interpreter CMake was configured with (it had numpy
// and torch there; PATH's python3 may be another, such as a pyenv one without them), else PATH's.
Python FindPython(const AtkOptions& options) {
  if (!options.python.empty()) return {options.python, "--python"};
  const char* env = std::getenv("OPENACLNN_PYTHON");
  if (env && env[0]) return {env, "$OPENACLNN_PYTHON"};
  const std::string configured = OPENACLNN_CONFIGURED_PYTHON;
  if (!configured.empty() && access(configured.c_str(), X_OK) == 0) {
    return {configured, "the interpreter this build was configured with"};
  }
  return {"python3", "python3 from PATH"};
}

// Runs `argv` (searched in PATH) and waits; returns true if it exited with status 0.
bool RunProcess(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error("cannot start " + args[0]);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The interpreter for the golden script, once it has shown it can import numpy and torch.
std::string RequirePython(const AtkOptions& options) {
  const Python python = FindPython(options);
  bool usable = false;
  try {
    usable = RunProcess({python.executable, "-c", "import numpy, torch"});
  } catch (const std::runtime_error&) {  // not found, or not a program
  }
  if (!usable) {
    throw std::runtime_error("the golden script needs Python 3 with numpy and PyTorch, and " +
                             python.executable + " (" + python.chosen_by +
                             ") cannot import them (its error is above); name one that can "
                             "with --python EXE or OPENACLNN_PYTHON=EXE");
  }
  return python.executable;
}

bool Selected(const AtkOptions& options, int64_t id) {
  if (options.case_ranges.empty()) return true;
  for (const auto& [first, last] : options.case_ranges) {
    if (id >= first && id <= last) return true;
  }
  return false;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Progress on a terminal only: a redirected log (CTest) gets the summary lines instead.
void ShowProgress(const std::string& label, size_t done, size_t total) {
  if (!isatty(STDERR_FILENO)) return;
  std::fprintf(stderr, "\r%s: %zu/%zu cases run", label.c_str(), done, total);
  if (done == total) std::fprintf(stderr, "\n");
}

// Runs the selected cases one at a time, each dumped (and its tensors freed) before the next, so
// that memory holds one case at most; a case too large for it is skipped.
std::vector<CaseRun> RunCases(const std::vector<AtkCase>& cases, const AtkOptions& options,
                              const std::string& label, aclrtStream stream, DumpWriter* dump) {
  std::vector<const AtkCase*> selected;
  for (const AtkCase& atk_case : cases) {
    if (Selected(options, atk_case.id)) selected.push_back(&atk_case);
  }
  const uint64_t budget = AvailableMemoryBytes() / 4 * 3;
  std::vector<CaseRun> runs;
  for (const AtkCase* atk_case : selected) {
    std::string skipped = SkipReason(*atk_case, budget, options.max_elements);
    if (skipped.empty()) {
      runs.push_back(RunCase(*atk_case, options.seed, options.fused, stream));
    } else {
      runs.push_back({atk_case, {}, {}, {}, std::move(skipped)});
    }
    dump->Add(&runs.back());
    ShowProgress(label, runs.size(), selected.size());
  }
  dump->Finish();
  return runs;
}

// One file: run its cases, dump them, one golden process, report. Returns the failures.
int RunAtkFile(const std::string& file, const AtkOptions& options, const fs::path& dir,
               aclrtStream stream) {
  const std::string label = fs::path(file).stem().string();
  const std::vector<AtkCase> cases = LoadAtkFile(file, options.seed);
  const fs::path case_dir = dir / label;
  fs::create_directories(case_dir);
  DumpWriter dump(case_dir.string(), file, options.seed);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<CaseRun> runs = RunCases(cases, options, label, stream, &dump);
  const double run_seconds = SecondsSince(start);

  const auto golden_start = std::chrono::steady_clock::now();
  if (!RunProcess({RequirePython(options), FindGolden(options), case_dir.string()})) {
    throw std::runtime_error(label +
                             ": the golden script failed (needs Python 3 with numpy "
                             "and PyTorch; see --python)");
  }
  const double golden_seconds = SecondsSince(golden_start);
  std::printf("== %s (%s)\n", label.c_str(), file.c_str());
  const AtkTally tally = ReportResults(case_dir.string(), runs, {options.verbose});
  std::printf("%s: %zu/%zu cases passed, %d skipped (library %.2f s, golden %.2f s, seed %llu)\n\n",
              label.c_str(), runs.size() - static_cast<size_t>(tally.failed + tally.skipped),
              runs.size(), tally.skipped, run_seconds, golden_seconds,
              static_cast<unsigned long long>(options.seed));
  return tally.failed;
}

fs::path MakeTempDir() {
  std::string pattern = (fs::temp_directory_path() / "openaclnn-atk-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temp dir");
  return pattern;
}

int Atk(int argc, char** argv) {
  const AtkOptions options = ParseAtkOptions(argc, argv);
  const bool keep = !options.out_dir.empty();
  const fs::path dir = keep ? fs::path(options.out_dir) : MakeTempDir();
  int failed = 0;
  size_t absent = 0;
  try {
    AclSession session;
    for (const std::string& file : options.files) {
      const std::string missing = options.skip_absent_op ? AbsentOp(file) : "";
      if (!missing.empty()) {
        std::printf("== %s: SKIPPED, the library has no %s\n\n",
                    fs::path(file).stem().string().c_str(), missing.c_str());
        ++absent;
        continue;
      }
      failed += RunAtkFile(file, options, dir, session.stream());
    }
  } catch (...) {
    if (!keep) fs::remove_all(dir);
    throw;
  }
  if (!keep) fs::remove_all(dir);
  if (options.files.size() > 1) std::printf("total: %d failing case(s)\n", failed);
  if (failed == 0 && absent == options.files.size()) return kSkipStatus;
  return failed == 0 ? 0 : 1;
}

int Main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "help";
  if (command == "help" || command == "-h" || command == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("openaclnn %s\n", OPENACLNN_VERSION);
    return 0;
  }
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  if (command == "info") return Info();
  if (command == "atk") return Atk(argc, argv);
  UsageError("unknown command " + command);
}

}  // namespace
}  // namespace openaclnn::tools

int main(int argc, char** argv) {
  try {
    return openaclnn::tools::Main(argc, argv);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "openaclnn: %s\n", error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "openaclnn: %s\n", error.what());
  }
  return 2;
}
