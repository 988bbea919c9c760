// The public op listing (openaclnn/op_table.h): what it says of each op, and that its uniform
// phase 1 is the named API's, checks and bits alike.
#include "openaclnn/op_table.h"

#include <set>
#include <string>
#include <vector>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_kl_div.h"
#include "aclnnop/aclnn_smooth_l1_loss.h"
#include "op_tester.h"

extern "C" int OutputsSeenFromC(const char* api);

namespace openaclnn::testing {
namespace {

constexpr double kOne = 1.0;
constexpr double kPointThree = 0.3;

std::vector<const openaclnnOpDescriptor*> AllOps() {
  std::vector<const openaclnnOpDescriptor*> ops;
  for (size_t i = 0; i < openaclnnOpCount(); ++i) ops.push_back(openaclnnGetOp(i));
  return ops;
}

TEST(OpTable, ListsEveryApiOnceAndFindsItByName) {
  const std::set<std::string> expected = {"aclnnBinaryCrossEntropyWithLogits",
                                          "aclnnBinaryCrossEntropyWithLogitsBackward",
                                          "aclnnBinaryCrossEntropyWithLogitsTargetBackward",
                                          "aclnnBinaryCrossEntropyWithLogitsAndGrad",
                                          "aclnnBinaryCrossEntropy",
                                          "aclnnBinaryCrossEntropyBackward",
                                          "aclnnL1Loss",
                                          "aclnnL1LossBackward",
                                          "aclnnKlDiv",
                                          "aclnnKlDivBackward",
                                          "aclnnKlDivTargetBackward",
                                          "aclnnMseLoss",
                                          "aclnnMseLossOut",
                                          "aclnnMseLossBackward",
                                          "aclnnSmoothL1Loss",
                                          "aclnnSmoothL1LossBackward",
                                          "openaclnnHuberLoss",
                                          "openaclnnHuberLossBackward",
                                          "aclnnSoftMarginLoss",
                                          "aclnnSoftMarginLossBackward",
                                          "aclnnNLLLoss",
                                          "aclnnNLLLoss2d",
                                          "aclnnNLLLossBackward",
                                          "aclnnNLLLoss2dBackward",
                                          "aclnnCrossEntropyLoss",
                                          "aclnnCrossEntropyLossGrad"};
  std::set<std::string> listed;
  for (const openaclnnOpDescriptor* op : AllOps()) {
    ASSERT_NE(op, nullptr);
    listed.insert(op->api);
    EXPECT_EQ(openaclnnFindOp(op->api), op);
  }
  EXPECT_EQ(listed, expected);
  EXPECT_EQ(openaclnnOpCount(), expected.size());
}

TEST(OpTable, UnknownNamesAndIndicesGiveNull) {
  EXPECT_EQ(openaclnnGetOp(openaclnnOpCount()), nullptr);
  EXPECT_EQ(openaclnnFindOp("aclnnBinaryCrossEntropyV2"), nullptr);
  EXPECT_EQ(openaclnnFindOp(nullptr), nullptr);
}

// Inputs, then outputs; each role once; the required ones present; outputs shaped by an input.
TEST(OpTable, OperandsAreInputsThenOutputsWithDistinctRoles) {
  for (const openaclnnOpDescriptor* op : AllOps()) {
    SCOPED_TRACE(op->api);
    std::set<int> roles;
    bool seen_output = false;
    for (size_t i = 0; i < op->operandCount; ++i) {
      const openaclnnOperand& operand = op->operands[i];
      EXPECT_TRUE(roles.insert(operand.role).second) << operand.name;
      EXPECT_FALSE(seen_output && !operand.output) << operand.name << " follows an output";
      seen_output |= operand.output != 0;
      if (operand.output) {
        EXPECT_FALSE(operand.optional) << operand.name;
        EXPECT_TRUE(operand.shapeOf < OPENACLNN_ROLE_OUT ||
                    operand.shapeOf == OPENACLNN_SHAPE_OF_INPUTS)
            << operand.name;
      }
    }
    EXPECT_TRUE(roles.count(OPENACLNN_ROLE_SELF) && roles.count(OPENACLNN_ROLE_OUT));
    EXPECT_TRUE(seen_output);
  }
}

// Each op names its family, and the family's ops agree on the roles they share.
TEST(OpTable, NamesEachOpsFamily) {
  const struct {
    const char* api;
    openaclnnOpFamily family;
    openaclnnOpKind kind;
  } expected[] = {
      {"aclnnBinaryCrossEntropyWithLogits", OPENACLNN_FAMILY_BCE_WITH_LOGITS, OPENACLNN_OP_LOSS},
      {"aclnnBinaryCrossEntropy", OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY, OPENACLNN_OP_LOSS},
      {"aclnnBinaryCrossEntropyBackward", OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY,
       OPENACLNN_OP_GRAD_SELF},
      {"aclnnL1Loss", OPENACLNN_FAMILY_L1_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnL1LossBackward", OPENACLNN_FAMILY_L1_LOSS, OPENACLNN_OP_GRAD_SELF},
      {"aclnnKlDiv", OPENACLNN_FAMILY_KL_DIV, OPENACLNN_OP_LOSS},
      {"aclnnKlDivBackward", OPENACLNN_FAMILY_KL_DIV, OPENACLNN_OP_GRAD_SELF},
      {"aclnnKlDivTargetBackward", OPENACLNN_FAMILY_KL_DIV, OPENACLNN_OP_GRAD_TARGET},
      {"aclnnMseLoss", OPENACLNN_FAMILY_MSE_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnMseLossOut", OPENACLNN_FAMILY_MSE_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnMseLossBackward", OPENACLNN_FAMILY_MSE_LOSS, OPENACLNN_OP_GRAD_SELF},
      {"aclnnSmoothL1Loss", OPENACLNN_FAMILY_SMOOTH_L1_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnSmoothL1LossBackward", OPENACLNN_FAMILY_SMOOTH_L1_LOSS, OPENACLNN_OP_GRAD_SELF},
      {"openaclnnHuberLoss", OPENACLNN_FAMILY_SMOOTH_L1_LOSS, OPENACLNN_OP_LOSS},
      {"openaclnnHuberLossBackward", OPENACLNN_FAMILY_SMOOTH_L1_LOSS, OPENACLNN_OP_GRAD_SELF},
      {"aclnnSoftMarginLoss", OPENACLNN_FAMILY_SOFT_MARGIN_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnSoftMarginLossBackward", OPENACLNN_FAMILY_SOFT_MARGIN_LOSS, OPENACLNN_OP_GRAD_SELF},
      {"aclnnNLLLoss", OPENACLNN_FAMILY_NLL_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnNLLLoss2d", OPENACLNN_FAMILY_NLL_LOSS, OPENACLNN_OP_LOSS},
      {"aclnnNLLLossBackward", OPENACLNN_FAMILY_NLL_LOSS, OPENACLNN_OP_GRAD_SELF},
      {"aclnnNLLLoss2dBackward", OPENACLNN_FAMILY_NLL_LOSS, OPENACLNN_OP_GRAD_SELF}};
  for (const auto& e : expected) {
    const openaclnnOpDescriptor* op = openaclnnFindOp(e.api);
    ASSERT_NE(op, nullptr) << e.api;
    EXPECT_EQ(op->family, e.family) << e.api;
    EXPECT_EQ(op->kind, e.kind) << e.api;
  }
  // CANN's parameter names, which ATK case files use: the forward's weight is "weight".
  const openaclnnOpDescriptor* forward = openaclnnFindOp("aclnnBinaryCrossEntropy");
  ASSERT_EQ(forward->operandCount, 4u);
  EXPECT_STREQ(forward->operands[2].name, "weight");
  EXPECT_EQ(forward->operands[2].role, OPENACLNN_ROLE_WEIGHT);
  EXPECT_TRUE(forward->operands[3].reduced);
  const openaclnnOpDescriptor* backward = openaclnnFindOp("aclnnBinaryCrossEntropyBackward");
  ASSERT_EQ(backward->operandCount, 5u);
  EXPECT_STREQ(backward->operands[3].name, "weightOptional");
  EXPECT_FALSE(backward->operands[4].reduced);
  // The MSE ops' outputs have the broadcast shape of their inputs; MseLossOut's loses its first
  // dimension under a reduction.
  for (const char* api : {"aclnnMseLoss", "aclnnMseLossOut", "aclnnMseLossBackward"}) {
    const openaclnnOpDescriptor* op = openaclnnFindOp(api);
    const openaclnnOperand& out = op->operands[op->operandCount - 1];
    EXPECT_STREQ(out.name, "out") << api;
    EXPECT_EQ(out.shapeOf, OPENACLNN_SHAPE_OF_INPUTS) << api;
  }
  EXPECT_EQ(openaclnnFindOp("aclnnMseLoss")->operands[2].reduced, OPENACLNN_REDUCED_TO_ONE);
  EXPECT_EQ(openaclnnFindOp("aclnnMseLossOut")->operands[2].reduced, OPENACLNN_REDUCED_FIRST_DIM);
  EXPECT_EQ(openaclnnFindOp("aclnnMseLossBackward")->operands[3].reduced, OPENACLNN_REDUCED_NEVER);
  // The soft margin ops' outputs have the broadcast shape of their inputs.
  const openaclnnOpDescriptor* soft_margin = openaclnnFindOp("aclnnSoftMarginLoss");
  ASSERT_EQ(soft_margin->operandCount, 3u);
  EXPECT_EQ(soft_margin->operands[2].shapeOf, OPENACLNN_SHAPE_OF_INPUTS);
  EXPECT_EQ(soft_margin->operands[2].reduced, OPENACLNN_REDUCED_TO_ONE);
  const openaclnnOpDescriptor* soft_margin_backward =
      openaclnnFindOp("aclnnSoftMarginLossBackward");
  ASSERT_EQ(soft_margin_backward->operandCount, 4u);
  EXPECT_STREQ(soft_margin_backward->operands[0].name, "gradOutput");
  EXPECT_EQ(soft_margin_backward->operands[3].shapeOf, OPENACLNN_SHAPE_OF_INPUTS);
  EXPECT_EQ(soft_margin_backward->operands[3].reduced, OPENACLNN_REDUCED_NEVER);
}

// The KL divergence ops: logTarget, a bool attribute defaulting to false (torch's log_target);
// the forward's out has the inputs' broadcast shape, one element when reduced; each gradient's
// output the shape of its input.
TEST(OpTable, ListsTheKlDivergenceOpsAttributeAndShapes) {
  for (const char* api : {"aclnnKlDiv", "aclnnKlDivBackward", "aclnnKlDivTargetBackward"}) {
    const openaclnnOpDescriptor* op = openaclnnFindOp(api);
    ASSERT_NE(op, nullptr) << api;
    ASSERT_EQ(op->attributeCount, 1u) << api;
    EXPECT_STREQ(op->attributes[0].name, "logTarget");
    EXPECT_EQ(op->attributes[0].type, OPENACLNN_ATTRIBUTE_BOOL);
    EXPECT_EQ(op->attributes[0].defaultValue, 0.0);
  }
  const openaclnnOpDescriptor* forward = openaclnnFindOp("aclnnKlDiv");
  ASSERT_EQ(forward->operandCount, 3u);
  EXPECT_EQ(forward->operands[2].shapeOf, OPENACLNN_SHAPE_OF_INPUTS);
  EXPECT_EQ(forward->operands[2].reduced, OPENACLNN_REDUCED_TO_ONE);
  const openaclnnOpDescriptor* target = openaclnnFindOp("aclnnKlDivTargetBackward");
  ASSERT_EQ(target->operandCount, 4u);
  EXPECT_STREQ(target->operands[3].name, "gradTarget");
  EXPECT_EQ(target->operands[3].shapeOf, OPENACLNN_ROLE_TARGET);
  EXPECT_EQ(openaclnnFindOp("aclnnKlDivBackward")->operands[3].shapeOf, OPENACLNN_ROLE_SELF);
}

// The attribute through the listing is the named API's bool: logTarget 1 and true give the same
// bits, the default (a null attribute array) false's.
TEST(OpTable, AttributesReachTheOpAsItsNamedApiTakesThem) {
  const openaclnnOpDescriptor* op = openaclnnFindOp("aclnnKlDiv");
  ASSERT_NE(op, nullptr);
  DeviceTensor self({2, 3}, ACL_FLOAT, {-1, -2, 0.5f, 0, -3, 1}),
      target({2, 3}, ACL_FLOAT, {0.25f, 0.5f, -1, 0, 1, 0.75f}), by_table({2, 3}, ACL_FLOAT, {}),
      by_name({2, 3}, ACL_FLOAT, {});
  const aclTensor* operands[] = {self.get(), target.get(), by_table.get()};
  for (const double* attributes : {static_cast<const double*>(nullptr), &kOne}) {
    const bool log_target = attributes != nullptr;
    ASSERT_EQ(RunPhases(
                  [&](uint64_t* size, aclOpExecutor** executor) {
                    return op->getWorkspaceSize(operands, 0, attributes, size, executor);
                  },
                  op->launch),
              ACLNN_SUCCESS);
    ASSERT_EQ(RunPhases(
                  [&](uint64_t* size, aclOpExecutor** executor) {
                    return aclnnKlDivGetWorkspaceSize(self.get(), target.get(), 0, log_target,
                                                      by_name.get(), size, executor);
                  },
                  aclnnKlDiv),
              ACLNN_SUCCESS);
    EXPECT_EQ(by_table.Bytes(), by_name.Bytes()) << log_target;
  }
}

// The smooth L1 family: its attribute rows (beta a float, delta a double; torch's defaults), and
// outputs of the inputs' broadcast shape.
TEST(OpTable, ListsTheSmoothL1FamilysAttributes) {
  const struct {
    const char* api;
    openaclnnOpKind kind;
    const char* attribute;
    openaclnnAttributeType type;
  } expected[] = {
      {"aclnnSmoothL1Loss", OPENACLNN_OP_LOSS, "beta", OPENACLNN_ATTRIBUTE_FLOAT},
      {"aclnnSmoothL1LossBackward", OPENACLNN_OP_GRAD_SELF, "beta", OPENACLNN_ATTRIBUTE_FLOAT},
      {"openaclnnHuberLoss", OPENACLNN_OP_LOSS, "delta", OPENACLNN_ATTRIBUTE_DOUBLE},
      {"openaclnnHuberLossBackward", OPENACLNN_OP_GRAD_SELF, "delta", OPENACLNN_ATTRIBUTE_DOUBLE}};
  for (const auto& e : expected) {
    const openaclnnOpDescriptor* op = openaclnnFindOp(e.api);
    ASSERT_NE(op, nullptr) << e.api;
    EXPECT_EQ(op->family, OPENACLNN_FAMILY_SMOOTH_L1_LOSS) << e.api;
    EXPECT_EQ(op->kind, e.kind) << e.api;
    ASSERT_EQ(op->attributeCount, 1u) << e.api;
    EXPECT_STREQ(op->attributes[0].name, e.attribute);
    EXPECT_EQ(op->attributes[0].type, e.type);
    EXPECT_EQ(op->attributes[0].defaultValue, 1.0);
    const openaclnnOperand& out = op->operands[op->operandCount - 1];
    EXPECT_EQ(out.shapeOf, OPENACLNN_SHAPE_OF_INPUTS) << e.api;
    EXPECT_EQ(out.reduced,
              e.kind == OPENACLNN_OP_LOSS ? OPENACLNN_REDUCED_TO_ONE : OPENACLNN_REDUCED_NEVER);
  }
}

// The listing's attributes are the named API's: a float beta narrowed as the C API's float,
// NULL taking the default.
TEST(OpTable, AttributesReachTheKernelsAsTheNamedApisDo) {
  const openaclnnOpDescriptor* op = openaclnnFindOp("aclnnSmoothL1Loss");
  ASSERT_NE(op, nullptr);
  DeviceTensor self({4}, ACL_FLOAT, {0.1f, -0.7f, 2, 0}), target({4}, ACL_FLOAT, {}),
      by_table({4}, ACL_FLOAT, {}), by_name({4}, ACL_FLOAT, {});
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclTensor* operands[] = {self.get(), target.get(), by_table.get()};
  for (const double* beta : {static_cast<const double*>(nullptr), &kPointThree}) {
    ASSERT_EQ(op->getWorkspaceSize(operands, 0, beta, &workspace, &executor), ACLNN_SUCCESS);
    ASSERT_EQ(LaunchAndWait(op->launch, workspace, executor), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnSmoothL1LossGetWorkspaceSize(self.get(), target.get(), 0,
                                                beta == nullptr ? 1.0f : 0.3f, by_name.get(),
                                                &workspace, &executor),
              ACLNN_SUCCESS);
    ASSERT_EQ(LaunchAndWait(aclnnSmoothL1Loss, workspace, executor), ACLNN_SUCCESS);
    EXPECT_EQ(by_table.Bytes(), by_name.Bytes());
  }
  const double negative = -0.5;
  EXPECT_EQ(op->getWorkspaceSize(operands, 0, &negative, &workspace, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("aclnnSmoothL1Loss: beta is -0.5"));
}

TEST(OpTable, NullOperandsAreRejectedWithAMessage) {
  for (const openaclnnOpDescriptor* op : AllOps()) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(op->getWorkspaceSize(nullptr, 0, nullptr, &workspace, &executor),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(ErrorMentions(op->api));
  }
}

// The Backward through the listing and through its named function: same message on a bad
// call, same bits on a good one.
TEST(OpTable, UniformPhaseOneIsTheNamedApis) {
  const openaclnnOpDescriptor* op = openaclnnFindOp("aclnnBinaryCrossEntropyWithLogitsBackward");
  ASSERT_NE(op, nullptr);
  const std::vector<float> x = {-3, -0.5f, 0, 0.25f, 2, 7}, t = {0, 0.5f, 1, 1, 0, 0.25f};
  DeviceTensor grad({2, 3}, ACL_FLOAT, {1, 2, 3, 4, 5, 6}), self({2, 3}, ACL_FLOAT, x),
      target({2, 3}, ACL_FLOAT, t), by_table({2, 3}, ACL_FLOAT, {}), by_name({2, 3}, ACL_FLOAT, {});
  const aclTensor* operands[] = {grad.get(), self.get(), target.get(),
                                 nullptr,    nullptr,    by_table.get()};
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(op->getWorkspaceSize(operands, 7, nullptr, &workspace, &executor),
            ACLNN_ERR_PARAM_INVALID);
  // The messages after their time stamps.
  const auto text = [](const std::string& message) { return message.substr(message.find("Acl")); };
  const std::string table_message = text(aclGetRecentErrMsg());
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                grad.get(), self.get(), target.get(), nullptr, nullptr, 7, by_name.get(),
                &workspace, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(table_message, text(aclGetRecentErrMsg()));

  aclrtStream stream = AclEnvironment::stream;
  ASSERT_EQ(op->getWorkspaceSize(operands, 1, nullptr, &workspace, &executor), ACLNN_SUCCESS);
  ASSERT_EQ(op->launch(nullptr, workspace, executor, stream), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                grad.get(), self.get(), target.get(), nullptr, nullptr, 1, by_name.get(),
                &workspace, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, workspace, executor, stream),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(by_table.Bytes(), by_name.Bytes());
  EXPECT_NE(by_table.Read()[0], 0.0f);
}

TEST(OpTable, IsReadableFromC) {
  EXPECT_EQ(OutputsSeenFromC("aclnnBinaryCrossEntropyWithLogits"), 1);
  EXPECT_EQ(OutputsSeenFromC("aclnnBinaryCrossEntropyWithLogitsAndGrad"), 2);
  EXPECT_EQ(OutputsSeenFromC("aclnnBinaryCrossEntropyBackward"), 1);
  EXPECT_EQ(OutputsSeenFromC("aclnnNoSuchOp"), -1);
}

TEST(OpTable, NamesTheSimdTarget) {
  const std::string target = openaclnnKernelSimdTarget();
  EXPECT_FALSE(target.empty());
}

}  // namespace
}  // namespace openaclnn::testing
