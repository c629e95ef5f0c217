/* Message passing with liburcu's barriers (Debian's liburcu-dev, <urcu/arch.h>, as shipped for
 * each target: x86 `mfence`-class or compiler barriers, Power `lwsync`, ARMv7 `dmb ish`, AArch64
 * `__sync_synchronize`): data, cmm_smp_wmb(), flag; flag, cmm_smp_rmb(), data.
 * NO_WMB drops the writer's barrier: the two stores may become visible out of order on pso and
 * weaker. NO_RMB drops the reader's: the two loads may be satisfied out of order on rmo, Power
 * and ARM (PSO keeps loads in order).
 * pso and rmo (sparc64): liburcu's membar_safe() puts each `membar` in the delay slot of a
 * `ba,pt` branch to the next label, which is that membar: cmm_smp_wmb() is `membar
 * #StoreStore`, cmm_smp_rmb() `membar #LoadLoad`, each ordering exactly its pair.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DNO_WMB): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DNO_RMB): sc=safe tso=safe pso=safe rmo=fail power=fail arm=fail aarch64=fail */
#include <pthread.h>
#include <assert.h>
#include <urcu/arch.h>
#include <urcu/system.h>

int data;
int flag;

void *writer(void *arg) {
  CMM_STORE_SHARED(data, 42);
#ifndef NO_WMB
  cmm_smp_wmb();
#endif
  CMM_STORE_SHARED(flag, 1);
  return arg;
}

void *reader(void *arg) {
  if (CMM_LOAD_SHARED(flag)) {
#ifndef NO_RMB
    cmm_smp_rmb();
#endif
    assert(CMM_LOAD_SHARED(data) == 42);
  }
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
