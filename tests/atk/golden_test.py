"""The ATK golden's element-wise formulas (tools/atk_golden.py) against PyTorch's own functions
in float64, where the library's contract and PyTorch agree (finite inputs away from the points
where they differ: sign(NaN), beta = 0 at d = 0, exp overflow, t = 0): every op of OPS but the
binary cross entropies, every reduction it takes, broadcast operands, gradients summed back to
their operand's shape. A golden that is wrong here would pass or fail the library for the wrong
reason, before any op of the family exists to show it.

Usage: golden_test.py PATH/TO/atk_golden.py
"""
import importlib.util
import sys
import warnings

import torch


def load_golden(path):
    spec = importlib.util.spec_from_file_location("atk_golden", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kind_of(api):
    if api.endswith("TargetBackward"):
        return "grad_target"
    return "grad_self" if api.endswith("Backward") else "loss"


def inputs(api, generator, self_shape, target_shape):
    """self and target for the op's family: KL divergence takes log-probabilities and positive
    targets (t = 0 is where the contract and PyTorch part), the soft margin loss x t of at most
    about 16 (PyTorch's literal log(1 + exp(-z)) keeps only the digits 1 + exp(-z) holds), the
    others any finite values."""
    scale = 1 if "SoftMargin" in api else 3
    x = torch.randn(self_shape, generator=generator, dtype=torch.float64) * scale
    t = torch.randn(target_shape, generator=generator, dtype=torch.float64) * scale
    if "KlDiv" in api:
        t = torch.rand(target_shape, generator=generator, dtype=torch.float64) + 0.05
    return x, t


def check(golden, api, reduction, attributes, self_shape, target_shape, generator):
    op = golden.OPS[api]
    kind = kind_of(api)
    case = {"api": api, "kind": kind, "reduction": reduction, "attributes": attributes,
            "out_reduced": "first_dim" if api == "aclnnMseLossOut" else "to_one"}
    x, t = inputs(api, generator, self_shape, target_shape)
    if "KlDiv" in api and attributes["logTarget"]:
        t = t.log()
    tensors = {"self": x, "target": t}
    broadcast = torch.broadcast_shapes(x.shape, t.shape)
    if kind == "loss":
        out_shape = None
    else:
        g_shape = broadcast if reduction == 0 else ()
        tensors["grad_output"] = torch.randn(g_shape, generator=generator, dtype=torch.float64)
        out_shape = x.shape if "KlDiv" in api and kind == "grad_self" else \
            t.shape if kind == "grad_target" else broadcast
    expected = op.in_torch(case, tensors)
    actual = op.golden(case, tensors, out_shape if out_shape is not None else expected.shape)
    # PyTorch's soft margin loss loses up to 2^-53 / exp(-z) of itself (see `inputs`).
    rtol = 1e-8 if api == "aclnnSoftMarginLoss" else 1e-12
    if tuple(actual.shape) != tuple(expected.shape) or \
            not torch.allclose(actual, expected, rtol=rtol, atol=1e-300, equal_nan=True):
        print("FAIL %s reduction %d %s self %s target %s: golden %s, PyTorch %s" % (
            api, reduction, attributes, list(self_shape), list(target_shape),
            actual.flatten()[:4].tolist(), expected.flatten()[:4].tolist()))
        return False
    return True


def main():
    warnings.filterwarnings("ignore", category=UserWarning)  # size mismatch, kl_div's 'mean'
    golden = load_golden(sys.argv[1])
    generator = torch.Generator().manual_seed(37)
    apis = [api for api, op in golden.OPS.items() if isinstance(op, golden.Elementwise)]
    # self full-shaped (a gradient of shape broadcast(g, self, target) is then self's), target
    # broadcast into it; KL divergence's gradients also with self the smaller one (summed back).
    shapes = [((4, 3, 5), (4, 3, 5)), ((4, 3, 5), (3, 1)), ((6, 2), ()), ((), ())]
    checked = failed = 0
    for api in apis:
        reductions = [0, 1, 2, 3] if "KlDiv" in api else [0, 1, 2]
        attributes = [{}]
        if "SmoothL1" in api:
            attributes = [{"beta": 1.0}, {"beta": 0.25}, {"beta": 0.0}]
        elif "Huber" in api:
            attributes = [{"delta": 1.0}, {"delta": 2.5}]
        elif "KlDiv" in api:
            attributes = [{"logTarget": 0.0}, {"logTarget": 1.0}]
        pairs = shapes + ([((3, 1), (2, 3, 4))] if "KlDiv" in api and kind_of(api) != "loss"
                          else [])
        for reduction in reductions:
            for attribute in attributes:
                for self_shape, target_shape in pairs:
                    checked += 1
                    failed += not check(golden, api, reduction, attribute, self_shape,
                                        target_shape, generator)
    print("%d of %d golden evaluations agree with PyTorch (%d ops)" % (checked - failed, checked,
                                                                      len(apis)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
