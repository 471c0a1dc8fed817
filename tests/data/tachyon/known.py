"""A small program with known phases for Tachyon captures: spin_a ~0.3 s, spin_b ~0.2 s, then sleep in a thread."""
import threading
import time


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def spin_a():
    spin(0.3)


def spin_b():
    spin(0.2)


def sleeper():
    time.sleep(0.2)


def main():
    worker = threading.Thread(target=sleeper, name="sleeper")
    worker.start()
    spin_a()
    spin_b()
    worker.join()


main()
