/* Claims to be a queue, is a stack: under `--spec queue-spec.c` a test that enqueues two
 * values then dequeues one is not linearizable even on sc. */
static int items[4];
static int count;

void init(void) { count = 0; }

void enqueue(int value) { items[count++ & 3] = value; }

int dequeue(void) { return count == 0 ? -1 : items[--count & 3]; }
