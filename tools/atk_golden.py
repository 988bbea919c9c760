#!/usr/bin/env python3
"""The golden and comparison step of `openaclnn atk` (one process per ATK file).

Reads DIR/manifest.json and DIR/data.bin written by the C++ tool, computes each case's golden
in float64 on the very inputs the library received, as ATK's executor does: for the with-logits
family PyTorch's binary_cross_entropy_with_logits, or its autograd gradient for the backward ops;
for the probability family PyTorch's binary_cross_entropy, and for its backward the formula
g w (x - t) / max(x (1 - x), fl32(1e-12)) (times 1/N for mean). It compares the library's output
with ATK's "high_precision" single-benchmark standard:
    rel = |actual - golden| / (|golden| + 1e-7);  MERE = mean(rel) < T,  MARE = max(rel) < 10 T
with T = 2^-13 (fp32), 2^-10 (fp16), 2^-7 (bf16) for the output dtype. For information it also
evaluates PyTorch in the case's own dtypes (fp32 where this PyTorch lacks a CPU kernel) and
reports the library against it, and it against float64, and the library against the float64
golden rounded to the output dtype. Cases are read from data.bin one at a time, so the memory it
needs is that of the largest case. Writes DIR/results.json.

Usage: atk_golden.py DIR
"""
import functools
import json
import os
import sys

import numpy as np
import torch

THRESHOLD = {"fp32": 2.0**-13, "fp16": 2.0**-10, "bf16": 2.0**-7}
TORCH_DTYPE = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
REDUCTION = {0: "none", 1: "mean", 2: "sum"}
EPSILON_FP32 = float(np.float32(1e-12))
LARGE_CASE = 1 << 20  # elements


def load_tensor(blob, spec):
    """The dumped tensor as float64 (exact: every fp32/fp16/bf16 value is a float64)."""
    raw = blob[spec["offset"]:spec["offset"] + spec["nbytes"]]
    if spec["dtype"] == "fp32":
        values = raw.view("<f4")
    elif spec["dtype"] == "fp16":
        values = raw.view("<f2")
    else:  # bf16: the upper half of an fp32
        values = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
    return torch.from_numpy(values.astype(np.float64).reshape(spec["shape"]))


def with_logits(op, reduction, tensors):
    """ATK's executor: the forward loss, or the gradient autograd gives for self/target."""
    x, y = tensors["self"], tensors["target"]
    w, p = tensors.get("weightOptional"), tensors.get("posWeightOptional")
    if op == "forward":
        return torch.ops.aten.binary_cross_entropy_with_logits(x, y, w, p, reduction)
    x = x.detach().clone().requires_grad_(op == "backward")
    y = y.detach().clone().requires_grad_(op == "target_backward")
    loss = torch.nn.BCEWithLogitsLoss(weight=w, pos_weight=p, reduction=REDUCTION[reduction])(x, y)
    grad = tensors["gradOutput"]
    loss.backward(grad if reduction == 0 else grad.mean() if reduction == 1 else grad.sum())
    return x.grad if op == "backward" else y.grad


def probability_weight(tensors):
    """The weight of a probability-family op: "weight" in the forward, "weightOptional" in the
    backward (CANN's parameter names)."""
    return tensors.get("weight", tensors.get("weightOptional"))


def probabilities_in_torch(op, reduction, tensors):
    """PyTorch's binary_cross_entropy, or its autograd gradient for self."""
    x, y, w = tensors["self"], tensors["target"], probability_weight(tensors)
    if op == "forward":
        return torch.nn.functional.binary_cross_entropy(x, y, w, reduction=REDUCTION[reduction])
    x = x.detach().clone().requires_grad_(True)
    loss = torch.nn.functional.binary_cross_entropy(x, y, w, reduction=REDUCTION[reduction])
    grad = tensors["gradOutput"]
    loss.backward(grad if reduction == 0 else grad.reshape(()).to(loss.dtype))
    return x.grad


def probabilities_exact(op, reduction, tensors):
    """The probability family's golden: PyTorch's loss in float64, and the gradient's formula with
    CANN's fl32(1e-12) floor (PyTorch's float64 backward would floor at 1e-12 itself)."""
    if op == "forward":
        return probabilities_in_torch(op, reduction, tensors)
    x, y, w = tensors["self"], tensors["target"], probability_weight(tensors)
    grad = tensors["gradOutput"] * (x - y) / torch.clamp(x * (1 - x), min=EPSILON_FP32)
    if w is not None:
        grad = grad * w
    return grad / x.numel() if reduction == 1 else grad


# Per family (the manifest's "family"): PyTorch's own computation, and the float64 golden.
IN_TORCH = {"bce_with_logits": with_logits, "binary_cross_entropy": probabilities_in_torch}
GOLDEN = {"bce_with_logits": with_logits, "binary_cross_entropy": probabilities_exact}


