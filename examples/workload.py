"""A small program to profile: parsing, a JSON round trip, a worker thread and some waiting.

    flamespace record --rate 200 -o workload.folded -- examples/workload.py

It runs about 1 s. The worker thread holds the GIL for up to 5 ms at a time (Python's switch
interval), so the sampler cannot be on time above 200 Hz while it runs.
"""

import json
import threading
import time


def parse_records(count):
    return [dict(field.split("=") for field in f"id={i},name=item{i},kind=k{i % 7}".split(",")) for i in range(count)]


def encode(records, batch=2_000):
    # In batches: json's C code holds the GIL for a whole call, and a sampler waits for the GIL
    return [json.loads(json.dumps(records[i : i + batch])) for i in range(0, len(records), batch)]


def wait_for_io():
    time.sleep(0.5)


def background_worker():
    total = 0
    for i in range(4_000_000):
        total += i % 7
    return total


def main():
    worker = threading.Thread(target=background_worker, name="worker")
    worker.start()
    records = parse_records(250_000)
    encode(records)
    wait_for_io()
    worker.join()


if __name__ == "__main__":
    main()
