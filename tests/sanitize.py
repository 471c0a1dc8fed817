"""Run the C extensions' tests under AddressSanitizer and UndefinedBehaviorSanitizer (`make sanitize`).

Builds every ``src/flamespace/**/*.c`` with ``-fsanitize=address,undefined`` into a copy of the
package, then runs the tests that drive the C code with that copy first on ``sys.path`` and
libasan preloaded (CPython itself is not instrumented; leaks are not checked: the interpreter's
own allocations at exit would drown them). Any out-of-bounds access, use after free or undefined
behaviour aborts the test process, and this script exits non-zero.

    python tests/sanitize.py [pytest arguments...]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "flamespace"
#: The tests that run each extension's code (the folded and pprof readers, max-t, tracer, sampler, allocations,
#: the out-of-process reader on a program that changes under it).
TESTS = (
    "tests/formats/test_folded.py",
    "tests/formats/test_folded_long_lines.py",
    "tests/formats/test_folded_texts.py",
    "tests/formats/test_pprof_wire.py",
    "tests/formats/test_pprof.py",
    "tests/stats/test_maxt.py",
    "tests/stats/test_maxt_core.py",
    "tests/collect/test_trace.py",
    "tests/collect/test_trace_descriptors.py",
    "tests/collect/test_engine.py",
    "tests/collect/test_alloc.py",
    "tests/remote/test_attach.py::test_a_program_that_changes_under_the_reader_and_exits_is_recorded_whole",
    "tests/remote/test_attach.py::test_record_pid_gives_each_phase_its_own_clocks_time",
    "tests/remote/test_native.py::test_the_unwinder_ends_with_a_status_on_garbage",
    "tests/remote/test_native.py::test_native_names_the_c_function_under_the_python_function_that_called_it",
)
#: Tests of the statistics' level, not of the C code (thousands of whole comparisons: minutes under ASan).
DESELECTED = ("tests/stats/test_maxt.py::test_aa_compares_default_two_sided_test_holds_alpha",)
FLAGS = (
    "-shared",
    "-fPIC",
    "-O1",
    "-g",
    "-fno-omit-frame-pointer",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    "-ffp-contract=off",
    "-fno-math-errno",
)


def build(into: Path) -> None:
    """A copy of the package whose extensions are built with the sanitizers."""
    shutil.copytree(PACKAGE, into / "flamespace", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    include, suffix = sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX")
    for source in sorted(PACKAGE.rglob("*.c")):
        target = into / "flamespace" / source.relative_to(PACKAGE).with_suffix(suffix)
        subprocess.run(["gcc", *FLAGS, f"-I{include}", str(source), "-o", str(target)], check=True)


def main(arguments: list) -> int:
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="flamespace-sanitize-") as folder:
        build(Path(folder))
        env = {
            **os.environ,
            "PYTHONPATH": folder,
            "LD_PRELOAD": asan,
            "ASAN_OPTIONS": "detect_leaks=0",
            "UBSAN_OPTIONS": "print_stacktrace=1",
        }
        where = "import flamespace.formats._folded as m; print(m.__file__)"
        loaded = subprocess.run([sys.executable, "-c", where], env=env, capture_output=True, text=True, check=True).stdout
        if not loaded.startswith(folder):
            print(f"the sanitized build is not the one imported ({loaded.strip()})", file=sys.stderr)
            return 1
        print(f"sanitized extensions in {folder}; running {len(TESTS)} test files", file=sys.stderr)
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
                "--capture=sys",
                *TESTS,
                *(f"--deselect={test}" for test in DESELECTED),
                *arguments,
            ],
            cwd=ROOT,
            env=env,
        ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
