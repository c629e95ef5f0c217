/* S+dmb+fri-rfi-data's reader (tests/c/s_fri_rfi.c): its delayed read of y may be
 * satisfied after its later write y = 2 was buffered and forwarded to r2, but it never
 * takes that write (CoRW). */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0;
int r0 = 0, r2 = 0;
void *P0(void *arg) { x = 2; asm("dmb"); y = 1; return 0; }
void *P1(void *arg) { r0 = y; y = 2; r2 = y; x = (r2 ^ r2) + 1; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, P0, 0);
  pthread_create(&b, 0, P1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(r0 != 2);
  return 0;
}
