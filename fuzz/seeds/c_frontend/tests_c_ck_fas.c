typedef unsigned long pthread_t;
typedef struct { int lock; } pthread_mutex_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);
void assert(int c);
void __VERIFIER_assume(int c);
int __VERIFIER_nondet_int(void);
double __VERIFIER_nondet_double(void);
/* Concurrency Kit's fetch-and-store spinlock (ck_spinlock.h, Debian's libck-dev) protecting a
 * plain counter: two threads increment it under the lock, main checks both increments.
 * WEAKEN: unlock through a copy of ck_spinlock_fas_unlock without its ck_pr_fence_unlock(),
 * so the counter's store may reach memory after the lock's release (pso and weaker).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DWEAKEN): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail */

static ck_spinlock_fas_t lock = CK_SPINLOCK_FAS_INITIALIZER;
static int counter;

#ifdef WEAKEN
static void unlock_weak(ck_spinlock_fas_t *l) {
  ck_pr_store_uint(&l->value, false);
}
#define UNLOCK(l) unlock_weak(l)
#else
#define UNLOCK(l) ck_spinlock_fas_unlock(l)
#endif

void *worker(void *arg) {
  ck_spinlock_fas_lock(&lock);
  counter = counter + 1;
  UNLOCK(&lock);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, worker, 0);
  pthread_create(&t2, 0, worker, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(counter == 2);
  return 0;
}
