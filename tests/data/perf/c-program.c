/* A small CPU-bound program for a perf fixture: two call paths of different cost. */
static volatile long sink;
__attribute__((noinline)) static long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ (s >> 3); return s; }
__attribute__((noinline)) static long cheap(void) { return leaf(200000); }
__attribute__((noinline)) static long costly(void) { return leaf(600000); }
int main(void) { for (int i = 0; i < 300; i++) sink += cheap() + costly(); return 0; }
