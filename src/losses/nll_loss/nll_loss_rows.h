// The op table rows the NLL ops share: the 1-D/2-D op and its 2d twin take the same operands in
// the same order, and all four the ignoreIndex attribute.
#pragma once

#include "ops/op_table.h"

namespace openaclnn {

inline constexpr openaclnnOperand kNllForwardOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weight", OPENACLNN_ROLE_WEIGHT),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_TARGET, {.reduced = OPENACLNN_REDUCED_TO_ONE}),
    Output("totalWeightOut", OPENACLNN_ROLE_TOTAL_WEIGHT_OUT, OPENACLNN_ROLE_TARGET,
           {.reduced = OPENACLNN_REDUCED_TO_ONE}),
};

inline constexpr openaclnnOperand kNllBackwardOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weight", OPENACLNN_ROLE_WEIGHT),
    Input("totalWeight", OPENACLNN_ROLE_TOTAL_WEIGHT),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF),
};

// torch's default ignore_index.
inline constexpr openaclnnAttribute kNllAttributes[] = {
    Attribute("ignoreIndex", OPENACLNN_ATTRIBUTE_INT64, -100.0),
};

}  // namespace openaclnn
