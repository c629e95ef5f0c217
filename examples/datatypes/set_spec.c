/* A sequential reference implementation of an integer set, for
 * `weakc check --spec set_spec.c` with lazylist.c or harris.c (CheckFence, PLDI 2007, §2.2:
 * the observation set may come from a small reference implementation instead of the
 * implementation under test). Needed where the implementation is wrong even serially, as
 * lazylist.c with -DINIT_BUG: its own serial executions then produce wrong observations,
 * and an observation set mined from it would contain them.
 *
 * add(key) / remove(key) return 1 if the set changed, else 0; contains(key) 1 or 0. Keys
 * 0 to KEYS-1 only (CheckFence's set tests use 0 and 1). No loops: the inclusion check
 * unrolls at least as far as the observation set needed.
 */
#define KEYS 8

static int in[KEYS];

void init(void)
{
}

int contains(int key)
{
    return in[key];
}

int add(int key)
{
    if (in[key])
        return 0;
    in[key] = 1;
    return 1;
}

int remove(int key)
{
    if (!in[key])
        return 0;
    in[key] = 0;
    return 1;
}
