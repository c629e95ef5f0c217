/* A counter with commit points (`weakc check --commit-points`): `add` takes effect at its
 * increment, `get` at its load. -DONLY_WHEN_SEEN marks get's commit point only when it saw
 * an increment, -DTOO_EARLY before the load: both leave a call without a commit point of
 * its own. */
void __weakc_commit(void);

static int n;

void init(void) { n = 0; }

void add(void)
{
    __atomic_fetch_add(&n, 1, __ATOMIC_SEQ_CST);
    __weakc_commit();
}

int get(void)
{
#ifdef TOO_EARLY
    __weakc_commit();
#endif
    int v = __atomic_load_n(&n, __ATOMIC_SEQ_CST);
#ifdef ONLY_WHEN_SEEN
    if (v > 0)
        __weakc_commit();
#elif !defined(TOO_EARLY)
    __weakc_commit();
#endif
    return v;
}
