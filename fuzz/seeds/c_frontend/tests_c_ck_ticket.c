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
/* Concurrency Kit's ticket spinlock (ck_spinlock.h, Debian's libck-dev) protecting a plain
 * counter: two threads increment it under the lock, main checks both increments.
 * WEAKEN: unlock through a copy of ck_spinlock_ticket_unlock without its
 * ck_pr_fence_unlock(), so the counter's store may reach memory after the next owner's
 * read of it (pso and weaker).
 * On x86 ck packs both tickets in one word and increments its upper half through a
 * `uint16_t *`: the built-in engine does not model reading memory through a type of other
 * widths, so sc and tso are UNKNOWN with that reason (there the unlock has no fence to drop).
 * The builtins port elsewhere uses two words.
 * expect: sc=unknown tso=unknown pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DWEAKEN): sc=unknown tso=unknown pso=fail rmo=fail power=fail arm=fail aarch64=fail */

static ck_spinlock_ticket_t lock = CK_SPINLOCK_TICKET_INITIALIZER;
static int counter;

#if defined(WEAKEN) && !(defined(CK_MD_TSO) && defined(__x86_64__))
/* (on x86 ck_pr_fence_unlock() is empty: the shipped unlock is the weakened one) */
static void unlock_weak(ck_spinlock_ticket_t *t) {
  unsigned int update = ck_pr_load_uint(&t->position);
  ck_pr_store_uint(&t->position, update + 1);
}
#define UNLOCK(l) unlock_weak(l)
#else
#define UNLOCK(l) ck_spinlock_ticket_unlock(l)
#endif

void *worker(void *arg) {
  ck_spinlock_ticket_lock(&lock);
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
