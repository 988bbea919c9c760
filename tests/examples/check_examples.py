#!/usr/bin/python3
"""Runs each example program and checks the numbers it prints against float64 math.

Usage: check_examples.py EXAMPLES_DIR
"""
import math
import re
import subprocess
import sys

import numpy as np


def f32(values):
    return [float(np.float32(v)) for v in values]


def softplus(z):
    return max(z, 0.0) + math.log1p(math.exp(-abs(z)))


def loss(x, t, w=1.0, p=1.0):
    return w * (p * t * softplus(-x) + (1 - t) * softplus(x))


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def probability_loss(x, t, w=1.0):
    return -w * (t * max(math.log(x), -100) + (1 - t) * max(math.log1p(-x), -100))


def probability_gradient(g, x, t, w=1.0):
    return g * w * (x - t) / max(x * (1 - x), float(np.float32(1e-12)))


def kl_div(x, t):
    return 0.0 if t == 0 else t * (math.log(t) - x)


def printed(directory, name):
    out = subprocess.run([directory + "/" + name], check=True, capture_output=True,
                         text=True).stdout
    return out, [float(v) for v in re.findall(r"(?:is|loss|batch is): (-?[0-9.]+)", out)]


def check(name, got, expected, tolerance=2e-6):
    assert len(got) == len(expected), (name, got, expected)
    for g, e in zip(got, expected):
        assert abs(g - e) <= tolerance * max(1.0, abs(e)), (name, got, expected)
    print("%s: %d values match float64" % (name, len(got)))


def main():
    directory = sys.argv[1]
    # The CANN sample: [4,2], weight = pos_weight = 0.5, reduction none.
    x = f32([.1, .1, .2, .2, .3, .3, .4, .4])
    t = f32([.2, .2, .1, .1, .2, .2, .1, .1])
    _, got = printed(directory, "binary_cross_entropy_with_logits")
    check("sample", got, [loss(a, b, 0.5, 0.5) for a, b in zip(x, t)])

    # Mean over a transposed [3,4] view of a [4,3] buffer.
    logits = f32([-2.0, 0.5, 1.0, 3.0, -0.5, 0.0, 0.25, 2.0, -1.0, 1.5, -3.0, 0.75])
    labels = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0]
    mean = sum(loss(logits[c * 3 + r], labels[r * 4 + c]) for r in range(3) for c in range(4)) / 12
    _, got = printed(directory, "binary_cross_entropy_with_logits_mean_transposed")
    check("transposed mean", got, [mean])

    # Training step: mean loss with a per-label pos_weight, then its gradient.
    logits = f32([1.5, -0.5, 0.25, -2.0, 0.75, 3.0])
    labels = [1, 0, 1, 0, 1, 1]
    pos = [1.0, 2.0, 0.5]
    mean = sum(loss(logits[i], labels[i], 1.0, pos[i % 3]) for i in range(6)) / 6
    grads = [((1 + (pos[i % 3] - 1) * labels[i]) * sigmoid(logits[i]) - pos[i % 3] * labels[i]) / 6
             for i in range(6)]
    out, _ = printed(directory, "bce_with_logits_training_step")
    got_loss = [float(v) for v in re.findall(r"loss: (-?[0-9.]+)", out)]
    got_grads = [float(v) for v in re.findall(r"grad\[\d\] is: (-?[0-9.]+)", out)]
    check("training step", got_loss + got_grads, [mean] + grads)

    # CANN's samples of the probability family: [2,2], self 0.3, target 0.5, weight 1, none
    # (the Backward with gradOutput 0.1); they print CANN's digits.
    x, t, g = f32([0.3, 0.5, 0.1])
    for name, value, digits in (
            ("binary_cross_entropy", probability_loss(x, t), "0.780324"),
            ("binary_cross_entropy_backward", probability_gradient(g, x, t), "-0.095238")):
        out, got = printed(directory, name)
        check(name, got, [value] * 4)
        assert out.count("is: %s\n" % digits) == 4, (name, out)

    # CANN's samples of the L1 family: [2,2], self 0..3, target 1, mean (the Backward with
    # gradOutput 0..3): exact values, printed with CANN's %f digits (-0 for 0 * sign(-1) / 4).
    x, t = [0.0, 1.0, 2.0, 3.0], 1.0
    out, got = printed(directory, "l1_loss")
    check("l1_loss", got, [sum(abs(a - t) for a in x) / 4])
    assert out == "result[0] is: 1.000000\n", out
    out, got = printed(directory, "l1_loss_backward")
    check("l1_loss_backward", got, [g * math.copysign(a != t, a - t) / 4 for g, a in zip(x, x)])
    assert out.splitlines() == ["result[%d] is: %s" % (i, d) for i, d in
                                enumerate(("-0.000000", "0.000000", "0.500000", "0.750000"))], out
    # CANN's sample of aclnnKlDiv: [4,2], self 0..7, target {1,1,1,2,2,2,3,3}, mean, logTarget
    # false: (6 ln 6 - 66) / 8.
    x, t = range(8), [1, 1, 1, 2, 2, 2, 3, 3]
    out, got = printed(directory, "kl_div")
    check("kl_div", got, [sum(kl_div(a, b) for a, b in zip(x, t)) / 8])
    assert out == "result[0] is: -6.906180\n", out
    # CANN's samples of the MSE family: self [2,2] = 0..3, target 1, mean (the Backward with
    # gradOutput 0..3); MseLossOut's mean is over dimension 0. Every value is exact in fp32, so
    # the printed digits are CANN's too.
    x, g = [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]
    squares = [(v - 1) ** 2 for v in x]
    for name, values in (
            ("mse_loss", [sum(squares) / 4]),
            ("mse_loss_out", [(squares[0] + squares[2]) / 2, (squares[1] + squares[3]) / 2]),
            ("mse_loss_backward", [2 * gi * (v - 1) / 4 for gi, v in zip(g, x)])):
        out, got = printed(directory, name)
        check(name, got, values, tolerance=0)
        assert out == "".join("result[%d] is: %f\n" % (i, v) for i, v in enumerate(values)), out


if __name__ == "__main__":
    main()
