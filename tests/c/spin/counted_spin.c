/* Not a spin loop: the waiting thread counts its iterations, so an iteration that goes round
 * again changes a local the code after the loop reads. The assertion fails only when the
 * loop runs at least twice (it needs --unwind 2); taking the loop as a spin loop would miss it. */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int flag;
int spins;

void *waiter(void *arg) {
  int k = 0;
  while (atomic_load(&flag) == 0)
    k++;
  spins = k;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  atomic_store(&flag, 1);
  pthread_join(t, 0);
  assert(spins < 2);
  return 0;
}
