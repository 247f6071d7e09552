"""Bazel macros for analysing C/C++ programs with CommAnalyzer.

Load from any repository that has this one as @commanalyzer:
    load("@commanalyzer//tools:defs.bzl", "commanalyzer_analysis", "commanalyzer_budget_test")

    commanalyzer_analysis(
        name = "solver_comm",
        srcs = ["solver.c"],
        program_args = ["256", "20"],
        procs = [4, 16, 64],
    )
    commanalyzer_budget_test(name = "solver_comm_budget", analysis = ":solver_comm", procs = 16, max_bytes = 4000000)
"""

_TOOL = str(Label("//tools:commanalyzer"))
_ANNOTATE = str(Label("//include/commanalyzer:annotate.h"))
_BUDGET_CHECK = str(Label("//tools:budget_check.sh"))

def _locations(srcs):
    return " ".join(["$(locations %s)" % s for s in srcs])

def commanalyzer_instrumented_binary(name, srcs, hdrs = [], copts = [], **kwargs):
    """`name`.instrumented: the program compiled with the pass and runtime.

    Running it writes a profile to $COMMANALYZER_PROFILE."""
    native.genrule(
        name = name,
        srcs = srcs + hdrs,
        outs = [name + ".instrumented"],
        tools = [_TOOL],
        cmd = "$(location %s) build %s --output $@ %s" % (_TOOL, _locations(srcs), " ".join(copts)),
        **kwargs
    )

def commanalyzer_native_binary(name, srcs, hdrs = [], copts = [], cxx = False, **kwargs):
    """`name`.native: the same program built by clang-16 without the shim."""
    native.genrule(
        name = name,
        srcs = srcs + hdrs + [_ANNOTATE],
        outs = [name + ".native"],
        cmd = ("%s -O1 -I$$(dirname $$(dirname $(location %s))) %s %s -o $@ -lm" %
               ("clang++-16" if cxx else "clang-16", _ANNOTATE, " ".join(copts), _locations(srcs))),
        **kwargs
    )

def commanalyzer_analysis(name, srcs, hdrs = [], copts = [], program_args = [], procs = [2, 4, 8, 16, 32, 64], **kwargs):
    """Runs `commanalyzer analyze`: `name`.json (estimates) and `name`.txt (the report)."""
    native.genrule(
        name = name,
        srcs = srcs + hdrs,
        outs = [name + ".json", name + ".txt"],
        tools = [_TOOL],
        cmd = ("$(location %s) analyze %s --procs %s --json $(location %s.json) --out $(RULEDIR)/%s.report %s -- %s > $(location %s.txt)" %
               (_TOOL, _locations(srcs), ",".join([str(p) for p in procs]), name, name, " ".join(copts),
                " ".join(program_args), name)),
        **kwargs
    )

def commanalyzer_budget_test(name, analysis, procs, max_bytes, **kwargs):
    """Fails when the predicted bytes of `analysis` on `procs` processes exceed `max_bytes`."""
    json = (analysis if analysis.startswith(":") or analysis.startswith("//") else ":" + analysis) + ".json"
    native.sh_test(
        name = name,
        srcs = [_BUDGET_CHECK],
        args = ["$(location %s)" % json, str(procs), str(max_bytes)],
        data = [json],
        **kwargs
    )
