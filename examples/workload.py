"""A small program to profile: parsing, a JSON round trip, a worker thread and some waiting.

    flamespace record -o workload.folded -- examples/workload.py
"""

import json
import threading
import time


def parse_records(count):
    return [dict(field.split("=") for field in f"id={i},name=item{i},kind=k{i % 7}".split(",")) for i in range(count)]


def encode(records):
    return json.loads(json.dumps(records))


def wait_for_io():
    time.sleep(0.3)


def background_worker():
    total = 0
    for i in range(600_000):
        total += i % 7
    return total


def main():
    worker = threading.Thread(target=background_worker, name="worker")
    worker.start()
    records = parse_records(60_000)
    encode(records)
    wait_for_io()
    worker.join()


if __name__ == "__main__":
    main()
