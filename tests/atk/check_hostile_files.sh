#!/usr/bin/env bash
# Malformed and hostile ATK case files must make `openaclnn atk` print an error naming the file
# and exit with status 2 (a setup error), never crash, hang or run anything.
# Usage: check_hostile_files.sh OPENACLNN_EXECUTABLE
set -uo pipefail
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

tensor='{"name": "self", "type": "tensor", "dtype": "fp32", "shape": SHAPE, "range_values": [-1, 1]}'
entry() {  # a forward case whose self has shape $1
  echo "[{\"id\": 0, \"aclnn_name\": \"BinaryCrossEntropyWithLogits\", \"inputs\": [${tensor/SHAPE/$1}]}]"
}
repeat() { head -c "$2" /dev/zero | tr '\0' "$1"; }

repeat '[' 200000 >"$dir/nested_open.json"                              # crashed the old reader
{ repeat '[' 200000; repeat ']' 200000; } >"$dir/nested_closed.json"      # valid, and deep
{ for _ in $(seq 20000); do printf '{"a":'; done; printf '1'; repeat '}' 20000; } \
  >"$dir/nested_objects.json"
printf '[{"id": 0, "aclnn_name": "Binary' >"$dir/truncated.json"
: >"$dir/empty.json"
printf '\x00\xff\xfe[{' >"$dir/binary.json"
printf '["\xc3\x28"]' >"$dir/bad_utf8.json"
printf '[NaN]' >"$dir/nan_literal.json"
printf '{"id": 0}' >"$dir/not_an_array.json"
printf '[1, 2, 3]' >"$dir/entries_not_objects.json"
printf '[{"id": "zero", "aclnn_name": "BinaryCrossEntropyWithLogits", "inputs": []}]' \
  >"$dir/wrong_type.json"
printf '[{"id": 1e400, "aclnn_name": "BinaryCrossEntropyWithLogits", "inputs": []}]' \
  >"$dir/huge_number.json"
printf '[{"id": 18446744073709551615, "aclnn_name": "BinaryCrossEntropyWithLogits", "inputs": []}]' \
  >"$dir/id_out_of_range.json"
entry '[1000000000000, 1000000000000]' >"$dir/huge_shape.json"
entry '[4, -3]' >"$dir/negative_dimension.json"
entry '[4, 2.5]' >"$dir/fractional_dimension.json"
entry '"4"' >"$dir/shape_not_array.json"
printf '[{"id": 0, "aclnn_name": "Conv2d", "inputs": []}]' >"$dir/unknown_op.json"
printf '[{"id": 0, "aclnn_name": "BinaryCrossEntropyWithLogits", "inputs": [], "expected_error_msg": 5}]' \
  >"$dir/error_msg_not_string.json"
# What the runner matches and draws, wrong: a tensor or attribute the op does not have, a value
# it cannot make, a tensor named twice.
with_input() {  # a forward case whose self is fine and whose second input is $1
  echo "[{\"id\": 0, \"aclnn_name\": \"BinaryCrossEntropyWithLogits\", \"inputs\": [${tensor/SHAPE/[2]}, $1]}]"
}
with_input '{"name": "logits", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": [0, 1]}' \
  >"$dir/unknown_tensor.json"
with_input '{"name": "input", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": [0, 1]}' \
  >"$dir/tensor_twice.json"
with_input '{"name": "beta", "type": "attr", "dtype": "float32", "range_values": 1.0}' \
  >"$dir/unknown_attribute.json"
with_input '{"name": "misc", "type": "scalar", "range_values": 1}' >"$dir/unknown_input_type.json"
with_input '{"name": "reduction", "type": "attr", "range_values": [2, 1]}' >"$dir/empty_range.json"
with_input '{"name": "reduction", "type": "attr", "range_values": 1.5}' >"$dir/fractional_reduction.json"
with_input '{"name": "target", "type": "tensor", "dtype": "int64", "shape": [2], "range_values": [0.2, 0.8]}' \
  >"$dir/no_integer_in_range.json"
with_input '{"name": "target", "type": "tensor", "dtype": "int64", "shape": [2], "range_values": ["nan"]}' \
  >"$dir/int64_nan.json"
with_input '{"name": "target", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": ["huge"]}' \
  >"$dir/unknown_special_value.json"
with_input '{"name": "target", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": []}' \
  >"$dir/no_values.json"
with_input '{"name": "target", "type": "tensor", "dtype": "int8", "shape": [2], "range_values": [0, 1]}' \
  >"$dir/unsupported_dtype.json"
with_input '{"name": "reduction", "type": "attr", "range_values": "average"}' >"$dir/unknown_reduction.json"
with_input '{"name": "reduction", "type": "attr", "range_values": ["mean", 1]}' \
  >"$dir/mixed_reduction_list.json"
# Normal values (CANN's {"name": "nd", ...}) asked for wrongly.
with_input '{"name": "target", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": {"name": "uniform", "mean": [0, 1], "std": [1, 2]}}' \
  >"$dir/unknown_distribution.json"
with_input '{"name": "target", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": {"name": "nd", "mean": 0, "std": [-2, -1]}}' \
  >"$dir/negative_std.json"
with_input '{"name": "target", "type": "tensor", "dtype": "fp32", "shape": [2], "range_values": {"name": "nd", "mean": [0, 1]}}' \
  >"$dir/normal_without_std.json"
# A class-axis op's target with no class index in [0, C) to draw and not ignoreIndex; an
# ignoreIndex that is no integer.
nll_case() {  # an NLL gradient case whose self is (2, 3) and whose other input is $1
  echo "[{\"id\": 0, \"aclnn_name\": \"NLLLossBackward\", \"inputs\": [${tensor/SHAPE/[2, 3]}, $1]}]"
}
nll_case '{"name": "target", "type": "tensor", "dtype": "int32", "shape": [2], "range_values": [-5, -1]}' \
  >"$dir/no_class_index.json"
nll_case '{"name": "ignoreIndex", "type": "attr", "range_values": 1.5}' >"$dir/fractional_ignore_index.json"
nll_case '{"name": "target", "type": "tensor", "dtype": "int64", "shape": [2], "range_values": {"name": "nd", "mean": 1, "std": 1}}' \
  >"$dir/normal_integers.json"

failures=0
for file in "$dir"/*.json; do
  name=$(basename "$file")
  # --python is never reached: a file that cannot be read stops before any case runs.
  stderr=$(timeout 60 "$tool" atk "$file" --python false 2>&1 >/dev/null)
  status=$?
  if [[ $status -eq 2 && $stderr == "openaclnn: $file"* ]]; then
    echo "ok   $name: ${stderr:0:160}"
  else
    echo "FAIL $name: exit status $status (want 2, a signal shows as 128+N), stderr: ${stderr:0:300}"
    failures=$((failures + 1))
  fi
done
echo "$failures hostile file(s) mishandled"
((failures == 0))
