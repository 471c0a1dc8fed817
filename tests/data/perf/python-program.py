"""A small CPU-bound Python program for a perf fixture (interpreter frames, -X perf trampolines)."""
def leaf(n):
    s = 0
    for i in range(n):
        s += i ^ (s >> 3)
    return s
def cheap(): return leaf(20000)
def costly(): return leaf(60000)
for _ in range(40): cheap(); costly()
