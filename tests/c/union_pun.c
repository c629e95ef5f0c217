/* Reading a union's int member after writing its short member (Dat3M's mixed-local1.c,
 * little-endian): the int is 0x10000, so the assertion holds; with -D WRONG it is violated.
 * weakc's engine does not model bytes: either verdict would be a guess, so it says UNKNOWN. */
#include <assert.h>
union { int as_int; short as_short; } x;
int main(void) {
  x.as_int = 0x1e240;
  x.as_short = 0;
#ifdef WRONG
  assert(x.as_int != 0x10000);
#else
  assert(x.as_int == 0x10000);
#endif
  return 0;
}
