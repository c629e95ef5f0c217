/* Concurrency Kit's ck_pr.h (Debian's libck-dev), message passing with its fences.
 * Debian builds ck for x86-64: its ck_md.h defines CK_MD_TSO, so ck_pr_fence_store() and
 * ck_pr_fence_load() are no-ops and only the strict fences order anything elsewhere. */
#ifdef STRICT
#define FENCE_STORE() ck_pr_fence_strict_store()
#define FENCE_LOAD() ck_pr_fence_strict_load()
#else
#define FENCE_STORE() ck_pr_fence_store()
#define FENCE_LOAD() ck_pr_fence_load()
#endif
#include <ck_pr.h>
#include <pthread.h>
#include <assert.h>

int data;
int flag;

void *writer(void *arg) {
  ck_pr_store_int(&data, 1);
  FENCE_STORE();
  ck_pr_store_int(&flag, 1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  if (ck_pr_load_int(&flag) == 1) {
    FENCE_LOAD();
    assert(ck_pr_load_int(&data) == 1);
  }
  pthread_join(t, 0);
  return 0;
}
