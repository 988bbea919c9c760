"""The examples in the package's docstrings (what help() shows) run and print what they say."""
import doctest

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