def evaluate_in_dtype(evaluate, op, reduction, tensors, dtypes):
    """PyTorch in the inputs' own dtypes; where this build lacks the kernel (fp16 on CPU in
    1.13, some mixed-dtype combinations) in the promoted dtype, then in fp32."""
    attempts = [dtypes]
    promoted = functools.reduce(torch.promote_types, dtypes.values())
    attempts.append({name: promoted for name in dtypes})
    attempts.append({name: torch.float32 for name in dtypes})
    for attempt in attempts:
        try:
            cast = {name: t.to(attempt[name]) for name, t in tensors.items()}
            result = evaluate(op, reduction, cast)
            return result, str(result.dtype).replace("torch.", "")
        except RuntimeError:
            continue
    raise RuntimeError("PyTorch evaluates this case in no dtype")


def metrics(actual, golden):
    """(MERE, MARE) of actual against golden, in float64; NaN where both are NaN counts as 0."""
    a, g = actual.double().flatten(), golden.detach().double().flatten()
    if a.numel() == 0:
        return 0.0, 0.0
    rel = (a - g).abs_().div_(g.abs().add_(1e-7))  # in place: the large cases' memory
    rel.masked_fill_(torch.isnan(a) & torch.isnan(g), 0.0)
    rel.masked_fill_(torch.isnan(rel), float("inf"))
    return rel.mean().item(), rel.max().item()


def compare_case(case, blob):
    specs = {spec["name"]: spec for spec in case["tensors"]}
    out_spec = specs.pop("out")
    tensors = {name: load_tensor(blob, spec) for name, spec in specs.items()}
    actual = load_tensor(blob, out_spec)
    golden = GOLDEN[case["family"]](case["op"], case["reduction"], tensors)
    in_dtype, torch_dtype = evaluate_in_dtype(
        IN_TORCH[case["family"]], case["op"], case["reduction"], tensors,
        {name: TORCH_DTYPE[spec["dtype"]] for name, spec in specs.items()})
    threshold = THRESHOLD[out_spec["dtype"]]
    result = {"id": case["id"], "dtype": out_spec["dtype"], "reduction": case["reduction"],
              "shape": specs["self"]["shape"], "threshold": threshold, "torch_dtype": torch_dtype,
              "note": ""}
    if tuple(actual.shape) != tuple(golden.shape):
        result.update(mere=float("inf"), mare=float("inf"), passed=False,
                      note="output shape %s, golden shape %s" % (list(actual.shape),
                                                                 list(golden.shape)))
    else:
        # Judged against the float64 golden rounded to the output dtype: the best answer that
        # dtype can hold. Against the unrounded golden a correctly rounded fp16 result can miss
        # the thresholds by itself (gradients near 1e-7 are fp16 subnormals, 6e-8 apart).
        rounded = golden.detach().to(TORCH_DTYPE[out_spec["dtype"]]).to(torch.float64)
        result["mere"], result["mare"] = metrics(actual, rounded)
        result["passed"] = result["mere"] < threshold and result["mare"] < 10 * threshold
    result["vs_torch"] = metrics(actual.reshape(in_dtype.shape), in_dtype) \
        if actual.numel() == in_dtype.numel() else [float("inf")] * 2
    result["torch_vs_exact"] = metrics(in_dtype, golden)
    # Information only: against the unrounded float64 golden.
    result["vs_rounded"] = metrics(actual.reshape(golden.shape), golden) \
        if actual.numel() == golden.numel() else [float("inf")] * 2
    return result


def strict_json(value):
    """`value` with every non-finite float as None: JSON has no NaN or infinity, and the tool's
    reader takes a null metric for an unbounded error."""
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, dict):
        return {key: strict_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(item) for item in value]
    return value


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    with open(directory + "/manifest.json") as f:
        manifest = json.load(f)
    # Mapped, not read: each tensor is copied out when its case comes.
    blob = np.memmap(directory + "/data.bin", dtype=np.uint8, mode="r") \
        if os.path.getsize(directory + "/data.bin") > 0 else np.zeros(0, np.uint8)
    results = []
    for case in manifest["cases"]:
        if case["error"] is None and case.get("skipped") is None:
            # Threads only add start-up cost to the many tiny cases; the large ones use them all.
            elements = max(int(np.prod(spec["shape"])) for spec in case["tensors"])
            torch.set_num_threads((os.cpu_count() or 1) if elements >= LARGE_CASE else 1)
            results.append(compare_case(case, blob))
    with open(directory + "/results.json", "w") as f:
        json.dump(strict_json({"torch": torch.__version__, "cases": results}), f, allow_nan=False)


if __name__ == "__main__":
    main()
