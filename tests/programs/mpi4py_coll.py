"""mpi4py_coll.py - an unmodified mpi4py program using the collectives encore serves.

Buffer collectives (Allreduce on array('d') and array('i'), also in place,
Bcast, Allgather, Reduce, Barrier; numpy arrays too when the interpreter has
numpy) and the pickled lowercase ones (bcast of a dict, allreduce of ints and
of tuples with op=MPI.MAX, allgather of strings, gather of dicts, scatter of
tuples, reduce of ints and lists), then pickled gather / reduce and a buffer
Iallreduce on a duplicate of the world.  Every rank writes
deterministic result lines, to stdout or, with an argument DIR, to
DIR/rank.<r>, so runs under two launchers can be compared exactly.  Values are
small integers, so every floating sum is exact in any reduction order.
"""
import sys
from array import array

from mpi4py import MPI

try:
    import numpy
except ImportError:
    numpy = None


def lines_for(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    out = ["size %d rank %d" % (size, rank)]

    n = 1000
    sd = array("d", [float((rank * 7 + i) % 13 - 6) for i in range(n)])
    rd = array("d", [0.0] * n)
    comm.Allreduce(sd, rd, op=MPI.SUM)
    out.append("Allreduce d SUM %r" % (sum(x * (i % 7 + 1) for i, x in enumerate(rd)), ))
    out.append("Allreduce d SUM head %r" % (list(rd[:5]), ))

    si = array("i", [(rank + 1) * (i % 17 - 8) for i in range(n)])
    ri = array("i", [0] * n)
    comm.Allreduce(si, ri, op=MPI.MAX)
    out.append("Allreduce i MAX %r" % (list(ri[:8]), ))
    comm.Allreduce(si, ri, op=MPI.MIN)
    out.append("Allreduce i MIN %r" % (list(ri[:8]), ))

    inplace = array("i", [rank * 3 + i for i in range(10)])
    comm.Allreduce(MPI.IN_PLACE, inplace, op=MPI.SUM)
    out.append("Allreduce IN_PLACE i SUM %r" % (list(inplace), ))

    root = size - 1
    b = array("d", [float(i) * 0.5 for i in range(64)]) if rank == root \
        else array("d", [0.0] * 64)
    comm.Bcast(b, root=root)
    out.append("Bcast d root=%d %r" % (root, sum(b)))

    g = array("i", [0] * (2 * size))
    comm.Allgather(array("i", [rank, rank * rank]), g)
    out.append("Allgather i %r" % (list(g), ))

    red = array("d", [0.0] * 4)
    comm.Reduce(array("d", [float(rank), 1.0, -float(rank), 2.0]), red,
                op=MPI.SUM, root=0)
    out.append("Reduce d SUM root=0 %r" % (list(red) if rank == 0 else "-", ))

    comm.Barrier()
    out.append("Barrier ok")

    if numpy is not None:
        a = numpy.arange(100, dtype=numpy.float64) + rank
        r = numpy.empty_like(a)
        comm.Allreduce(a, r, op=MPI.SUM)
        out.append("numpy Allreduce f64 SUM %r" % (float(r.sum()), ))
        v = numpy.zeros(10, dtype=numpy.int64)
        if rank == 0:
            v[:] = numpy.arange(10) * 11
        comm.Bcast(v, root=0)
        out.append("numpy Bcast i64 %r" % (v.tolist(), ))

    cfg = comm.bcast({"lr": 0.125, "layers": [3, 5, 8], "name": "encore"}
                     if rank == 0 else None, root=0)
    out.append("bcast dict %r" % (sorted(cfg.items()), ))
    out.append("allreduce int SUM %r" % (comm.allreduce(rank * 10 + 1), ))
    out.append("allreduce int MAX %r" % (comm.allreduce(rank * 37 % 11, op=MPI.MAX), ))
    out.append("allreduce tuple MAX %r" % (comm.allreduce((rank % 3, -rank, "r%d" % rank),
                                                          op=MPI.MAX), ))
    out.append("allgather str %r" % (comm.allgather("rank-%d" % rank), ))
    root = size // 2
    out.append("gather obj %r" % (comm.gather({"r": rank, "sq": [rank] * rank}, root=root), ))
    out.append("scatter obj %r" % (comm.scatter([("item", i, "x" * i) for i in range(size)]
                                                if rank == root else None, root=root), ))
    out.append("reduce int SUM %r" % (comm.reduce(rank * 3 + 1, op=MPI.SUM, root=root), ))
    out.append("reduce list SUM %r" % (comm.reduce([rank], op=MPI.SUM, root=0), ))
    dup = comm.Dup()
    out.append("dup gather obj %r" % (dup.gather("d%d" % rank, root=0), ))
    out.append("dup reduce MAX %r" % (dup.reduce(rank * 5 % 7, op=MPI.MAX, root=size - 1), ))
    ri = array("i", [0] * 4)
    si = array("i", [rank, 1, -rank, 2])  # alive until the request completes
    req = dup.Iallreduce(si, ri, op=MPI.SUM)
    req.Wait()
    out.append("dup Iallreduce i SUM %r" % (list(ri), ))
    dup.Free()
    return out


def main():
    comm = MPI.COMM_WORLD
    text = "".join(line + "\n" for line in lines_for(comm))
    if len(sys.argv) > 1:
        with open("%s/rank.%d" % (sys.argv[1], comm.Get_rank()), "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
