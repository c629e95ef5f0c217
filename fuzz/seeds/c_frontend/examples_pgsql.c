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
/* Worker synchronisation in PostgreSQL (ESOP 2013, §5, Listing 1): two workers pass a
 * token around a ring. A worker waits for its latch, then expects to hold the token
 * (the assertion); it takes the token, passes it on (flag) and sets the next latch.
 * On Power the write of the flag may reach the other worker after the latch (mp), so the
 * woken worker finds no token. The wait, bounded in time in PostgreSQL, gives up here
 * after one look. Try: weakc verify --mm power examples/pgsql.c
 *                      weakc fences --mm power --property examples/pgsql.c */
#define WORKERS 2
#define ROUNDS 1
volatile _Bool latch[WORKERS];
volatile _Bool flag[WORKERS];

void *worker(void *arg)
{ int i = (int)(long)arg;
  if (!latch[i]) return 0;  /* while (!latch[i]); */
  for (int r = 0; r < ROUNDS; r++)
  { assert(!latch[i] || flag[i]);
    latch[i] = 0;
    if (flag[i])
    { flag[i] = 0;
      flag[(i+1)%WORKERS] = 1;
      latch[(i+1)%WORKERS] = 1; }
    if (!latch[i]) return 0; } /* while (!latch[i]); */
  return 0; }

int main(void)
{ pthread_t t0, t1;
  flag[0] = 1;   /* worker 0 holds the token */
  latch[0] = 1;
  pthread_create(&t0, 0, worker, (void *)0);
  pthread_create(&t1, 0, worker, (void *)1);
  return 0; }
