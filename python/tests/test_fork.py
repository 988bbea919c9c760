"""Forked children compute: after a large call in the parent (the library's thread pool and
stream worker running), a child of os.fork() and the forked workers of a PyTorch DataLoader
get the parent's bits. Each runs in a subprocess under a timeout, so a hang fails the test
instead of stalling the suite."""
import subprocess
import sys

import pytest

TIMEOUT = 120

FORK = """
import os, numpy as np, openaclnn
x = np.linspace(-8, 8, 1 << 20, dtype=np.float32)
t = np.linspace(0, 1, 1 << 20, dtype=np.float32)
parent = openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none")  # pool started
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    child = openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none")
    mean = openaclnn.binary_cross_entropy_with_logits(x, t)
    os.write(w, child.tobytes() + mean.tobytes())
    os._exit(0)
os.close(w)
with os.fdopen(r, "rb") as pipe:
    data = pipe.read()
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
expected = parent.tobytes() + openaclnn.binary_cross_entropy_with_logits(x, t).tobytes()
assert data == expected, "the child's bits differ from the parent's"
print("fork ok")
"""

DATALOADER = """
import multiprocessing, torch, openaclnn

class Losses(torch.utils.data.Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(1 << 18, generator=g)
        t = torch.rand(1 << 18, generator=g)
        return openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none")

data = Losses()
in_parent = [data[i] for i in range(len(data))]  # the library's threads run in the parent
loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2,
                                     multiprocessing_context=multiprocessing.get_context("fork"))
in_workers = list(loader)
assert len(in_workers) == len(in_parent)
assert all(torch.equal(a, b) for a, b in zip(in_workers, in_parent)), "workers' bits differ"
print("dataloader ok")
"""

# fork() while other threads are in the middle of calls (their streams queued, the pool busy,
# the library's locks taken and released all the time): every child still computes.
FORK_UNDER_LOAD = """
import os, threading, numpy as np, openaclnn
x = np.linspace(-8, 8, 1 << 19, dtype=np.float32)
t = np.linspace(0, 1, 1 << 19, dtype=np.float32)
expected = openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none").tobytes()
stop = threading.Event()
def busy():
    while not stop.is_set():
        assert openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none").tobytes() == expected
        openaclnn.binary_cross_entropy_with_logits(x[:100], t[:100])
threads = [threading.Thread(target=busy) for _ in range(2)]
for thread in threads:
    thread.start()
for _ in range(8):
    pid = os.fork()
    if pid == 0:
        same = openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none").tobytes() == expected
        os._exit(0 if same else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
stop.set()
for thread in threads:
    thread.join()
print("fork under load ok")
"""


# Per element-wise loss: DataLoader workers forked after the parent computed it (with a large
# operand, so the library's threads ran) give the parent's bits for every reduction.
ELEMENTWISE_DATALOADER = """
import multiprocessing, sys, warnings, torch, openaclnn
warnings.simplefilter("ignore")
name, kwargs = sys.argv[1], eval(sys.argv[2])
loss = getattr(openaclnn, name)

class Losses(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.rand(1 << 17, generator=g) - 2
        t = torch.rand(1 << 17, generator=g).sign() if name == "soft_margin_loss" else \\
            torch.rand(1 << 17, generator=g)
        return torch.stack([loss(x, t, reduction="none", **kwargs).sum().double(),
                            loss(x, t, reduction="sum", **kwargs).double()])

data = Losses()
in_parent = [data[i] for i in range(len(data))]
loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2,
                                     multiprocessing_context=multiprocessing.get_context("fork"))
in_workers = list(loader)
assert all(torch.equal(a, b) for a, b in zip(in_workers, in_parent)), "workers' bits differ"
print("dataloader ok")
"""


@pytest.mark.parametrize("name, kwargs", [
    ("mse_loss", "{}"), ("l1_loss", "{}"), ("smooth_l1_loss", "{'beta': 0.5}"),
    ("huber_loss", "{'delta': 0.5}"), ("soft_margin_loss", "{}"),
    ("kl_div", "{'log_target': False}")])
def test_forked_dataloader_workers_per_elementwise_loss(name, kwargs):
    from elementwise_helpers import AVAILABLE, LOSSES
    api = next(loss.api for loss in LOSSES if loss.name == name)
    if api not in AVAILABLE:
        pytest.skip(f"{api} is not in this library yet")
    try:
        done = subprocess.run([sys.executable, "-c", ELEMENTWISE_DATALOADER, name, kwargs],
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: no result in {TIMEOUT} s")
    assert done.returncode == 0, done.stderr
    assert "dataloader ok" in done.stdout


@pytest.mark.parametrize("script, says", [(FORK, "fork ok"), (DATALOADER, "dataloader ok"),
                                          (FORK_UNDER_LOAD, "fork under load ok")],
                         ids=["os.fork", "DataLoader", "os.fork while threads call"])
def test_forked_children_compute_the_parents_bits(script, says):
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: no result in {TIMEOUT} s")
    assert done.returncode == 0, done.stderr
    assert says in done.stdout
