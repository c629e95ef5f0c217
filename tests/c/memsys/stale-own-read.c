/* Each processor keeps a copy of every location it has read and serves later reads from
 * it, but its own writes go to memory only: a write then a read of the same location by
 * one processor can return the older value (a 1-nice cycle: W l 1 -po-> R l 0 -fr-> back). */
int mem[LOCATIONS];
int cached[PROCESSORS][LOCATIONS];
int copy[PROCESSORS][LOCATIONS];
int enabled_read(int p, int l) { return 1; }
int read(int p, int l) {
    if (!cached[p][l]) {
        cached[p][l] = 1;
        copy[p][l] = mem[l];
    }
    return copy[p][l];
}
int enabled_write(int p, int l, int d) { return 1; }
void write(int p, int l, int d) { mem[l] = d; }
