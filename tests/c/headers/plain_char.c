/* Plain `char` is signed or unsigned as the target's ABI says (x86-64 and SPARC: signed;
 * Power ELFv2, ARM and AArch64: unsigned), or as -fsigned-char / -funsigned-char say.
 * Every assertion holds in GCC's program exactly where CHAR_IS_UNSIGNED is 1 (checked with
 * gcc -fsigned-char and -funsigned-char on x86-64). */
#include <assert.h>
#include <limits.h>

char global = 200;

int main(void) {
    char c = 200;
    const char *text = "\xff";
    signed char s = 200;
    unsigned char u = 200;
#ifdef __CHAR_UNSIGNED__
    int macro = 1;
#else
    int macro = 0;
#endif
    assert(macro == CHAR_IS_UNSIGNED);
    assert(s < 0 && u == 200);
#if CHAR_IS_UNSIGNED
    assert(c > 0);
    assert(text[0] == 255);
    assert('\xff' == 255);
    assert(global == 200);
    assert(CHAR_MIN == 0 && CHAR_MAX == 255);
#else
    assert(c < 0);
    assert(text[0] == -1);
    assert('\xff' == -1);
    assert(global == -56);
    assert(CHAR_MIN == -128 && CHAR_MAX == 127);
#endif
    return 0;
}
