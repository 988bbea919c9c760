"""Logistic regression trained with torch.distributed: DistributedDataParallel over the gloo
backend, 2 processes on 127.0.0.1, each computing openaclnn.BCEWithLogitsLoss on its half of
the batch; DDP averages the gradients, so every step equals one on the full batch.

    PYTHONPATH=build/python python3 examples/python/ddp_logistic_regression.py
"""
import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

import openaclnn

FEATURES = 16
BATCH = 512
LEARNING_RATE = 0.5
POS_WEIGHT = 1.5


def make_data(seed=0):
    """A linearly separable-ish problem: labels from a hidden weight vector plus noise."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(BATCH, FEATURES, generator=gen)
    hidden = torch.randn(FEATURES, generator=gen)
    y = ((x @ hidden + 0.5 * torch.randn(BATCH, generator=gen)) > 0).float()
    return x, y


def make_model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(FEATURES, 1)


def make_loss():
    return openaclnn.BCEWithLogitsLoss(pos_weight=torch.tensor([POS_WEIGHT]))


def train(model, loss_fn, x, y, steps):
    """Plain SGD; returns each step's loss and parameter gradients."""
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x).squeeze(1), y)
        loss.backward()
        history.append((loss.item(), [p.grad.clone() for p in model.parameters()]))
        optimizer.step()
    return history


def worker(rank, world_size, port, steps, out):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world_size)
    try:
        x, y = make_data()
        shard = slice(rank * BATCH // world_size, (rank + 1) * BATCH // world_size)
        model = DistributedDataParallel(make_model())
        history = train(model, make_loss(), x[shard], y[shard], steps)
        if rank == 0:
            if out:
                torch.save(history, out)
            for step, (loss, _) in enumerate(history):
                print(f"step {step:2d}  loss on rank 0's half {loss:.6f}")
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--out", help="save rank 0's per-step losses and gradients here")
    args = parser.parse_args()
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only: nothing leaves the host
    world_size = 2
    mp.spawn(worker, args=(world_size, free_port(), args.steps, args.out), nprocs=world_size)


if __name__ == "__main__":
    main()
