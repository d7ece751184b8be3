#!/usr/bin/env python3
"""gen_entries.py - generate libencore's MPI entry points from mpi.spec.

Usage: gen_entries.py SPEC OUTDIR
Writes OUTDIR/wrappers.c (MPI_X + PMPI_X for every spec line, the real
PMPI_X accessors, the refusal reasons) and OUTDIR/entries.h (prototypes the
hand-written shim/mpi/*/*.c code implements or calls).  The spec format is
described at the top of mpi.spec.  Output is written only when it changes,
so an unchanged spec does not rebuild libencore.
"""
import os
import re
import sys

CATEGORIES = ("owned", "refuse", "world-local")
FLAGS = ("noguard", "serial", "unordered", "inter")
# Keys only fortran/gen_fortran.py reads (see mpi.spec); the C output
# ignores them.
FORTRAN_MODES = ("auto", "hand", "no")


class SpecError(Exception):
    pass


class Func:
    def __init__(self, lineno, category, comms, why, flags, ret, name, params,
                 fortran="auto", flogical=()):
        self.lineno = lineno
        self.category = category
        self.comms = comms          # list of (param name, is_pointer)
        self.why = why
        self.flags = flags
        self.ret = ret
        self.name = name            # MPI_Send
        self.short = name[4:]       # Send
        self.params = params        # list of (declaration, name)
        self.fortran = fortran      # Fortran entry body: auto, hand or no
        self.flogical = flogical    # parameters that are LOGICAL in Fortran

    @property
    def decl(self):
        return ", ".join(d for d, _ in self.params) or "void"

    @property
    def args(self):
        return ", ".join(n for _, n in self.params)


def param_name(decl):
    m = re.search(r"([A-Za-z_]\w*)\s*(\[\s*\w*\s*\])*\s*$", decl)
    if not m:
        raise SpecError("cannot find the parameter name in '%s'" % decl)
    return m.group(1)


def parse_proto(text):
    m = re.match(r"^\s*(int)\s+(MPI_\w+)\s*\((.*)\)\s*$", text)
    if not m:
        raise SpecError("not an 'int MPI_X(...)' prototype: %s" % text)
    ret, name, plist = m.groups()
    plist = plist.strip()
    params = []
    if plist and plist != "void":
        for decl in plist.split(","):
            decl = " ".join(decl.split())
            params.append((decl, param_name(decl)))
    return ret, name, params


def parse_attrs(lineno, words, whys, fattrs):
    category, comms, why, flags = words[0], [], None, []
    if category not in CATEGORIES:
        raise SpecError("unknown category '%s'" % category)
    for w in words[1:]:
        if w.startswith("comm="):
            for c in w[5:].split(","):
                comms.append((c.lstrip("*"), c.startswith("*")))
        elif w.startswith("why="):
            why = w[4:]
            if why not in whys:
                raise SpecError("why=%s has no @why line" % why)
        elif w in FLAGS:
            flags.append(w)
        elif w.startswith("fortran="):
            if w[8:] not in FORTRAN_MODES:
                raise SpecError("fortran= takes one of %s" % ", ".join(FORTRAN_MODES))
            fattrs["fortran"] = w[8:]
        elif w.startswith("flogical="):
            fattrs["flogical"] = tuple(w[9:].split(","))
        else:
            raise SpecError("unknown attribute '%s'" % w)
    if category == "refuse" and (not comms or not why):
        raise SpecError("a refuse line needs comm= and why=")
    if category == "world-local" and not comms:
        raise SpecError("a world-local line needs comm=")
    return category, comms, why, flags


def parse(path):
    whys, funcs, seen = {}, [], set()
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                if line.startswith("@reason "):
                    continue  # read by gen_function_table.py
                if line.startswith("@why "):
                    key, text = line[5:].split(None, 1)
                    whys[key] = text
                    continue
                if "|" not in line:
                    raise SpecError("missing '|' before the prototype")
                head, proto = line.split("|", 1)
                fattrs = {}
                cat, comms, why, flags = parse_attrs(lineno, head.split(), whys, fattrs)
                ret, name, params = parse_proto(proto)
                names = [n for _, n in params]
                for c in [c for c, _ in comms] + list(fattrs.get("flogical", ())):
                    if c not in names:
                        raise SpecError("%s is not a parameter of %s" % (c, name))
                if name in seen:
                    raise SpecError("%s listed twice" % name)
                seen.add(name)
                funcs.append(Func(lineno, cat, comms, why, flags, ret, name, params, **fattrs))
            except SpecError as e:
                raise SpecError("%s:%d: %s" % (path, lineno, e))
    return whys, funcs


