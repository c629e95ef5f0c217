/* An operation whose loop has no bound: `weakc check` cannot compute an observation set. */
static int counter;

void init(void) { counter = 0; }

int spin(void)
{
    for (int i = 0; ; i++)
        counter += i;
    return counter;
}
