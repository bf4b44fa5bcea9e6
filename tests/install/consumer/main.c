/* Uses the installed runtime's C API: prints its version and ABI version, and the installed cakec and
 * machine folder the CMake package names. */
#include <cake/runtime.h>
#include <stdio.h>

int main(void) {
  printf("runtime %s abi %d\n", cake_runtime_version(), cake_runtime_abi_version());
  printf("cakec %s\nmachines %s\n", CAKEC_PATH, MACHINES_DIR);
  return cake_runtime_abi_version() > 0 ? 0 : 1;
}
