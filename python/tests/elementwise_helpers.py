"""The element-wise losses' table for their suites: per function its torch counterpart, its
attributes' sample values, its C API (a function whose op this library lacks is skipped, with
that reason shown) and whether torch 1.13 differentiates it with respect to the target."""
import pytest
import torch

import openaclnn

F = torch.nn.functional
AVAILABLE = {op["api"] for op in openaclnn._binding.ops()}


class Loss:
    def __init__(self, name, api, kwargs, target_grad=True, reductions=("none", "mean", "sum"),
                 target_range=(-4.0, 4.0), module=None):
        self.name, self.api, self.kwargs = name, api, kwargs
        self.ours = getattr(openaclnn, name)
        self.torch = getattr(F, name)
        self.target_grad = target_grad
        self.reductions = reductions
        self.target_range = target_range
        self.module = module

    def __repr__(self):
        return self.name + ("(log_target)" if self.kwargs.get("log_target") else "")

    def param(self, *values):
        marks = [] if self.api in AVAILABLE else [pytest.mark.skip(
            reason=f"{self.api} is not in this library yet")]
        return pytest.param(self, *values, marks=marks,
                            id="-".join([repr(self)] + [str(v) for v in values]))


LOSSES = [
    Loss("mse_loss", "aclnnMseLoss", {}, module="MSELoss"),
    Loss("l1_loss", "aclnnL1Loss", {}, module="L1Loss"),
    Loss("smooth_l1_loss", "aclnnSmoothL1Loss", {"beta": 0.75}, module="SmoothL1Loss"),
    Loss("huber_loss", "openaclnnHuberLoss", {"delta": 1.5}, module="HuberLoss"),
    Loss("soft_margin_loss", "aclnnSoftMarginLoss", {}, target_grad=False,
         module="SoftMarginLoss"),
    Loss("kl_div", "aclnnKlDiv", {"log_target": False},
         reductions=("none", "mean", "sum", "batchmean"), target_range=(0.0, 1.0),
         module="KLDivLoss"),
    Loss("kl_div", "aclnnKlDiv", {"log_target": True},
         reductions=("none", "mean", "sum", "batchmean"), target_range=(-3.0, 0.0),
         module="KLDivLoss"),
]


def each(*extra):
    """pytest params: every loss (times the values of `extra`, a list of lists)."""
    import itertools
    return [loss.param(*values) for loss in LOSSES for values in itertools.product(*extra)]


def each_reduction(*extra):
    """pytest params: every loss and each of its reductions (times the values of `extra`)."""
    import itertools
    return [loss.param(r, *values) for loss in LOSSES for r in loss.reductions
            for values in itertools.product(*extra)]
