/* Load buffering through a read that may take its thread's earlier store: t1 stores the
 * value it read from y to z, then reads through p and writes x from what it read. With
 * -DSAME, p points to z: the read takes the store, so the write of x depends on the read of
 * y through `data; rfi; data` — ordered on Power, ARM and AArch64 (herd's `(addr | data);
 * rfi`), not on RMO (rmo.cat orders nothing through `rfi`). By default p points to w: the
 * read takes nothing from the store and orders nothing, so the outcome is allowed everywhere
 * but TSO. The instrumentation reads *p early and had the write of x wait for the read of y
 * in both cases (a missed bug by default). tests/dependent_forwarding.rs. */
#include <pthread.h>
#include <assert.h>
int x, y, z, w, sel;
int r, a;
void *t0(void *arg) {
  r = x;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  y = 1;
  return 0;
}
void *t1(void *arg) {
  int *p = sel ? &w : &z;
  int ya = y;
  z = ya;
  int c = *p;
  x = c + 1;
  a = ya;
  return 0;
}
int main(void) {
  pthread_t p0, p1;
#ifndef SAME
  sel = 1;
#endif
  pthread_create(&p0, 0, t0, 0);
  pthread_create(&p1, 0, t1, 0);
  pthread_join(p0, 0);
  pthread_join(p1, 0);
  assert(!(a == 1 && r != 0));
  return 0;
}
