"""Bazel macros for analysing C/C++ programs with CommAnalyzer.

Load from any workspace that has this one as @commanalyzer and calls
commanalyzer_dependencies() (tools/repositories.bzl) in its WORKSPACE:
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

def commanalyzer_instrumented_binary(name, srcs, hdrs = [], copts = [], store_trees = True, **kwargs):
    """`name`.instrumented: the program compiled with the pass and runtime.

    Running it writes a profile to $COMMANALYZER_PROFILE. store_trees = False
    builds every store's label as a union (COMMANALYZER_STORE_TREES=0)."""
    native.genrule(
        name = name,
        srcs = srcs + hdrs,
        outs = [name + ".instrumented"],
        tools = [_TOOL],
        cmd = "%s$(location %s) build %s --output $@ %s" % (
            "" if store_trees else "COMMANALYZER_STORE_TREES=0 ",
            _TOOL,
            _locations(srcs),
            " ".join(copts),
        ),
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

def _analysis_impl(ctx):
    report = ctx.actions.declare_directory(ctx.label.name + ".report")
    tool = ctx.attr._tool[DefaultInfo].files_to_run
    command = "%s analyze %s --procs %s --json %s --out %s %s -- %s > %s" % (
        tool.executable.path,
        " ".join([f.path for f in ctx.files.srcs]),
        ",".join([str(p) for p in ctx.attr.procs]),
        ctx.outputs.json.path,
        report.path,
        " ".join(ctx.attr.copts),
        " ".join(ctx.attr.program_args),
        ctx.outputs.txt.path,
    )
    ctx.actions.run_shell(
        inputs = ctx.files.srcs + ctx.files.hdrs,
        outputs = [ctx.outputs.json, ctx.outputs.txt, report],
        tools = [tool],
        command = command,
        mnemonic = "CommAnalyzer",
        use_default_shell_env = True,  # PATH: clang-16 and the linker, as in a genrule
        progress_message = "Analysing the communication of %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([ctx.outputs.json, ctx.outputs.txt, report]))]

_analysis = rule(
    implementation = _analysis_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = True, mandatory = True),
        "hdrs": attr.label_list(allow_files = True),
        "copts": attr.string_list(),
        "program_args": attr.string_list(),
        "procs": attr.int_list(),
        "_tool": attr.label(default = Label("//tools:commanalyzer"), executable = True, cfg = "host"),
    },
    outputs = {"json": "%{name}.json", "txt": "%{name}.txt"},
)

def commanalyzer_analysis(name, srcs, hdrs = [], copts = [], program_args = [], procs = [2, 4, 8, 16, 32, 64], **kwargs):
    """Runs `commanalyzer analyze` on the program built from `srcs`.

    Writes `name`.json (the estimates, as --json), `name`.txt (the report
    printed) and the folder `name`.report (what --out keeps: CSV matrices,
    SVG heatmaps, the instrumented build and its profile), all in
    bazel-bin/<package>/. `copts` go to the compiler (paths relative to the
    workspace root), `program_args` to the program."""
    _analysis(name = name, srcs = srcs, hdrs = hdrs, copts = copts, program_args = program_args, procs = procs, **kwargs)

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
