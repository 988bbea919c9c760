"""The ATK golden's formulas (tools/atk_golden.py) against PyTorch's own functions in float64,
where the library's contract and PyTorch agree (finite inputs away from the points where they
differ: sign(NaN), beta = 0 at d = 0, exp overflow, t = 0): every op of OPS but the binary cross
entropies, every reduction it takes, broadcast operands, gradients summed back to their operand's
shape; the NLL gradients for every rank of self, with ignored targets; the cross entropy's loss,
log-probabilities and gradient with ignored targets, weights and label smoothing. A golden that
is wrong here would pass or fail the library for the wrong reason, before any op of the family
exists to show it.

Usage: golden_test.py PATH/TO/atk_golden.py
"""
import importlib.util
import sys
import warnings

import torch

F = torch.nn.functional


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
    return agree(actual, expected, rtol, "%s reduction %d %s self %s target %s" % (
        api, reduction, attributes, list(self_shape), list(target_shape)))


def agree(actual, expected, rtol, what):
    """Whether the golden equals PyTorch's result to rtol; prints the case where not."""
    if tuple(actual.shape) != tuple(expected.shape) or \
            not torch.allclose(actual, expected, rtol=rtol, atol=1e-300, equal_nan=True):
        print("FAIL %s: golden %s, PyTorch %s" % (what, actual.flatten()[:4].tolist(),
                                                  expected.flatten()[:4].tolist()))
        return False
    return True


def check_nll(golden, api, reduction, ignore_index, self_shape, generator):
    """An NLL gradient's golden against aten's float64 kernel (which divides g by totalWeight
    before multiplying by w: equal to 1e-12), about a third of the targets ignoreIndex."""
    classes = self_shape[0 if len(self_shape) == 1 else 1]
    positions = () if len(self_shape) == 1 else (self_shape[0],) + tuple(self_shape[2:])
    target = torch.randint(0, classes, positions, generator=generator)
    ignored = torch.rand(positions, generator=generator, dtype=torch.float64) < 1 / 3
    target = torch.where(ignored, torch.full_like(target, ignore_index), target)
    tensors = {"self": torch.randn(self_shape, generator=generator, dtype=torch.float64),
               "target": target,
               "weight": torch.randn(classes, generator=generator, dtype=torch.float64),
               "grad_output": torch.randn(positions if reduction == 0 else (),
                                          generator=generator, dtype=torch.float64),
               "total_weight": torch.randn(1, generator=generator, dtype=torch.float64)}
    case = {"api": api, "kind": "grad_self", "reduction": reduction,
            "attributes": {"ignoreIndex": float(ignore_index)}}
    op = golden.OPS[api]
    return agree(op.golden(case, tensors), op.in_torch(case, tensors), 1e-12,
                 "%s reduction %d ignoreIndex %d self %s" % (api, reduction, ignore_index,
                                                            list(self_shape)))


def cross_entropy_tensors(case, generator, shape, weight):
    """Logits (N, C), targets with about a third ignoreIndex, weights none, positive or signed
    (the gradient files' are normal, of either sign), and the gradient flowing in."""
    rows, classes = shape
    ignore_index = int(case["attributes"]["ignoreIndex"])
    target = torch.randint(0, classes, (rows,), generator=generator)
    ignored = torch.rand(rows, generator=generator, dtype=torch.float64) < 1 / 3
    tensors = {"self": torch.randn(shape, generator=generator, dtype=torch.float64) * 3,
               "target": torch.where(ignored, torch.full_like(target, ignore_index), target),
               "grad_output": torch.randn((rows,) if case["reduction"] == 0 else (),
                                          generator=generator, dtype=torch.float64)}
    if weight != "none":
        w = torch.rand(classes, generator=generator, dtype=torch.float64) + 0.1
        tensors["weight"] = w * (torch.randint(0, 2, (classes,), generator=generator) * 2 - 1) \
            if weight == "signed" else w
    return tensors


def check_cross_entropy(golden, case, shape, weight, generator):
    """The cross entropy's goldens: the loss and log-probabilities against F.cross_entropy and
    F.log_softmax; the gradient from log_softmax(x) against autograd's gradient of
    F.cross_entropy at x, and against the runner's PyTorch evaluation (log_softmax's backward)
    on rows that are not normalized, as CANN's files give them."""
    tensors = cross_entropy_tensors(case, generator, shape, weight)
    what = "%s reduction %d %s self %s weight %s" % (
        case["api"], case["reduction"], case["attributes"], list(shape), weight)
    op = golden.OPS[case["api"]]
    if case["api"] == "aclnnCrossEntropyLoss":
        actual, expected = op.golden(case, tensors), op.in_torch(case, tensors)
        return all(agree(actual[role], expected[role], 1e-12, what + " " + role)
                   for role in ("out", "log_prob_out"))
    x = tensors["self"].clone().requires_grad_(True)
    a = case["attributes"]
    loss = F.cross_entropy(x, tensors["target"], tensors.get("weight"),
                           ignore_index=int(a["ignoreIndex"]),
                           reduction=golden.REDUCTION[case["reduction"]],
                           label_smoothing=a["labelSmoothing"])
    loss.backward(tensors["grad_output"])
    tensors["self"] = F.log_softmax(tensors["self"], dim=1)
    agrees = agree(op.golden(case, tensors), x.grad, 1e-10, what)
    tensors["self"] = -10 * torch.rand(shape, generator=generator, dtype=torch.float64)
    return agree(op.golden(case, tensors), op.in_torch(case, tensors), 1e-10,
                 what + " (rows not normalized)") and agrees


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
    # The class-axis gradients: a 1-D, 2-D and 4-D self; an ignoreIndex outside the classes
    # (negative, as PyTorch's default) and one inside them.
    nll = [("aclnnNLLLossBackward", (5,)), ("aclnnNLLLossBackward", (6, 5)),
           ("aclnnNLLLoss2dBackward", (2, 5, 3, 4))]
    for api, self_shape in nll:
        for reduction in [0, 1, 2]:
            for ignore_index in [-100, 2]:
                checked += 1
                failed += not check_nll(golden, api, reduction, ignore_index, self_shape,
                                        generator)
    # The cross entropy: every reduction, with and without label smoothing, an ignoreIndex outside
    # the classes and one inside them, one class or several.
    cross_entropy = ["aclnnCrossEntropyLoss", "aclnnCrossEntropyLossGrad"]
    for api in cross_entropy:
        for reduction in [0, 1, 2]:
            for eps in [0.0, 0.3]:
                for ignore_index, shape in [(-100, (6, 5)), (2, (7, 4)), (-1, (5, 1))]:
                    for weight in ["none", "positive", "signed"]:
                        case = {"api": api, "kind": kind_of(api), "reduction": reduction,
                                "attributes": {"ignoreIndex": float(ignore_index),
                                               "labelSmoothing": eps}}
                        checked += 1
                        failed += not check_cross_entropy(golden, case, shape, weight,
                                                          generator)
    print("%d of %d golden evaluations agree with PyTorch (%d ops)" % (
        checked - failed, checked, len(apis) + len({api for api, _ in nll}) + len(cross_entropy)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
