#include <stdio.h>
#include <sys/mman.h>
/* Two kinds of work: arithmetic (no memory touched) and touching fresh pages (a page fault
   each), so a CPU-time flame graph coloured by page faults per ms tells them apart. */
static unsigned long compute(unsigned long n) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) x = x * 2862933555777941757UL + 3037000493UL;
    return x;
}
static unsigned long touch(int rounds) {
    unsigned long sum = 0, size = 8ul << 20;
    for (int r = 0; r < rounds; r++) {
        char *block = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        madvise(block, size, MADV_NOHUGEPAGE);
        for (unsigned long i = 0; i < size; i += 4096) block[i] = (char)r;
        sum += block[size / 2];
        munmap(block, size);
    }
    return sum;
}
static unsigned long mixed(int rounds) { return compute(4000000UL * rounds) + touch(rounds); }
int main(void) {
    printf("%lu %lu %lu\n", compute(60000000UL), touch(16), mixed(4));
    return 0;
}