def world_test(f):
    """True when a communicator argument is the encore world or derived from it."""
    tests = []
    for c, ptr in f.comms:
        tests.append("(%s != NULL && enc_mpi_is_encore_comm(*%s))" % (c, c) if ptr
                     else "enc_mpi_is_encore_comm(%s)" % c)
    return " || ".join(tests)


def err_comm(f):
    """The communicator whose error handler applies to the call."""
    c, ptr = f.comms[0]
    return "(%s != NULL ? *%s : MPI_COMM_NULL)" % (c, c) if ptr else c


def emit_call(f, out, call, indent, comm=None):
    """int rv = call; after the nonblocking collectives started before it
    (on its communicator: comm, else the spec's) when the spec says serial."""
    if "serial" in f.flags and not f.comms:
        out.append(indent + "enc_mpi_serial_enter_all();")
    elif "serial" in f.flags:
        out.append(indent + "enc_mpi_serial_enter(%s);" %
                   ("MPI_COMM_NULL" if "unordered" in f.flags else comm or err_comm(f)))
    out.append(indent + "int rv = %s;" % call)
    if "serial" in f.flags:
        out.append(indent + "enc_mpi_serial_leave();")


def emit_served(f, out, call):
    """Calls the encore-mode body with the error communicator set around it."""
    out.append("            MPI_Comm saved = enc_mpi_errcomm_enter(%s);" % err_comm(f))
    emit_call(f, out, call, "            ")
    out.append("            enc_mpi_errcomm_leave(saved);")
    out.append("            return rv;")


def emit_real(f, out):
    s = f.short
    out.append("typedef int (*%s_fn)(%s);" % (s, f.decl))
    out.append("static %s_fn resolved_%s;" % (s, s))
    out.append("")
    out.append("int enc_real_%s(%s)" % (s, f.decl))
    out.append("{")
    out.append("    %s_fn fn = __atomic_load_n(&resolved_%s, __ATOMIC_ACQUIRE);" % (s, s))
    out.append("    if (fn == NULL) {")
    out.append("        fn = (%s_fn)enc_mpi_resolve(\"P%s\");" % (s, f.name))
    out.append("        __atomic_store_n(&resolved_%s, fn, __ATOMIC_RELEASE);" % s)
    out.append("    }")
    if "noguard" in f.flags:
        out.append("    /* may run user callbacks: their MPI calls must be served */")
        out.append("    return fn(%s);" % f.args)
    else:
        out.append("    int saved = enc_mpi_guard_enter();")
        out.append("    int rv = fn(%s);" % f.args)
        out.append("    enc_mpi_guard_leave(saved);")
        out.append("    return rv;")
    out.append("}")
    out.append("")


# Null value of each handle type a refused call would hand out.
NULL_HANDLES = {"MPI_Comm": "MPI_COMM_NULL", "MPI_Group": "MPI_GROUP_NULL",
                "MPI_Request": "MPI_REQUEST_NULL",
                "MPI_Win": "MPI_WIN_NULL", "MPI_File": "MPI_FILE_NULL",
                "MPI_Message": "MPI_MESSAGE_NULL"}


def emit_null_outputs(f, out, indent):
    """A refused call's output handles become the null handle, so a program
    that goes on (MPI_ERRORS_RETURN) never uses an uninitialised one."""
    inout = [c for c, ptr in f.comms if ptr]
    for decl, name in f.params:
        m = re.match(r"(MPI_\w+) \*\w+$", decl)
        if m and m.group(1) in NULL_HANDLES and name not in inout:
            out.append("%sif (%s != NULL)" % (indent, name))
            out.append("%s    *%s = %s;" % (indent, name, NULL_HANDLES[m.group(1)]))


def emit_null_comm_outputs(f, out):
    """On MPI_COMM_NULL the real MPI fails and leaves the outputs as they
    were: they become null handles, so a program that goes on (a harness
    after a refused call, say) frees a null handle, not garbage."""
    c, ptr = f.comms[0]
    body = []
    emit_null_outputs(f, body, "            ")
    if ptr or not body:
        return
    out.append("        if (%s == MPI_COMM_NULL) {" % c)
    out.extend(body)
    out.append("        }")


