/* Message passing: the writer publishes data then a flag; the reader sees the flag, then data. */
#include <pthread.h>
#include <assert.h>
int data = 0, flag = 0;
int r0 = 0, r1 = 0;
void *writer(void *arg) { data = 1; flag = 1; return 0; }
void *reader(void *arg) { r0 = flag; r1 = data; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 1 && r1 == 0));
  return 0;
}
