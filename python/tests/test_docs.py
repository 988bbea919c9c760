"""The examples in the package's docstrings (what help() shows) run and print what they say;
python -m openaclnn reports the installation."""
import doctest
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import openaclnn
import openaclnn._torch


@pytest.mark.parametrize("module", [openaclnn, openaclnn._torch], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    globs = {"np": np, "torch": torch, "openaclnn": openaclnn}
    failed, attempted = doctest.testmod(module, globs=globs, report=True)
    assert attempted > 0 and failed == 0, f"{failed} of {attempted} examples failed"


def test_every_public_name_has_a_docstring():
    for name in openaclnn.__all__:
        if name != "__version__":
            assert getattr(openaclnn, name).__doc__, name


def test_python_m_openaclnn_prints_version_library_simd_and_threads():
    done = subprocess.run([sys.executable, "-m", "openaclnn"], capture_output=True, text=True,
                          env={**os.environ, "OPENACLNN_NUM_THREADS": "3"}, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = dict(line.split(":", 1) for line in done.stdout.splitlines()[1:])
    assert done.stdout.startswith(f"OpenACLNN {openaclnn.__version__} ")
    assert os.path.isfile(lines["library"].strip())
    assert "libopenaclnn" in lines["library"]
    assert lines["SIMD target"].strip()
    assert lines["threads"].strip() == "3"
