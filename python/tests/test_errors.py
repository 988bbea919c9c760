"""What the library rejects reaches Python as openaclnn.Error: .status is the aclnn code and
str() the library's own message (aclGetRecentErrMsg)."""
import numpy as np
import pytest
import torch

import openaclnn
from helpers import error_of

X = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
T = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64, np.bool_, np.complex64])
def test_other_dtypes_are_refused_never_cast(dtype):
    for x, t in ((X.astype(dtype), T), (X, T.astype(dtype))):
        error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(x, t))
        assert error.status == 161002
        assert "AclNN_Parameter_Error" in str(error) and "dtype" in str(error), str(error)


def test_torch_float64_is_refused():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(
        torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)))
    assert error.status == 161002 and "DT_DOUBLE" in str(error)


def test_error_is_the_librarys_message():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(X, T, np.ones(
        5, np.float32)))
    assert isinstance(error, RuntimeError)
    assert error.status == 161002
    assert str(error) == error.message
    assert "aclnnBinaryCrossEntropyWithLogits" in str(error) and "weight" in str(error)


def test_shape_mismatch():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits_backward(
        np.ones((2, 2), np.float32), X, T, reduction="none"))
    assert error.status == 161002 and "gradOutput" in str(error), str(error)


def test_negative_strides_are_refused_not_copied():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(X[::-1], T))
    assert error.status == 161002 and "negative stride" in str(error)
    assert "input" in str(error)


def test_unknown_reduction():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(X, T, reduction="avg"))
    assert error.status == 161002 and "'avg'" in str(error)


def test_objects_that_are_not_arrays():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits([1.0, 2.0], T))
    assert error.status == 161002 and "list" in str(error)


def test_rank_above_eight():
    x = np.zeros((1,) * 9, np.float32)
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(x, x))
    assert error.status == 161002 and "rank" in str(error).lower(), str(error)


def test_misaligned_strides():
    record = np.zeros(4, dtype=[("a", np.float32), ("b", np.int8)])
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(record["a"],
                                                                        record["a"]))
    assert error.status == 161002 and "multiple of its element size" in str(error)


def test_a_failure_leaves_the_next_call_working():
    error_of(lambda: openaclnn.binary_cross_entropy_with_logits(X.astype(np.float64), T))
    assert np.isfinite(openaclnn.binary_cross_entropy_with_logits(X, T))


def test_one_pass_function_reports_as_itself():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits_and_grad(
        X.astype(np.float64), T))
    assert error.status == 161002
    assert "aclnnBinaryCrossEntropyWithLogitsAndGrad" in str(error), str(error)
