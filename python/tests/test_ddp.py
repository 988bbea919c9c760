"""The torch.distributed example: 2 gloo processes with DistributedDataParallel and
openaclnn.BCEWithLogitsLoss give, step by step, the gradients of single-process training on
the full batch (within 1e-5 relative)."""
import importlib.util
import os
import subprocess
import sys

import torch

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python",
                       "ddp_logistic_regression.py")
STEPS = 3


def load_example():
    spec = importlib.util.spec_from_file_location("ddp_logistic_regression", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ddp_gradients_equal_full_batch_training(tmp_path):
    out = tmp_path / "history.pt"
    subprocess.run([sys.executable, EXAMPLE, "--steps", str(STEPS), "--out", str(out)],
                   check=True, timeout=300)
    distributed = torch.load(out)

    example = load_example()
    x, y = example.make_data()
    single = example.train(example.make_model(), example.make_loss(), x, y, STEPS)

    assert len(distributed) == len(single) == STEPS
    for (_, ddp_grads), (_, full_grads) in zip(distributed, single):
        for got, want in zip(ddp_grads, full_grads):
            assert torch.allclose(got, want, rtol=1e-5, atol=1e-5 * want.abs().max()), (
                (got - want).abs().max())
