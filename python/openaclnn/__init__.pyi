# Types of the openaclnn package (PEP 561: py.typed sits beside this file). An operand is a
# NumPy array, a PyTorch CPU tensor or any object with __dlpack__; results are of input's kind.
from typing import Any, Literal, Optional, Tuple

__version__: str

Reduction = Literal["none", "mean", "sum"]
KlReduction = Literal["none", "mean", "sum", "batchmean"]
_Operand = Any  # np.ndarray | torch.Tensor | a __dlpack__ producer
_Result = Any  # np.ndarray, or torch.Tensor for torch inputs and bfloat16 results

class Error(RuntimeError):
    status: int
    message: str
    raw: str
    def __init__(self, status: int, message: str) -> None: ...

class ShapeError(Error, ValueError): ...
class DtypeError(Error, TypeError): ...
class ArgumentError(Error, ValueError): ...
class TargetError(Error, IndexError): ...

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

def mse_loss(
    input: _Operand,
    target: _Operand,
    size_average: Optional[bool] = ...,
    reduce: Optional[bool] = ...,
    reduction: Reduction = ...,
) -> _Result: ...
l1_loss = mse_loss  # the same signature
def smooth_l1_loss(
    input: _Operand,
    target: _Operand,
    size_average: Optional[bool] = ...,
    reduce: Optional[bool] = ...,
    reduction: Reduction = ...,
    beta: float = ...,
) -> _Result: ...
def huber_loss(
    input: _Operand,
    target: _Operand,
    reduction: Reduction = ...,
    delta: float = ...,
) -> _Result: ...
soft_margin_loss = mse_loss  # the same signature
def kl_div(
    input: _Operand,
    target: _Operand,
    size_average: Optional[bool] = ...,
    reduce: Optional[bool] = ...,
    reduction: KlReduction = ...,
    log_target: bool = ...,
) -> _Result: ...
def nll_loss(
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    size_average: Optional[bool] = ...,
    ignore_index: int = ...,
    reduce: Optional[bool] = ...,
    reduction: Reduction = ...,
) -> _Result: ...
def cross_entropy(
    input: _Operand,
    target: _Operand,
    weight: Optional[_Operand] = ...,
    size_average: Optional[bool] = ...,
    ignore_index: int = ...,
    reduce: Optional[bool] = ...,
    reduction: Reduction = ...,
    label_smoothing: float = ...,
) -> _Result: ...

class MSELoss:  # a torch.nn.Module (torch is imported on first use)
    reduction: Reduction
    def __init__(
        self,
        size_average: Optional[bool] = ...,
        reduce: Optional[bool] = ...,
        reduction: Reduction = ...,
    ) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...

class L1Loss(MSELoss): ...  # torch.nn.L1Loss's signature

class SmoothL1Loss:  # a torch.nn.Module
    reduction: Reduction
    beta: float
    def __init__(
        self,
        size_average: Optional[bool] = ...,
        reduce: Optional[bool] = ...,
        reduction: Reduction = ...,
        beta: float = ...,
    ) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...

class HuberLoss:  # a torch.nn.Module
    reduction: Reduction
    delta: float
    def __init__(self, reduction: Reduction = ..., delta: float = ...) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...

class SoftMarginLoss(MSELoss): ...  # torch.nn.SoftMarginLoss's signature

class KLDivLoss:  # a torch.nn.Module
    reduction: KlReduction
    log_target: bool
    def __init__(
        self,
        size_average: Optional[bool] = ...,
        reduce: Optional[bool] = ...,
        reduction: KlReduction = ...,
        log_target: bool = ...,
    ) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...

class NLLLoss:  # a torch.nn.Module
    weight: Any
    ignore_index: int
    reduction: Reduction
    def __init__(
        self,
        weight: Any = ...,
        size_average: Optional[bool] = ...,
        ignore_index: int = ...,
        reduce: Optional[bool] = ...,
        reduction: Reduction = ...,
    ) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...

class CrossEntropyLoss:  # a torch.nn.Module
    weight: Optional[Any]
    ignore_index: int
    reduction: Reduction
    label_smoothing: float
    def __init__(
        self,
        weight: Optional[Any] = ...,
        size_average: Optional[bool] = ...,
        ignore_index: int = ...,
        reduce: Optional[bool] = ...,
        reduction: Reduction = ...,
        label_smoothing: float = ...,
    ) -> None: ...
    def forward(self, input: Any, target: Any) -> Any: ...
    def __call__(self, input: Any, target: Any) -> Any: ...
