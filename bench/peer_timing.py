"""The rounds every in-process peer of make bench is timed by
(np_peer.py, torch_peer.py, nib_peer.py): RUNS rounds after one untimed
warm-up, each timed with time.perf_counter(), printed as
"RESULT <median s> <min s> <max s>", the line bench/run.sh's
peer_rounds reads."""
import time


def timed(runs, fn, before=None):
    """fn() RUNS times after a warm-up; before() (untimed) ahead of each."""
    samples = []
    for r in range(runs + 1):
        if before:
            before()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        if r:
            samples.append(t1 - t0)
    samples.sort()
    m = len(samples)
    med = samples[m // 2] if m % 2 else (samples[m // 2 - 1] + samples[m // 2]) / 2
    print("RESULT %.9f %.9f %.9f" % (med, samples[0], samples[-1]))
