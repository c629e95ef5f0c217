#include <pthread.h>
#include <stdint.h>
#include <assert.h>
#include "arch_select.h"

int arch = ARCH_ID;

int main(void) {
  arch_fence();
  /* EXPECTED_ARCH is given with -D by the test. */
  assert(arch == EXPECTED_ARCH);
  return 0;
}
