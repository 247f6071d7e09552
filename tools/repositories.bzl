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

def commanalyzer_dependencies():
    """Declares every repository //tools:commanalyzer and its tests need."""
    _declare(_bundled_repository, "rules_cc", top = Label("//third_party:bazel/rules_cc/WORKSPACE"))
    _declare(_bundled_repository, "rules_java", top = Label("//third_party:bazel/rules_java/WORKSPACE"))
    _declare(_bundled_repository, "remote_coverage_tools", top = Label("//third_party:bazel/remote_coverage_tools/WORKSPACE"))
    _declare(native.local_repository, "platforms", path = "/usr/share/bazel/tools/platforms")
    _declare(
        native.new_local_repository,
        "system_libs",
        build_file = str(Label("//third_party:system.BUILD")),
        path = "/usr/lib/x86_64-linux-gnu",
    )
    _declare(
        native.new_local_repository,
        "llvm16",
        build_file = str(Label("//third_party:llvm16.BUILD")),
        path = "/usr/lib/llvm-16",
    )
    _declare(
        native.new_local_repository,
        "openmpi",
        build_file = str(Label("//third_party:openmpi.BUILD")),
        path = "/usr/lib/x86_64-linux-gnu/openmpi",
    )

    # Zoltan's hypergraph partitioner (libtrilinos-zoltan-dev), for tools/zoltan_phg.
    _declare(
        native.new_local_repository,
        "zoltan",
        build_file = str(Label("//third_party:zoltan.BUILD")),
        path = "/usr/include/trilinos",
    )

    # Eigen (libeigen3-dev), header-only: least squares for the scaling model.
    _declare(
        native.new_local_repository,
        "eigen",
        build_file = str(Label("//third_party:eigen.BUILD")),
        path = "/usr/include/eigen3",
    )

    # Chart.js (libjs-chart.js), inlined into the HTML report (tools/html_report.cc).
    _declare(
        native.new_local_repository,
        "chartjs",
        build_file = str(Label("//third_party:chartjs.BUILD")),
        path = "/usr/share/javascript/chart.js",
    )
