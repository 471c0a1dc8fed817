"""A small program to trace: a recursive parser, a cache, a worker thread, some waiting.

    flamespace trace -o report.html -- examples/traced.py

About 0.3 s and some 20,000 calls: the report's flame graph, function sections and flame chart
(two threads, each function in the separate intervals it ran) stay small enough to read.
"""

import threading
import time


def tokens(text):
    return text.replace("(", " ( ").replace(")", " ) ").split()


def parse(items, at=0):
    """A nested list from tokens (recursive: the report counts its calls once per stack)."""
    out = []
    while at < len(items):
        token = items[at]
        if token == "(":
            inner, at = parse(items, at + 1)
            out.append(inner)
        elif token == ")":
            return out, at + 1
        else:
            out.append(atom(token))
            at += 1
    return out, at


def atom(token):
    return int(token) if token.isdigit() else token


_cache = {}


def evaluate(tree):
    key = repr(tree)
    if key not in _cache:
        _cache[key] = total(tree)
    return _cache[key]


def total(tree):
    return sum(total(node) if isinstance(node, list) else (node if isinstance(node, int) else 1) for node in tree)


def wait_for_io():
    time.sleep(0.02)


def worker(rounds):
    for k in range(rounds):
        evaluate(parse(tokens(f"(a (b {k} (c 2 3)) (d (e 4) 5 {k}))"))[0])
        wait_for_io()


def main():
    thread = threading.Thread(target=worker, args=(4,), name="worker")
    thread.start()
    for k in range(6):
        text = " ".join(f"(x{i} ({i} {k} (y {i})) (z {k}))" for i in range(60))
        evaluate(parse(tokens(text))[0])
        wait_for_io()
    thread.join()


if __name__ == "__main__":
    main()