def emit_entry(f, out):
    s = f.short
    site = "site" if f.category == "owned" else "site __attribute__((unused))"
    out.append("static int entry_%s(const void *%s%s)" %
               (s, site, "".join(", " + d for d, _ in f.params)))
    out.append("{")
    if f.category != "world-local":
        out.append("    if (enc_mpi_intercepting()) {")
        if f.category == "refuse":
            out.append("        if (%s) {" % world_test(f))
            emit_null_outputs(f, out, "            ")
            emit_served(f, out, "enc_mpi_refuse(\"%s\", ENC_MPI_WHY_%s)" %
                        (f.name, f.why.upper()))
            out.append("        }")
        elif f.comms:
            out.append("        if (%s) {" % world_test(f))
            if "inter" not in f.flags:
                out.append("            if (%s)" % " || ".join(
                    "enc_mpi_is_intercomm(%s%s)" % ("*" if p else "", c) for c, p in f.comms))
                out.append("                return enc_mpi_refuse_inter(\"%s\");" % f.name)
            emit_served(f, out, "enc_mpi_%s(%s)" %
                        (s, ", ".join(["site"] + [n for _, n in f.params])))
            out.append("        }")
            emit_null_comm_outputs(f, out)
        else:
            emit_call(f, out, "enc_mpi_%s(%s)" %
                      (s, ", ".join(["site"] + [n for _, n in f.params])), "        ")
            out.append("        return rv;")
        out.append("    }")
    out.append("    return enc_real_%s(%s);" % (s, f.args))
    out.append("}")
    out.append("")
    for prefix in ("", "P"):
        out.append("int %s%s(%s)" % (prefix, f.name, f.decl))
        out.append("{")
        out.append("    return entry_%s(%s);" %
                   (s, ", ".join(["__builtin_return_address(0)"] + [n for _, n in f.params])))
        out.append("}")
        out.append("")


def banner(name, job):
    """File-head comment of a generated file: its job, then where it comes from."""
    return ("/*\n * %s - %s\n *\n"
            " * Generated by shim/mpi/gen_entries.py from shim/mpi/mpi.spec.\n"
            " * Do not edit: change the spec or the generator.\n */" % (name, job))


def gen_header(whys, funcs):
    out = [banner("entries.h", "refusal reasons, the real PMPI_X accessors and the\n"
                  " * encore-mode implementations the MPI entry points call."),
           "#ifndef ENC_MPI_GEN_ENTRIES_H", "#define ENC_MPI_GEN_ENTRIES_H", "",
           "#include <mpi.h>", "", "/* Reason classes of refusals (@why lines). */",
           "enum enc_mpi_why {"]
    for key in whys:
        out.append("    ENC_MPI_WHY_%s," % key.upper())
    out += ["    ENC_MPI_WHY_COUNT", "};", "extern const char *const enc_mpi_why_text[ENC_MPI_WHY_COUNT];", "",
            "/* The real PMPI_X (resolved once; the re-entry guard is set around",
            " * the call unless the spec says noguard). */"]
    for f in funcs:
        out.append("int enc_real_%s(%s);" % (f.short, f.decl))
    out += ["", "/* Encore-mode implementations of the owned functions (hand-written in shim/mpi);",
            " * site is the return address of the application's call. */"]
    for f in funcs:
        if f.category == "owned":
            out.append("int enc_mpi_%s(%s);" % (f.short, ", ".join(["const void *site"] + [d for d, _ in f.params])))
    out += ["", "#endif", ""]
    return "\n".join(out)


def gen_source(whys, funcs):
    out = [banner("wrappers.c", "MPI_X and PMPI_X entry points of libencore: each\n"
                  " * serves the call in encore mode (owned), refuses it on the world\n"
                  " * (refuse) or passes it to the real Open MPI."),
           '#include "enc.h"', "", "#include <mpi.h>", "",
           '#include "engine/engine.h"', '#include "mpi/mpi_layer.h"', "",
           "const char *const enc_mpi_why_text[ENC_MPI_WHY_COUNT] = {"]
    for key, text in whys.items():
        out.append('    [ENC_MPI_WHY_%s] = "%s",' % (key.upper(), text.replace('"', '\\"')))
    out += ["};", ""]
    for f in funcs:
        out.append("/* ---- %s (%s, mpi.spec:%d) ---- */" % (f.name, f.category, f.lineno))
        out.append("")
        emit_real(f, out)
        emit_entry(f, out)
    return "\n".join(out)


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen_entries.py SPEC OUTDIR\n")
        return 2
    try:
        whys, funcs = parse(argv[1])
    except (OSError, SpecError) as e:
        sys.stderr.write("gen_entries.py: %s\n" % e)
        return 1
    os.makedirs(argv[2], exist_ok=True)
    write_if_changed(os.path.join(argv[2], "entries.h"), gen_header(whys, funcs))
    write_if_changed(os.path.join(argv[2], "wrappers.c"), gen_source(whys, funcs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
