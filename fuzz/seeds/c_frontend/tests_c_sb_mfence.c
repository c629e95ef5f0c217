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
/* Store buffering with mfence between the write and the read: safe on x86. */
int x = 0, y = 0;
int r0 = 0, r1 = 0;
void *P0(void *arg) { x = 1; asm volatile("mfence" ::: "memory"); r0 = y; return 0; }
void *P1(void *arg) { y = 1; asm volatile("mfence" ::: "memory"); r1 = x; return 0; }
int main(void) {
  __CPROVER_ASYNC_0: P0(0);
  __CPROVER_ASYNC_1: P1(0);
  return 0;
}
