"""numpy_iter.py - an unmodified mpi4py + NumPy program for the snapshot
tests and bench/recovery.sh: per iteration, local work with NumPy (a matrix
product, which Debian's OpenBLAS runs on its thread pool) and one in-place
Allreduce (SUM) of integer-valued doubles, exact in any reduction order.

    numpy_iter.py [--iters N] [--count C] [--work-n M] [--work-reps K]
                  [--sleep-us U] [--hold R]

--count   doubles per allreduce (default 524288: 4 MiB)
--work-n  size of the M x M matrix product per repetition (default 160)
--work-reps  products per iteration (default 4)
--sleep-us  microseconds of sleep per iteration besides (default 0)
--hold    rank R runs a Python threading thread of its own, blocked until the
          end: a thread nobody can stop for a fork (default -1: none)

Each rank prints one line at the end:
    rank R iters N state <hex64> sum <float.hex of element 0>
"""
import sys
import threading
import time

import numpy
from mpi4py import MPI


def opt(name, dflt):
    args = sys.argv[1:]
    for i in range(len(args) - 1):
        if args[i] == name:
            return int(args[i + 1])
    return dflt


def main():
    iters, count = opt("--iters", 200), opt("--count", 524288)
    n, reps = opt("--work-n", 160), opt("--work-reps", 4)
    nap = opt("--sleep-us", 0) / 1e6
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    done = threading.Event()
    holder = None
    if opt("--hold", -1) == rank:
        holder = threading.Thread(target=done.wait, name="holder")
        holder.start()
    # integers mod 7 keep every product entry an integer below 2**53: exact
    a = (numpy.arange(n * n, dtype=numpy.float64).reshape(n, n) % 7) + rank
    v = numpy.zeros(count, dtype=numpy.float64)
    state = 0x9E3779B97F4A7C15
    mask = (1 << 64) - 1
    shifts = numpy.arange(count, dtype=numpy.uint64) % numpy.uint64(48)
    for i in range(iters):
        acc = 0
        for _ in range(reps):
            acc += int((a @ a.T).trace()) % 4093
        base = (numpy.uint64(state) >> shifts) % numpy.uint64(1024)
        v[:] = base.astype(numpy.float64) + float(rank + acc % 512)
        if nap > 0:
            time.sleep(nap)
        comm.Allreduce(MPI.IN_PLACE, v, op=MPI.SUM)
        h = int(numpy.bitwise_xor.reduce(v.astype(numpy.uint64) * numpy.uint64(0x100000001B3)))
        state = ((state ^ h) * 0x100000001B3) & mask
    # One write of the whole line: print() writes the text and its newline
    # apart when stdout is unbuffered, and two ranks' lines then interleave.
    sys.stdout.write("rank %d iters %d state %016x sum %s\n" % (rank, iters, state, float(v[0]).hex()))
    sys.stdout.flush()
    done.set()
    if holder is not None:
        holder.join()


main()
