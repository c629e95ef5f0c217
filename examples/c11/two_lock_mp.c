/* Two threads under two different pthread mutexes (as in the Michael-Scott two-lock queue:
 * a node initialised, then linked under one lock, read under the other): glibc's locks are
 * acquire/release, so the initialisation may become visible after the link.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=fail arm=safe aarch64=fail
 * expect(--locks full): power=safe aarch64=safe
 * why: lock = atomic exchange + acquire barrier, unlock = release barrier + atomic exchange
 *      (glibc). x86's are locked instructions (full barriers); SPARC's membars after the
 *      lock and before the unlock are full; ARMv7's dmb after the lock orders the earlier
 *      store before the link. Power's isync after the lock does not order the earlier store,
 *      nor AArch64's ldaxr; the reader's unlock (lwsync, stlxr) orders its reads only on Power.
 */
#include <pthread.h>
#include <assert.h>

pthread_mutex_t tail_lock = PTHREAD_MUTEX_INITIALIZER, head_lock = PTHREAD_MUTEX_INITIALIZER;
int value, linked, r1, r2;

void *producer(void *arg) {
  value = 42;
  pthread_mutex_lock(&tail_lock);
  linked = 1;
  pthread_mutex_unlock(&tail_lock);
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&head_lock);
  r1 = linked;
  pthread_mutex_unlock(&head_lock);
  r2 = value;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, consumer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r1 == 1 && r2 != 42));
  return 0;
}
