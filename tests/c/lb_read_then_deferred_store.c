/* LB where P1, between its read of y and its store of x, reads z and then stores the value it
 * read from y into z (the shape of herd's LB+SWP-RsRt-addr+rel: a SWP whose written value
 * depends on an earlier read). The read of z comes before the store that waits with the read
 * of y, so it need not see that store; the store of x depends on neither and may go out
 * before y is read. Allowed on Power, ARM and AArch64 (and PSO/RMO-style R->W relaxation:
 * RMO); forbidden on TSO and PSO. The instrumentation used to complete the read of y at the
 * read of z, before the store of x, and said SUCCESSFUL (found with a herd catalogue test).
 * -DRELAXED_RMW: the store into z is followed by a relaxed fetch_add of z, which the read of
 * y cannot be held past: the instrumentation completes it there and must say so (UNKNOWN),
 * not SUCCESSFUL (found by scripts/fuzz-routes --rich). */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0, z = 0;
int out0 = 0, out1 = 0, t = 0;
void *P0(void *arg) { int a = x; __atomic_store_n(&y, 1, __ATOMIC_RELEASE); out0 = a; return 0; }
void *P1(void *arg) {
  int r = y;
  t = z;
  z = r;
#ifdef RELAXED_RMW
  __atomic_fetch_add(&z, 1, __ATOMIC_RELAXED);
#endif
  x = 1;
  out1 = r;
  return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(out0 == 1 && out1 == 1));
  return 0;
}
