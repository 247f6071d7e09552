"""The external repositories CommAnalyzer builds with, for any workspace.

This repository's WORKSPACE calls it, and so does a workspace that has this
one as @commanalyzer:

    local_repository(name = "commanalyzer", path = "/path/to/commanalyzer")
    load("@commanalyzer//tools:repositories.bzl", "commanalyzer_dependencies")
    commanalyzer_dependencies()

Everything is offline: Bazel 4.2.3's rules_cc, rules_java and
remote_coverage_tools are small stand-ins in third_party/bazel/ (see
../shared/BUILDING.md), the libraries are Debian's system packages
(tools/setup.sh installs them). A repository the workspace has already
declared under one of these names is left as it is.
"""

def _bundled_repository_impl(rctx):
    # The folder holding `top`, one of its files, mirrored by symlinks.
    folder = rctx.path(rctx.attr.top).dirname
    for child in folder.readdir():
        rctx.symlink(child, child.basename)

# A folder of this repository as a repository of its own: local_repository
# with a path that holds wherever this repository is checked out.
_bundled_repository = repository_rule(
    implementation = _bundled_repository_impl,
    attrs = {"top": attr.label(allow_single_file = True, doc = "a file at the top of the folder")},
    local = True,
)

def _declare(rule, name, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

# Debian's packages (tools/setup.sh), each with its build file here:
# (name, build file, where the package puts it).
_SYSTEM_REPOSITORIES = [
    ("system_libs", "//third_party:system.BUILD", "/usr/lib/x86_64-linux-gnu"),
    ("llvm16", "//third_party:llvm16.BUILD", "/usr/lib/llvm-16"),
    ("openmpi", "//third_party:openmpi.BUILD", "/usr/lib/x86_64-linux-gnu/openmpi"),
    # Zoltan's hypergraph partitioner (libtrilinos-zoltan-dev), for tools/zoltan_phg.
    ("zoltan", "//third_party:zoltan.BUILD", "/usr/include/trilinos"),
    # Eigen (libeigen3-dev), header-only: least squares for the scaling model.
    ("eigen", "//third_party:eigen.BUILD", "/usr/include/eigen3"),
    # Chart.js (libjs-chart.js), inlined into the HTML report (tools/html_report.cc).
    ("chartjs", "//third_party:chartjs.BUILD", "/usr/share/javascript/chart.js"),
]

def commanalyzer_dependencies():
    """Declares every repository //tools:commanalyzer and its tests need."""
    _declare(_bundled_repository, "rules_cc", top = Label("//third_party:bazel/rules_cc/WORKSPACE"))
    _declare(_bundled_repository, "rules_java", top = Label("//third_party:bazel/rules_java/WORKSPACE"))
    _declare(_bundled_repository, "remote_coverage_tools", top = Label("//third_party:bazel/remote_coverage_tools/WORKSPACE"))
    _declare(native.local_repository, "platforms", path = "/usr/share/bazel/tools/platforms")
    for name, build_file, path in _SYSTEM_REPOSITORIES:
        _declare(native.new_local_repository, name, build_file = str(Label(build_file)), path = path)
