// The ops of this library as data (an OpenACLNN extension, not part of CANN): for programs that
// drive every op alike (the openaclnn tool's ATK runner, the benchmarks, the fuzzer, language
// bindings) instead of writing one switch per op. Each op lists its tensor operands in its API's
// order with their roles, and has a phase 1 that takes those tensors as one array, so a caller
// can plan any op without knowing its C signature. Plain C, so that a foreign-function
// interface can read it too.
#ifndef OPENACLNN_OP_TABLE_H_
#define OPENACLNN_OP_TABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What an operand is to the op, whichever position its API gives it. */
typedef enum {
  OPENACLNN_ROLE_SELF = 0,          /* the input: logits, probabilities, predictions (the family) */
  OPENACLNN_ROLE_TARGET = 1,        /* what self is judged against */
  OPENACLNN_ROLE_WEIGHT = 2,        /* per-element weight, broadcast into self; optional */
  OPENACLNN_ROLE_POS_WEIGHT = 3,    /* weight of the positive term, broadcast into self; optional */
  OPENACLNN_ROLE_GRAD_OUTPUT = 4,   /* the gradient flowing in */
  OPENACLNN_ROLE_OUT = 5,           /* the op's (first) result */
  OPENACLNN_ROLE_GRAD_SELF_OUT = 6, /* the fused op's second result: the gradient for self */
  OPENACLNN_ROLE_TOTAL_WEIGHT = 7, /* a class-axis gradient's divisor: the forward's total weight */
  OPENACLNN_ROLE_TOTAL_WEIGHT_OUT = 8, /* a class-axis forward's second result: its total weight */
  OPENACLNN_ROLE_LOG_PROB_OUT = 9,     /* the cross entropy's log-probabilities, self's shape */
  OPENACLNN_ROLE_ZLOSS_OUT = 10,       /* CANN's zloss result: required, never written */
  OPENACLNN_ROLE_LSE_FOR_ZLOSS_OUT = 11, /* CANN's zloss log-sum-exp: required, never written */
  OPENACLNN_ROLE_GRAD_ZLOSS = 12,        /* CANN's zloss gradient: optional, never read */
  OPENACLNN_ROLE_LSE_FOR_ZLOSS = 13,     /* CANN's zloss log-sum-exp input: optional, never read */
  OPENACLNN_ROLE_COUNT = 14,
  /* Not a role: as an output's shapeOf, the broadcast shape of all the op's tensor inputs. */
  OPENACLNN_SHAPE_OF_INPUTS = 100
} openaclnnOperandRole;

/** The loss an op belongs to: its ops share operand roles and formulas. */
typedef enum {
  OPENACLNN_FAMILY_BCE_WITH_LOGITS = 0,      /* binary cross entropy of logits (sigmoid inside) */
  OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY = 1, /* binary cross entropy of probabilities in [0, 1] */
  OPENACLNN_FAMILY_MSE_LOSS = 2,             /* mean squared error */
  OPENACLNN_FAMILY_L1_LOSS = 3,              /* mean absolute error */
  OPENACLNN_FAMILY_SMOOTH_L1_LOSS = 4,       /* smooth L1 (beta) and Huber (delta) */
  OPENACLNN_FAMILY_SOFT_MARGIN_LOSS = 5,     /* logistic loss of a margin: log(1 + exp(-t x)) */
  OPENACLNN_FAMILY_KL_DIV = 6,               /* Kullback-Leibler divergence of log-probabilities */
  OPENACLNN_FAMILY_NLL_LOSS =
      7, /* negative log likelihood: -weight[t] self[t] along a class axis */
  OPENACLNN_FAMILY_CROSS_ENTROPY = 8 /* cross entropy of logits along a class axis (log-softmax) */
} openaclnnOpFamily;

/** How an op's operands are laid out (openaclnnOpDescriptor.layout). */
typedef enum {
  /* Element-wise: the inputs broadcast into one shape, and each element has its own term. */
  OPENACLNN_LAYOUT_ELEMENTWISE = 0,
  /* Along a class axis: self is (C), (N, C) or (N, C, d1, ...) (dimension 1 the classes, dimension
   * 0 of a 1-D self); target holds one class index per position, self's shape without the class
   * dimension, as an integer tensor; weight, one per class (C); a reduced result is one element. */
  OPENACLNN_LAYOUT_CLASS_AXIS = 1
} openaclnnOpLayout;

/** What the op computes. */
typedef enum {
  OPENACLNN_OP_LOSS = 0,         /* the loss (reduced or not) */
  OPENACLNN_OP_GRAD_SELF = 1,    /* the loss's gradient with respect to self */
  OPENACLNN_OP_GRAD_TARGET = 2,  /* the loss's gradient with respect to target */
  OPENACLNN_OP_LOSS_AND_GRAD = 3 /* the loss and the gradient with respect to self, one pass */
} openaclnnOpKind;

