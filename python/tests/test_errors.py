"""What the library rejects reaches Python as openaclnn.Error: .status is the aclnn code, str()
the reason alone and .raw the library's full text (aclGetRecentErrMsg); shape and dtype
mistakes are also ValueError and TypeError, as torch raises them; nothing goes to stderr."""
import os
import pickle
import subprocess
import sys

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
        assert "AclNN_Parameter_Error" in error.raw and "dtype" in str(error), str(error)
        assert isinstance(error, TypeError) and isinstance(error, openaclnn.DtypeError)


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
    assert str(error).startswith("aclnnBinaryCrossEntropyWithLogits:"), str(error)
    assert "weight" in str(error)
    assert error.raw.startswith("[PID: ") and error.raw.rstrip().endswith(str(error)), error.raw


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


def test_shape_mistake_is_a_value_error_with_the_bare_reason():
    """As torch raises ValueError for a target whose size differs from the input's."""
    with pytest.raises(ValueError) as caught:
        openaclnn.binary_cross_entropy_with_logits(np.zeros(3, np.float32),
                                                   np.zeros(4, np.float32))
    error = caught.value
    assert isinstance(error, openaclnn.ShapeError) and isinstance(error, openaclnn.Error)
    assert error.status == 161002
    assert str(error) == ("aclnnBinaryCrossEntropyWithLogits: target shape [4] must equal self "
                          "shape [3].")
    assert "[PID:" not in str(error) and "[PID:" in error.raw


def test_torch_shape_mistake_is_caught_as_torch_users_catch_it():
    x, t = torch.zeros(3), torch.zeros(4)
    with pytest.raises(ValueError):
        torch.nn.functional.binary_cross_entropy_with_logits(x, t)  # what torch itself raises
    with pytest.raises(ValueError):
        openaclnn.binary_cross_entropy_with_logits(x, t)


def test_binding_rejections_have_a_kind_too():
    """What the binding refuses itself (no log header): raw is the reason."""
    record = np.zeros(4, dtype=[("a", np.float16, (2,))])
    with pytest.raises(TypeError) as caught:
        openaclnn.binary_cross_entropy_with_logits(record, record)
    assert "unsupported dtype" in str(caught.value), str(caught.value)
    assert caught.value.raw == str(caught.value)


def _stderr_of(code, **env):
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("OPENACLNN_LOG_LEVEL", "ASCEND_GLOBAL_LOG_LEVEL")}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environment, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


REJECTED_CALL = """
import numpy as np, os, openaclnn
try:
    openaclnn.binary_cross_entropy_with_logits(np.zeros(3, np.float32), np.zeros(4, np.float32))
except ValueError as e:
    print(e)
print("level in environment:", os.environ.get("OPENACLNN_LOG_LEVEL"))
"""


def test_a_rejected_call_prints_nothing_on_stderr():
    out, err = _stderr_of(REJECTED_CALL)
    assert err == "", err
    assert "target shape [4] must equal self shape [3]" in out
    assert "level in environment: None" in out  # child processes inherit no setting


def test_log_level_still_turns_logging_on():
    _, err = _stderr_of(REJECTED_CALL, OPENACLNN_LOG_LEVEL="error")
    assert "target shape [4] must equal self shape [3]" in err and "[ERROR]" in err, err


def test_errors_survive_pickling_as_from_a_dataloader_worker():
    error = error_of(lambda: openaclnn.binary_cross_entropy_with_logits(
        np.zeros(3, np.float32), np.zeros(4, np.float32)))
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is openaclnn.ShapeError and copy.status == error.status
    assert str(copy) == str(error) and copy.raw == error.raw
