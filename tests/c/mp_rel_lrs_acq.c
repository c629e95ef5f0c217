/* MP+rel+addr-lrs-acq (herd's AArch64 catalogue) in C: the reader's store to z has an
 * address that depends on its read of y (a false dependency, `a ^ a`; with -DDATA its value
 * does instead), and its acquire load of z reads that store back. herd's `(addr | data);
 * lrs` (aarch64.cat's `dob`; `(addr | data); rfi` in ppc.cat and arm.cat) puts the read of y
 * before that load, and the acquire load before the read of x: the outcome r2 == 1 &&
 * r0 == 0 is forbidden. With -DNO_ACQUIRE (a plain load of z) it is allowed on every
 * model that relaxes read-read pairs; with -DNO_DEP (a store to z that depends on nothing)
 * on AArch64 and Power, whose acquire load orders only itself before what follows (LDAR;
 * ld; cmp; bc; isync), not on ARMv7 or RMO, where the barrier after it (dmb; membar
 * #LoadLoad|#LoadStore) orders every earlier read too; likewise with -DELSEWHERE, where the
 * store goes to `w` when `a` is 1 and the acquire load then reads memory, not the store.
 * With -DNO_ACQUIRE -DADDR_AFTER the read of x has an address computed from the load of z
 * (`(addr | data); rfi; addr`): forbidden again on AArch64, Power and ARM, allowed on RMO
 * (rmo.cat orders neither `rfi` nor what follows it); with -DELSEWHERE too it is allowed
 * everywhere but TSO: the load of z reads memory, not the store, and orders nothing.
 * tests/dependent_forwarding.rs. */
#include <pthread.h>
#include <assert.h>
int x, y, z, w;
int r0, r2;

void *writer(void *arg) {
  x = 1;
  __atomic_store_n(&y, 1, __ATOMIC_RELEASE);
  return 0;
}

void *reader(void *arg) {
  int a = y;
#if defined(NO_DEP)
  z = 1;
#elif defined(DATA)
  z = a;
#elif defined(ELSEWHERE)
  *(a ? &w : &z) = 1;
#else
  *(&z + (a ^ a)) = 1;
#endif
#ifdef NO_ACQUIRE
  int c = z;
#else
  int c = __atomic_load_n(&z, __ATOMIC_ACQUIRE);
#endif
#ifdef ADDR_AFTER
  int d = *(&x + (c ^ c));
#else
  int d = x;
#endif
  r2 = a;
  r0 = d;
  return 0;
}

int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, writer, 0);
  pthread_create(&t1, 0, reader, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(!(r2 == 1 && r0 == 0));
  return 0;
}
