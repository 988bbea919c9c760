// The op table rows of the cross entropy ops: their operands in API order and the attributes
// after reductionOptional (torch's defaults).
#pragma once

#include "ops/op_table.h"

namespace openaclnn {

inline constexpr openaclnnOperand kCrossEntropyOperands[] = {
    Input("input", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weightOptional", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Output("lossOut", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_TARGET,
           {.reduced = OPENACLNN_REDUCED_TO_ONE}),
    Output("logProbOut", OPENACLNN_ROLE_LOG_PROB_OUT, OPENACLNN_ROLE_SELF),
    Output("zlossOut", OPENACLNN_ROLE_ZLOSS_OUT, OPENACLNN_ROLE_TARGET,
           {.reduced = OPENACLNN_REDUCED_TO_ONE}),
    Output("lseForZlossOut", OPENACLNN_ROLE_LSE_FOR_ZLOSS_OUT, OPENACLNN_ROLE_TARGET),
};

inline constexpr openaclnnOperand kCrossEntropyGradOperands[] = {
    Input("gradLoss", OPENACLNN_ROLE_GRAD_OUTPUT, {.reduced = OPENACLNN_REDUCED_TO_ONE}),
    Input("logProb", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weightOptional", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Input("gradZlossOptional", OPENACLNN_ROLE_GRAD_ZLOSS, {.optional = true}),
    Input("lseForZlossOptional", OPENACLNN_ROLE_LSE_FOR_ZLOSS, {.optional = true}),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF),
};

inline constexpr openaclnnAttribute kCrossEntropyAttributes[] = {
    Attribute("ignoreIndex", OPENACLNN_ATTRIBUTE_INT64, -100.0),
    Attribute("labelSmoothing", OPENACLNN_ATTRIBUTE_DOUBLE, 0.0),
    Attribute("lseSquareScaleForZloss", OPENACLNN_ATTRIBUTE_DOUBLE, 0.0),
    Attribute("returnZloss", OPENACLNN_ATTRIBUTE_BOOL, 0.0),
};
// The gradient's: the forward's but returnZloss.
inline constexpr size_t kCrossEntropyGradAttributeCount = 3;

}  // namespace openaclnn
