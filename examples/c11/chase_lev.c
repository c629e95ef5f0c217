/* The Chase-Lev work-stealing deque in C11 as Le, Pop, Cohen and Zappa Nardelli give it
 * ("Correct and efficient work-stealing for weak memory models", PPoPP 2013, Fig. 1), with
 * a fixed array (no resize) and signed indices (with the paper's size_t, a take from an
 * empty deque at bottom 0 wraps): the owner pushes 1 and 2, then takes once; the thief
 * steals twice. No value may be obtained twice. With -D TAKE_FENCE_ACQ_REL the seq_cst
 * fence of take is weakened to acq_rel, with -D NO_TAKE_FENCE it is removed: the thief
 * steals 1 (top 0 -> 1) and starts a second steal; the owner lowers bottom to 1 but reads
 * the old top 0, believes two elements are left and takes 2 without a CAS, while the thief
 * reads the old bottom 2 and steals 2 as well (store buffering: the owner's store of bottom
 * and load of top against the thief's CAS of top and load of bottom).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-D TAKE_FENCE_ACQ_REL): sc=safe tso=fail pso=safe rmo=safe power=fail arm=safe aarch64=safe
 * expect(-D NO_TAKE_FENCE): sc=safe tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * why: the seq_cst fence of take orders the owner's store of bottom before its load of top
 *      (mfence, hwsync, dmb ish, a full membar on SPARC), the thief's seq_cst CAS of top
 *      (a locked instruction on x86) and the seq_cst fence of its next steal order the CAS
 *      before its load of bottom: the two sides cannot both miss the other's store (store
 *      buffering), so the owner never takes the last element without the CAS while the
 *      thief steals it. The release fence of push (lwsync, dmb ish, a membar on SPARC) and
 *      the acquire load of bottom in steal pass the element itself. An acq_rel fence is
 *      nothing on x86 (the owner's store of bottom waits in the store buffer) and lwsync on
 *      Power (which does not order a store before a later load), but a full membar on SPARC
 *      PSO and RMO (GCC) and dmb ish on ARMv7 and AArch64, which do. Without a fence the
 *      owner's relaxed store and load (mov, st/ld, str/ldr) are reordered on every
 *      architecture but SC.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define SIZE 4
#define EMPTY (-1)
#define ABORT (-2)
#if defined(NO_TAKE_FENCE)
#define TAKE_FENCE()
#elif defined(TAKE_FENCE_ACQ_REL)
#define TAKE_FENCE() atomic_thread_fence(memory_order_acq_rel)
#else
#define TAKE_FENCE() atomic_thread_fence(memory_order_seq_cst)
#endif

atomic_long top, bottom;
atomic_int buffer[SIZE];
int r_take, r_steal1, r_steal2;

void push(int x) {
  long b = atomic_load_explicit(&bottom, memory_order_relaxed);
  long t = atomic_load_explicit(&top, memory_order_acquire);
  if (b - t > SIZE - 1)
    return; /* full: the published version resizes */
  atomic_store_explicit(&buffer[b % SIZE], x, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
}

int take(void) {
  long b = atomic_load_explicit(&bottom, memory_order_relaxed) - 1;
  atomic_store_explicit(&bottom, b, memory_order_relaxed);
  TAKE_FENCE();
  long t = atomic_load_explicit(&top, memory_order_relaxed);
  int x;
  if (t <= b) {
    x = atomic_load_explicit(&buffer[b % SIZE], memory_order_relaxed);
    if (t == b) {
      if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed))
        x = EMPTY;
      atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
    }
  } else {
    x = EMPTY;
    atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
  }
  return x;
}

int steal(void) {
  long t = atomic_load_explicit(&top, memory_order_acquire);
  atomic_thread_fence(memory_order_seq_cst);
  long b = atomic_load_explicit(&bottom, memory_order_acquire);
  int x = EMPTY;
  if (t < b) {
    x = atomic_load_explicit(&buffer[t % SIZE], memory_order_relaxed);
    if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed))
      return ABORT;
  }
  return x;
}

void *owner(void *arg) {
  push(1);
  push(2);
  r_take = take();
  return 0;
}

void *thief(void *arg) {
  r_steal1 = steal();
  r_steal2 = steal();
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, owner, 0);
  pthread_create(&b, 0, thief, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  int ones = (r_take == 1) + (r_steal1 == 1) + (r_steal2 == 1);
  int twos = (r_take == 2) + (r_steal1 == 2) + (r_steal2 == 2);
  assert(ones <= 1 && twos <= 1);
  return 0;
}
