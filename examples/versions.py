"""A program in two versions, for `flamespace collect` and `flamespace compare`.

With VERSION=2 tokenising takes 40 ms longer and a cache is warmed at start; the rest is
the same program doing the same work. A run lasts about 0.3 s: at 500 Hz, 150 samples, enough
for trustworthy shares (collect warns below 100):

    flamespace collect -n 10 --rate 500 -o ab/ --baseline-cmd examples/versions.py \\
        --candidate-cmd examples/versions.py --candidate-env VERSION=2
    flamespace compare --baseline ab/baseline --candidate ab/candidate
"""

import os
import time

V2 = os.environ.get("VERSION") == "2"


def load_config():
    time.sleep(0.05)


def warm_cache():
    time.sleep(0.06)


def tokenize():
    time.sleep(0.14 if V2 else 0.10)  # one line, so both versions have the same stack


def render():
    time.sleep(0.15)


def main():
    load_config()
    if V2:
        warm_cache()
    tokenize()
    render()


if __name__ == "__main__":
    main()
