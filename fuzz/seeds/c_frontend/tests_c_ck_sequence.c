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
/* Concurrency Kit's sequence lock (ck_sequence.h, Debian's libck-dev): a writer updates two
 * fields inside a write section; a reader that reads them inside a read section that needs
 * no retry must see both from the same write.
 * WEAKEN: the reader's retry check through a copy of ck_sequence_read_retry without its
 * ck_pr_fence_load(), so the reads of the fields may be satisfied after the second read of
 * the version (rmo and weaker).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DWEAKEN): sc=safe tso=safe pso=safe rmo=fail power=fail arm=fail aarch64=fail */

static ck_sequence_t seq = CK_SEQUENCE_INITIALIZER;
static int a, b;

#ifdef WEAKEN
static bool retry_weak(ck_sequence_t *sq, unsigned int version) {
  return ck_pr_load_uint(&sq->sequence) != version;
}
#define RETRY(s, v) retry_weak(s, v)
#else
#define RETRY(s, v) ck_sequence_read_retry(s, v)
#endif

void *writer(void *arg) {
  ck_sequence_write_begin(&seq);
  ck_pr_store_int(&a, 1);
  ck_pr_store_int(&b, 1);
  ck_sequence_write_end(&seq);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  unsigned int v = ck_sequence_read_begin(&seq);
  int x = ck_pr_load_int(&a);
  int y = ck_pr_load_int(&b);
  if (!RETRY(&seq, v))
    assert(x == y);
  pthread_join(t, 0);
  return 0;
}
