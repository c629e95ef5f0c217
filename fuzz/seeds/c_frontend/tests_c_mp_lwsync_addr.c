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
/* MP with lwsync on the writer and an address dependency on the reader: safe on Power. */
int data = 0, flag = 0;
int r0 = 0, r1 = 0;
void *writer(void *arg) { data = 1; __asm__ __volatile__("lwsync" ::: "memory"); flag = 1; return 0; }
void *reader(void *arg) { int r = flag; r0 = r; int *p = &data + (r ^ r); r1 = *p; return 0; }
int main(void) {
  __CPROVER_ASYNC_0: writer(0);
  __CPROVER_ASYNC_1: reader(0);
  return 0;
}
