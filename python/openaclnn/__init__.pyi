# Types of the openaclnn package (PEP 561: py.typed sits beside this file). An operand is a
# NumPy array, a PyTorch CPU tensor or any object with __dlpack__; results are of input's kind.
from typing import Any, Literal, Optional, Tuple

__version__: str

Reduction = Literal["none", "mean", "sum"]
_Operand = Any  # np.ndarray | torch.Tensor | a __dlpack__ producer
_Result = Any  # np.ndarray, or torch.Tensor for torch inputs and bfloat16 results

class Error(RuntimeError):
    status: int
    message: str
    raw: str
    def __init__(self, status: int, message: str) -> None: ...

class ShapeError(Error, ValueError): ...
class DtypeError(Error, TypeError): ...

def binary_cross_entropy_with_logits(
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    pos_weight: Optional[_Operand] = ...,
    reduction: Reduction = ...,
) -> _Result: ...
def binary_cross_entropy_with_logits_backward(
    grad_output: _Operand,
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    pos_weight: Optional[_Operand] = ...,
    reduction: Reduction = ...,
) -> _Result: ...
def binary_cross_entropy_with_logits_target_backward(
    grad_output: _Operand,
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    pos_weight: Optional[_Operand] = ...,
    reduction: Reduction = ...,
) -> _Result: ...
def binary_cross_entropy_with_logits_and_grad(
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    pos_weight: Optional[_Operand] = ...,
    reduction: Reduction = ...,
) -> Tuple[_Result, _Result]: ...

def binary_cross_entropy(
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    reduction: Reduction = ...,
) -> _Result: ...
def binary_cross_entropy_backward(
    grad_output: _Operand,
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    reduction: Reduction = ...,
) -> _Result: ...

class BCELoss:  # a torch.nn.Module (torch is imported on first use)
    weight: Optional[Any]
    reduction: Reduction
    def __init__(self, weight: Optional[Any] = ..., reduction: Reduction = ...) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...

class BCEWithLogitsLoss:  # a torch.nn.Module (torch is imported on first use)
    weight: Optional[Any]
    pos_weight: Optional[Any]
    reduction: Reduction
    def __init__(
        self,
        weight: Optional[Any] = ...,
        reduction: Reduction = ...,
        pos_weight: Optional[Any] = ...,
    ) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...
