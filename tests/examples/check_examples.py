#!/usr/bin/python3
"""Runs each example program and checks the numbers it prints against float64 math.

Usage: check_examples.py EXAMPLES_DIR
"""
import math
import re
import struct
import subprocess
import sys
from fractions import Fraction

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


def smooth_l1(x, t, beta):
    """The smooth L1 loss of exact inputs, exactly (beta = 0 is L1)."""
    d = abs(Fraction(x) - Fraction(t))
    return d * d / (2 * Fraction(beta)) if d < beta else d - Fraction(beta) / 2


def smooth_l1_gradient(g, x, t, beta):
    d = Fraction(x) - Fraction(t)
    if abs(d) < beta:
        return Fraction(g) * d / Fraction(beta)
    return Fraction(g) * ((d > 0) - (d < 0))


def huber(x, t, delta):
    d = abs(Fraction(x) - Fraction(t))
    return d * d / 2 if d < delta else Fraction(delta) * (d - Fraction(delta) / 2)


def printed_digits(exact, dtype=np.float32):
    """How the samples print a result: %f of the exact value rounded once to dtype (every value
    here is exact in a double, so the double's rounding to dtype is that one rounding)."""
    return "%f" % float(dtype(float(exact)))


def soft_margin(x, t):
    return softplus(-x * t)


def soft_margin_gradient(g, x, t, n):
    return -t * g / (1 + math.exp(x * t)) / n


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
    # CANN's samples of the soft margin family, with the digits they print: the loss of [2,2]
    # self against target +-1, none; and the Backward's mean over gradOutput = self = 0..3,
    # target 1 (-(t g) = -0 at the first element).
    x, t = f32([0.3, 0.7, 0.5, 0.5]), [-1, 1, 1, -1]
    out, got = printed(directory, "soft_margin_loss")
    check("soft_margin_loss", got, [soft_margin(a, b) for a, b in zip(x, t)])
    assert re.findall(r"is: (\S+)", out) == ["0.854355", "0.403186", "0.474077", "0.974077"], out
    out, got = printed(directory, "soft_margin_loss_backward")
    check("soft_margin_loss_backward", got, [soft_margin_gradient(i, i, 1, 4) for i in range(4)])
    assert re.findall(r"is: (\S+)", out) == ["-0.000000", "-0.067235", "-0.059601",
                                              "-0.035569"], out
    check_smooth_l1_family(directory)
    check_nll_family(directory)
    check_cross_entropy(directory)


def check_nll_family(directory):
    # CANN's NLLLoss sample: self [2,3] = 0..5, targets {0, 2}, weight {1.1, 1.2, 1.3}, none: -w x
    # (-0 at x = 0, and -5 fl32(1.3) a tie of fp32 that goes to 6.5); and an NLLLoss2d sample in
    # its style: self [1,2,3,2] = 0.1, 1.1, ..., 11.1, targets {1,0,1,1,0,1}, weight {1.1, 1.2}.
    # Each value -w x is exact in a double, so printed_digits rounds it once.
    w = f32([1.1, 1.2, 1.3])
    expected = [printed_digits(-w[0] * 0.0), printed_digits(-w[2] * 5.0)]
    assert expected == ["-0.000000", "-6.500000"], expected
    x, w, targets = f32([k + 0.1 for k in range(12)]), f32([1.1, 1.2]), [1, 0, 1, 1, 0, 1]
    expected_2d = [printed_digits(-w[t] * x[t * 6 + p]) for p, t in enumerate(targets)]
    for name, values in (("nll_loss", expected), ("nll_loss2d", expected_2d)):
        out, _ = printed(directory, name)
        assert re.findall(r"is: (-?[0-9.]+)", out) == values, (name, out, values)
        print("%s: %d values print the correctly rounded digits" % (name, len(values)))


def check_cross_entropy(directory):
    # CANN's CrossEntropyLoss sample: logits [2,5] = {5,0,3,3,7}, {9,3,5,2,4}, targets {0, 0}, no
    # weight, mean: the loss (1.093754; CANN's kernel gives 2 ulp more, 1.0937543) and the
    # log-probabilities x - logsumexp(row), from mpmath at 50 digits (far from any fp32 midpoint
    # here, so rounding through a double does not change the printed digits).
    import mpmath

    mpmath.mp.dps = 50
    rows = [[5, 0, 3, 3, 7], [9, 3, 5, 2, 4]]
    lse = [mpmath.log(mpmath.fsum(mpmath.exp(x) for x in row)) for row in rows]
    log_probs = [x - lse[n] for n, row in enumerate(rows) for x in row]
    loss = -(log_probs[0] + log_probs[5]) / 2
    expected = [printed_digits(float(v)) for v in [loss] + log_probs]
    out, _ = printed(directory, "cross_entropy_loss")
    assert re.findall(r"is: (-?[0-9.]+)", out) == expected, (out, expected)
    print("cross_entropy_loss: %d values print the correctly rounded digits" % len(expected))


def check_smooth_l1_family(directory):
    # CANN's SmoothL1Loss sample: fp16 [2,2,7,7] tensors over the bytes of float 1.0s (halves of
    # 0 and 1.875 in turn, self and target alike), none, beta 1; its fp16 result's block read
    # back as 196 floats: the losses' halves, then the bytes the op did not write (float 1.0s).
    block = struct.pack("<196f", *[1.0] * 196)
    halves = np.frombuffer(block[:392], dtype=np.float16)
    losses = np.array([float(smooth_l1(float(h), float(h), 1)) for h in halves], np.float16)
    read_back = np.frombuffer(losses.tobytes() + block[392:], dtype=np.float32)
    expected = ["%f" % v for v in read_back]
    out, _ = printed(directory, "smooth_l1_loss")
    assert re.findall(r"is: (-?[0-9.]+)", out) == expected, ("smooth_l1_loss", out)
    print("smooth_l1_loss: %d values print CANN's sample's digits" % len(expected))

    # CANN's SmoothL1LossBackward sample: fp32 [4,2], gradOut 1, self 0..7, target 1, none,
    # beta 1; and the Huber extension's: self [-3, -1.5, -0.5, 0, 0.25, 1, 2, 4.1f], target 0,
    # none, delta 1.5.
    x = f32([-3, -1.5, -0.5, 0, 0.25, 1, 2, 4.1])
    for name, values in (
            ("smooth_l1_loss_backward",
             [smooth_l1_gradient(1, v, 1, 1) for v in range(8)]),
            ("huber_loss", [huber(v, 0, 1.5) for v in x])):
        out, _ = printed(directory, name)
        expected = [printed_digits(v) for v in values]
        assert re.findall(r"is: (-?[0-9.]+)", out) == expected, (name, out, expected)
        print("%s: %d values print the correctly rounded digits" % (name, len(expected)))


if __name__ == "__main__":
    main()
