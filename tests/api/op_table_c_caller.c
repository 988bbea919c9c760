/* The op table read from C, as a foreign-function interface reads it: the header must be C. */
#include <string.h>

#include "openaclnn/op_table.h"

/* The number of outputs of op `api` as C sees it, or -1 when the library has no such op. */
int OutputsSeenFromC(const char* api) {
  const openaclnnOpDescriptor* op = openaclnnFindOp(api);
  if (op == NULL) return -1;
  int outputs = 0;
  for (size_t i = 0; i < op->operandCount; ++i) outputs += op->operands[i].output != 0;
  return outputs;
}
