/* A sequential FIFO queue: the reference implementation (`weakc check --spec`) the queue
 * implementations' observations are compared against (CheckFence's "refset", PLDI 2007
 * §4.3). Each operation runs atomically in the serial executions, so it needs no
 * synchronisation at all. Holds up to 8 elements, more than any test here enqueues. */
static int items[8];
static int first, count;

void init(void)
{
    first = 0;
    count = 0;
}

void enqueue(int value)
{
    items[(first + count) % 8] = value;
    count++;
}

/* The value at the head, or -1 when the queue is empty. */
int dequeue(void)
{
    if (count == 0)
        return -1;
    int value = items[first];
    first = (first + 1) % 8;
    count--;
    return value;
}
