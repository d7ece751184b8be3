#!/usr/bin/env python3
"""gen_fortran.py - generate libencore's Fortran MPI entry points.

Usage: gen_fortran.py SPEC OUTDIR
Reads the same shim/mpi/mpi.spec as shim/mpi/gen_entries.py (and uses its
parser) and writes OUTDIR/fwrappers.c and OUTDIR/fentries.h.  For every
owned function it defines the mpif.h / use mpi manglings (MPI_X, mpi_x,
mpi_x_, mpi_x__ and their pmpi_ twins) and the use mpi_f08 symbols
(mpi_x_f08_, pmpi_x_f08_).  In encore mode a call on the world reaches
enc_mpi_<Name>() with converted arguments and the application's call site;
otherwise it goes to the real Open MPI Fortran symbol unchanged, so
passthrough behaves exactly as without libencore.  The mapping from C to
Fortran parameters is described at the top of mpi.spec.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "shim", "mpi"))
import gen_entries  # noqa: E402  (the one spec parser)

HANDLES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op"}
# Binding styles: (suffix of the real symbol, flag passed to the body).
STYLES = (("_", "ENC_F_MPIFH"), ("_f08_", "ENC_F_F08"))


class FParam:
    """One C parameter seen from Fortran."""

    def __init__(self, func, decl, name):
        self.name = name
        ctype = decl[:decl.rindex(name)].strip()
        self.logical = name in func.flogical
        self.fdecl = "MPI_Fint *%s" % name   # default: INTEGER by reference
        self.pre, self.post = [], []
        self.arg = name
        if name in ("argc", "argv"):          # MPI_Init's: absent in Fortran
            self.fdecl, self.arg = None, "NULL"
        elif ctype.endswith("void *"):
            self.fdecl = "void *%s" % name
            self.arg = "enc_f_buf(%s)" % name
        elif ctype in HANDLES:
            self.arg = "PMPI_%s_f2c(*%s)" % (HANDLES[ctype], name)
        elif ctype.rstrip(" *") in HANDLES and ctype.endswith("*"):
            h = HANDLES[ctype.rstrip(" *")]
            self.pre = ["%s c_%s = PMPI_%s_f2c(*%s);" % (ctype.rstrip(" *"), name, h, name)]
            self.post = ["*%s = PMPI_%s_c2f(c_%s);" % (name, h, name)]
            self.arg = "&c_" + name
        elif ctype == "int" and self.logical:
            self.arg = "enc_f_from_logical(*%s)" % name
        elif ctype == "int":
            self.arg = "(int)*%s" % name
        elif ctype == "int *" and self.logical:
            self.pre = ["int c_%s = 0;" % name]
            self.post = ["*%s = enc_f_to_logical(c_%s);" % (name, name)]
            self.arg = "&c_" + name
        elif ctype in ("int *", "const int") and (ctype == "int *" or decl.endswith("[]")):
            self.arg = name                    # MPI_Fint is int (checked)
        elif func.fortran != "hand":
            raise gen_entries.SpecError("%s: no Fortran mapping for '%s'" % (func.name, decl))
        else:
            self.fdecl = ctype + ("" if ctype.endswith("*") else " ") + name


def fparams(f):
    ps = [FParam(f, d, n) for d, n in f.params]
    return ps, [p.fdecl for p in ps if p.fdecl] + ["MPI_Fint *ierror"]


def world_test(f):
    return " || ".join("PMPI_Comm_f2c(*%s) != MPI_COMM_WORLD" % c for c, _ in f.comms)


def emit_real(f, decls, out):
    s, low = f.short, f.name.lower()
    out.append("static enc_freal_%s_fn resolved_%s[ENC_F_STYLES];" % (s, s))
    out.append("")
    out.append("/* The real Open MPI Fortran symbol (resolved once per style). */")
    out.append("enc_freal_%s_fn enc_freal_%s(int style)" % (s, s))
    out.append("{")
    out.append("    static const char *const names[ENC_F_STYLES] = { \"p%s_\", \"p%s_f08_\" };" %
               (low, low))
    out.append("    enc_freal_%s_fn fn = __atomic_load_n(&resolved_%s[style], __ATOMIC_ACQUIRE);"
               % (s, s))
    out.append("    if (fn == NULL) {")
    out.append("        fn = (enc_freal_%s_fn)enc_f_resolve(names[style]);" % s)
    out.append("        __atomic_store_n(&resolved_%s[style], fn, __ATOMIC_RELEASE);" % s)
    out.append("    }")
    out.append("    return fn;")
    out.append("}")
    out.append("")


def emit_encore(f, ps, out):
    """Encore-mode body: convert, call enc_mpi_<Name>, convert back."""
    for p in ps:
        out.extend("    " + line for line in p.pre)
    # only calls on the world reach the encore-mode body
    gen_entries.emit_call(f, out, "enc_mpi_%s(%s)" %
                          (f.short, ", ".join(["site"] + [p.arg for p in ps])), "    ",
                          comm="MPI_COMM_WORLD")
    if any(p.post for p in ps):
        out.append("    if (rv == MPI_SUCCESS) {")
        for p in ps:
            out.extend("        " + line for line in p.post)
        out.append("    }")
    out.append("    if (ierror != NULL)   /* optional in use mpi_f08 */")
    out.append("        *ierror = rv;")


def emit_body(f, ps, decls, out):
    s = f.short
    names = [d.rsplit("*", 1)[-1].split()[-1] for d in decls]
    out.append("static void body_%s(int style, const void *site, %s)" % (s, ", ".join(decls)))
    out.append("{")
    test = "!enc_mpi_intercepting()"
    if f.comms:
        test += " || " + world_test(f)
    out.append("    if (%s) {" % test)
    out.append("        int saved = enc_mpi_guard_enter();")
    out.append("        enc_freal_%s(style)(%s);" % (s, ", ".join(names)))
    out.append("        enc_mpi_guard_leave(saved);")
    out.append("        return;")
    out.append("    }")
    if f.fortran == "hand":
        out.append("    enc_fhand_%s(style, site, %s);" % (s, ", ".join(names)))
    else:
        emit_encore(f, ps, out)
    out.append("}")
    out.append("")


def manglings(f):
    low, up = f.name.lower(), f.name.upper()
    for p in ("", "p"):
        for sym in (p.upper() + up, p + low, p + low + "_", p + low + "__"):
            yield sym, "ENC_F_MPIFH"
        yield p + low + "_f08_", "ENC_F_F08"


def emit_func(f, out):
    ps, decls = fparams(f)
    names = [d.rsplit("*", 1)[-1].split()[-1] for d in decls]
    out.append("/* ---- %s (mpi.spec:%d) ---- */" % (f.name, f.lineno))
    out.append("")
    emit_real(f, decls, out)
    emit_body(f, ps, decls, out)
    for sym, style in manglings(f):
        out.append("void %s(%s)" % (sym, ", ".join(decls)))
        out.append("{")
        out.append("    body_%s(%s, __builtin_return_address(0), %s);" %
                   (f.short, style, ", ".join(names)))
        out.append("}")
        out.append("")


def banner(name, job):
    """File-head comment of a generated file: its job, then where it comes from."""
    return ("/*\n * %s - %s\n *\n"
            " * Generated by fortran/gen_fortran.py from shim/mpi/mpi.spec.\n"
            " * Do not edit: change the spec or the generator.\n */" % (name, job))


def fortran_funcs(funcs):
    return [f for f in funcs if f.category == "owned" and f.fortran != "no"]


def gen_header(funcs):
    out = [banner("fentries.h", "the real Open MPI Fortran symbols (per binding\n"
                  " * style) and the hand-written Fortran bodies the entry points call."),
           "#ifndef ENC_FORTRAN_GEN_FENTRIES_H", "#define ENC_FORTRAN_GEN_FENTRIES_H",
           "", "#include <mpi.h>", "",
           "/* Binding style of a Fortran entry: mpif.h / use mpi, or use mpi_f08. */",
           "enum { ENC_F_MPIFH, ENC_F_F08, ENC_F_STYLES };", ""]
    for f in funcs:
        _, decls = fparams(f)
        out.append("typedef void (*enc_freal_%s_fn)(%s);" % (f.short, ", ".join(decls)))
        out.append("enc_freal_%s_fn enc_freal_%s(int style);" % (f.short, f.short))
        if f.fortran == "hand":
            out.append("/* hand-written in fortran/ */")
            out.append("void enc_fhand_%s(int style, const void *site, %s);" %
                       (f.short, ", ".join(decls)))
    out += ["", "#endif", ""]
    return "\n".join(out)


def gen_source(funcs):
    out = [banner("fwrappers.c", "Fortran entry points of libencore: every mpif.h /\n"
                  " * use mpi mangling and use mpi_f08 symbol of each owned function."),
           '#include "enc.h"', "", "#include <mpi.h>", "",
           '#include "mpi/mpi_layer.h"', '#include "fortran/fortran.h"', ""]
    for f in funcs:
        emit_func(f, out)
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen_fortran.py SPEC OUTDIR\n")
        return 2
    try:
        _, funcs = gen_entries.parse(argv[1])
        funcs = fortran_funcs(funcs)
        header, source = gen_header(funcs), gen_source(funcs)
    except (OSError, gen_entries.SpecError) as e:
        sys.stderr.write("gen_fortran.py: %s\n" % e)
        return 1
    os.makedirs(argv[2], exist_ok=True)
    gen_entries.write_if_changed(os.path.join(argv[2], "fentries.h"), header)
    gen_entries.write_if_changed(os.path.join(argv[2], "fwrappers.c"), source)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
