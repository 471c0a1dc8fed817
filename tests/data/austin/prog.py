import time

def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def middle(n):
    return leaf(n) + leaf(n // 2)

class Worker:
    def run(self):
        t = time.time()
        while time.time() - t < 0.15:
            middle(20000)
            time.sleep(0.001)

def main():
    Worker().run()

if __name__ == "__main__":
    main()
