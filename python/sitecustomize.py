# sitecustomize.py - put first on PYTHONPATH by encore-run.
#
# mpi4py's pickle-based comm.allreduce()/reduce() default to a "fast"
# algorithm made of point-to-point messages on a duplicate of
# MPI_COMM_WORLD, which encore does not serve (it serves collectives, so
# that every step can be replayed after a failure).  Under encore this
# selects mpi4py's collective-based algorithm (allgather, then reduce
# locally) instead; the program itself stays unmodified.  Any other
# sitecustomize further down sys.path still runs.
import importlib.util
import os
import sys


def _encore_configure_mpi4py():
    if not os.environ.get("ENCORE_TRACKER"):
        return
    try:
        import mpi4py
    except ImportError:
        return
    mpi4py.rc.fast_reduce = False


def _encore_chain_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if os.path.abspath(entry or ".") == here:
            continue
        path = os.path.join(entry or ".", "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_encore_next_sitecustomize", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


_encore_configure_mpi4py()
_encore_chain_sitecustomize()