/** How an operand's shape follows the reduction (openaclnnOperand.reduced). */
typedef enum {
  OPENACLNN_REDUCED_NEVER = 0,    /* the same shape whatever the reduction */
  OPENACLNN_REDUCED_TO_ONE = 1,   /* one element when reduction is not none (a reduced loss, or
                                     the gradient flowing into one) */
  OPENACLNN_REDUCED_FIRST_DIM = 2 /* the shape without its first dimension when reduction is not
                                     none (aclnnMseLossOut's sum or mean over dimension 0) */
} openaclnnReducedShape;

typedef struct {
  const char* name; /* the API's parameter name, e.g. "self", "weightOptional" */
  openaclnnOperandRole role;
  int optional; /* nonzero: may be NULL */
  int output;   /* nonzero: the op writes it */
  int reduced;  /* an openaclnnReducedShape */
  /* For an output: the input whose shape it has (before any reduction), or
   * OPENACLNN_SHAPE_OF_INPUTS for the broadcast shape of all tensor inputs. For an input: its
   * role. */
  openaclnnOperandRole shapeOf;
} openaclnnOperand;

/** The type of an op's scalar attribute, as its C API takes it. */
typedef enum {
  OPENACLNN_ATTRIBUTE_FLOAT = 0,  /* float (smooth L1's beta) */
  OPENACLNN_ATTRIBUTE_DOUBLE = 1, /* double (Huber's delta) */
  OPENACLNN_ATTRIBUTE_BOOL = 2,   /* bool, 0 or 1 (KL divergence's logTarget) */
  OPENACLNN_ATTRIBUTE_INT64 = 3   /* int64_t (the class-axis ops' ignoreIndex); through the table,
                                     a double holding a whole number of magnitude at most 2^53 */
} openaclnnAttributeType;

/** A scalar attribute: a parameter of the C API after reduction (e.g. "beta", "logTarget"). */
typedef struct {
  const char* name; /* the API's parameter name */
  openaclnnAttributeType type;
  double defaultValue; /* PyTorch's default for it */
} openaclnnAttribute;

/** Phase 1 of an op with its tensors in API order (operandCount of them, NULL for an absent
 * optional one) and its attributes' values in API order (attributeCount of them, each as a
 * double: a float attribute is narrowed to float as the C API would, a bool is nonzero for true;
 * NULL takes every default). The same checks, codes and messages as the op's named
 * GetWorkspaceSize; a NULL `operands` returns ACLNN_ERR_PARAM_NULLPTR. */
typedef aclnnStatus (*openaclnnGetWorkspaceSizeFn)(const aclTensor* const* operands,
                                                   int64_t reduction, const double* attributes,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);
/** Phase 2: the op's named function itself. */
typedef aclnnStatus (*openaclnnLaunchFn)(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream);

typedef struct {
  const char* api; /* the C API's name, e.g. "aclnnBinaryCrossEntropyWithLogits" */
  openaclnnOpFamily family;
  openaclnnOpKind kind;
  size_t operandCount;
  const openaclnnOperand* operands; /* in API order: inputs, then outputs */
  openaclnnGetWorkspaceSizeFn getWorkspaceSize;
  openaclnnLaunchFn launch;
  size_t attributeCount;
  const openaclnnAttribute* attributes; /* in API order, after reduction */
  openaclnnOpLayout layout;
} openaclnnOpDescriptor;

/** The number of ops; they are numbered 0 to openaclnnOpCount() - 1, in a fixed order. */
ACLNN_API size_t openaclnnOpCount(void);
/** Op `index`, or NULL when index >= openaclnnOpCount(). The descriptor lives as long as the
 * library stays loaded. */
ACLNN_API const openaclnnOpDescriptor* openaclnnGetOp(size_t index);
/** The op whose API name is `api`, or NULL (also for a NULL `api`). */
ACLNN_API const openaclnnOpDescriptor* openaclnnFindOp(const char* api);

/** The SIMD target the active backend's kernels dispatch to: on the CPU backend the Highway
 * target chosen for this machine (e.g. "AVX2"), or "scalar"; "-" on a backend without one (CUDA)
 * or without a device. What `openaclnn info` and OPENACLNN_VERBOSE report. */
ACLNN_API const char* openaclnnKernelSimdTarget(void);

/** The host threads the active backend's kernels compute with: on the CPU backend
 * OPENACLNN_NUM_THREADS, else the CPUs available to the process (README, environment
 * variables); 0 on a backend without host threads of its own (CUDA) or without a device. */
ACLNN_API int openaclnnKernelThreads(void);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_OP_TABLE_H_
