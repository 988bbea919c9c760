// The main of every op test program: one device and stream for all its tests.
#include "op_tester.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new openaclnn::testing::AclEnvironment);
  return RUN_ALL_TESTS();
}
