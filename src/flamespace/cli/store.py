"""flamespace store: keep profiles with their labels and read them back by selector (needs flamespace[store])."""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Sequence

from ._common import INPUT_OPTIONS
from ._options import Argument, Command, Option
from ._report import EXIT_INPUT, UsageError
from ._store import CLUSTER_OPTION

if TYPE_CHECKING:
    from typing import Any

STORE_HELP = "The store directory (default: $FLAMESPACE_STORE, else .flamespace/store)."
#: --store PATH, for every command that reads or writes the store itself.
STORE_OPTION = Option(("--store",), "store", metavar="PATH", help=STORE_HELP)

HELP = """Keep profiles with their labels in a store (DuckDB over Parquet) and read them back by selector.

    A selector names stored profiles wherever a profile path goes (compare --baseline, svg,
    text, top, ...): store:branch=main,last=30, store:commit=abc123,
    store:bench=parse,since=2026-11-01 (keys: any label; commit matches a prefix; last=N,
    since=DATE, until=DATE, id=N). Selectors read the store in $FLAMESPACE_STORE, else
    .flamespace/store. Needs the extra: pip install 'flamespace[store]'.

    \b
    Examples:
        flamespace store add runs/ --label bench=parse
        flamespace store ls
        flamespace compare --baseline store:branch=main,last=30 --candidate runs/
        flamespace store get store:branch=main,last=30 --mean -o main-mean.folded
        flamespace store gc --keep-last 100
        flamespace store check
        flamespace store repair
"""


def add(
    inputs: Sequence[str], labels: Sequence[str], no_git: bool, store: str | None, skip_invalid: bool, input_format: str | None
) -> None:
    """Add profile files (any readable format; a directory: the profiles in it) to the store.

    Each profile is labelled with its own headers (host, mode, python, ...), the commit and
    branch of the git checkout (unless --no-git) and every --label. Every run is kept: the
    same counts under other labels (another commit) are another run. Only a re-ingest is
    skipped, and named: the same content with the same labels, or the same run of a collection
    (its collection and run headers) added again under other labels.
    """
    from ..diagnostics import Diagnostics
    from ..store import open_store
    from ..store.labels import git_labels, parse_labels
    from ._common import expand_inputs, report
    from ._report import warn

    given = parse_labels(labels)
    target = open_store(store)
    files = expand_inputs(list(inputs))
    if "-" in files:
        raise UsageError("the store adds files (one profile each), not stdin")
    diagnostics = Diagnostics()
    try:
        result = target.add_files(
            files,
            {**({} if no_git else git_labels()), **given},
            diagnostics,
            input_format=input_format,
            skip_invalid=skip_invalid,
        )
    finally:
        report(diagnostics)
    again = (
        (
            f"; {len(result.duplicates)} already stored, skipped (the same run: same content and labels): "
            f"{_names([f'{s} (id {i})' for s, i in result.duplicates])}"
        )
        if result.duplicates
        else ""
    )
    warn(f"flamespace store add: added {len(result.added)} profile(s) to {target.path}{again}")


def _names(names: Sequence[str], shown: int = 3) -> str:
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def ls(selector: str | None, as_json: bool, store: str | None) -> None:
    """List the stored profiles (those SELECTOR names, if given), oldest first, with their labels."""
    from ..diagnostics import Diagnostics
    from ..store import open_store
    from ._common import echo, echo_json, format_value, report

    diagnostics = Diagnostics()
    try:
        snapshot = open_store(store).snapshot(diagnostics)
        rows = snapshot.profiles(snapshot.select(selector) if selector else None)
    finally:
        report(diagnostics)
    if as_json:
        echo_json([{**row, **{k: row[k].isoformat() for k in ("time", "added", "time_end")}} for row in rows])
        return
    if not rows:
        echo(f"the store {snapshot.root} holds no profiles")
        return
    from ._table import print_table

    headers = ("id", "time (UTC)", "branch", "commit", "bench", "mode", "unit", "stacks", "total", "source")
    table = [
        [
            str(r["id"]),
            r["time"].strftime("%Y-%m-%d %H:%M"),
            r["branch"] or "",
            (r["commit"] or "")[:10],
            r["bench"] or "",
            r["mode"] or "",
            r["unit"] or "",
            f"{r['stacks']:,}",
            format_value(r["total"]),
            r["source"],
        ]
        for r in rows
    ]
    print_table(f"{len(rows)} profile(s) in {snapshot.root}", headers, table, [h in ("id", "stacks", "total") for h in headers])


def get(selector: str, mean: bool, to: str | None, output: str, no_header: bool, store: str | None, cluster: str | None) -> None:
    """Write the merged (or --mean) profile of the stored profiles SELECTOR names, in any writable format.

    The sum runs as one grouped query of the store, or with --cluster on a Dask cluster
    (the same numbers)."""
    from ..formats import check_output, registry
    from ._convert_spec import output_format
    from ._store import read_selected

    target = output_format(to, output)
    check_output(output)
    profile = read_selected(selector, mean=mean, store=store, cluster=cluster)
    options: dict[str, Any] = {"header": not no_header} if "header" in registry.write_options(target) else {}
    registry.write(profile, output, target, **options)


def gc(keep_last: int | None, older_than: str | None, store: str | None) -> None:
    """Apply retention (--keep-last per branch, --older-than) and compact the store into one part.

    Also moves corrupt parts to corrupt/ (kept, never deleted; what they cost is said as lost
    to corruption, never as retention), keeps every profile whose own files are sound, and
    deletes what killed ingests left behind.
    """
    from ..diagnostics import Diagnostics
    from ..store import open_store, parse_age
    from ._common import report
    from ._report import warn

    age = parse_age(older_than) if older_than else None
    diagnostics = Diagnostics()
    target = open_store(store)
    try:
        done = target.gc(keep_last=keep_last, older_than=age, diagnostics=diagnostics)
    finally:
        report(diagnostics)
    warn(
        f"flamespace store gc: removed {done.removed} profile(s), kept {done.kept}; "
        f"{done.parts_before} part(s) -> {done.parts_after}"
    )
    for loss in done.lost:  # never counted as retention
        warn(f"flamespace store gc: {loss}")
    if done.unreadable:
        warn(
            f"flamespace store gc: {done.unreadable} kept profile(s) cannot be read: their stacks were defined in a part "
            "set aside in corrupt/ (their values are kept)"
        )


def check(store: str | None) -> int:
    """Check the store and report every problem (exit 1 if any); changes nothing.

    Checks the manifest and its previous generation, every part's files against their sizes
    and sha256 sums, the parts' own descriptions, and the ids (none used twice, the counters
    past every stored id); notes the parts set aside in corrupt/ and what gc would delete.
    """
    from ..store import open_store
    from ..store.repair import check as run_check
    from ._common import echo

    target = open_store(store)
    report = run_check(target)
    for line in report.problems:
        echo(f"problem: {line}")
    for line in report.notes:
        echo(f"note: {line}")
    if report.problems:
        echo(
            f"{len(report.problems)} problem(s) in the store {target.path}: `flamespace store repair` rebuilds what can be rebuilt"
        )
        return EXIT_INPUT
    echo(f"the store {target.path} has no problem")
    return 0


def repair(store: str | None) -> int:
    """Rebuild what can be rebuilt and say exactly what was lost.

    A damaged or missing manifest is rebuilt from its previous generation and the parts' own
    descriptions; id counters are raised past every stored id; a profile id used twice is
    given a new id; corrupt parts are set aside in corrupt/ (never deleted) and the sound
    profiles they hold are kept. Run `flamespace store check` first to see what it will do.
    """
    from ..diagnostics import Diagnostics
    from ..store import open_store
    from ..store.repair import repair as run_repair
    from ._common import echo, report

    target = open_store(store)
    diagnostics = Diagnostics()
    try:
        done = run_repair(target, diagnostics)
    finally:
        report(diagnostics)
    if not done.problems:
        echo(f"the store {target.path} has no problem: nothing to repair")
        return 0
    for line in done.done:
        echo(f"repaired: {line}")
    for line in done.lost:
        echo(f"lost: {line}")
    for line in done.unrepaired:
        echo(f"not repaired: {line}")
    echo(f"the store {target.path} is repaired" + (f"; {len(done.lost)} loss(es) above" if done.lost else "; nothing lost"))
    return EXIT_INPUT if done.unrepaired else 0


#: ``flamespace store`` and its subcommands.
SPEC = Command(
    "store",
    None,
    help=HELP,
    subcommands=[
        Command(
            "add",
            add,
            [Argument("inputs", nargs=-1, required=True, metavar="DIR|FILE...")],
            [
                Option(
                    ("--label",),
                    "labels",
                    "multiple",
                    metavar="KEY=VALUE",
                    help="A label for every profile added (repeatable); it wins over the profile's own and git's.",
                ),
                Option(
                    ("--no-git",),
                    "no_git",
                    "flag",
                    help="Do not label the profiles with the commit and branch of the git checkout here.",
                ),
                STORE_OPTION,
                *INPUT_OPTIONS,
            ],
        ),
        Command(
            "ls",
            ls,
            [Argument("selector", "str", default=None, required=False)],
            [
                Option(("--json",), "as_json", "flag", help="Every column and label of each profile, as JSON."),
                STORE_OPTION,
            ],
        ),
        Command(
            "get",
            get,
            [Argument("selector", "str")],
            [
                Option(("--mean",), "mean", "flag", help="The mean profile (sum / number of profiles) instead of the sum."),
                Option(("--to",), "to", metavar="FORMAT", help="Output format (default: from -o's extension, else folded)."),
                Option(("-o", "--output"), "output", "str", "-", "Where to write the profile.", show_default="stdout"),
                Option(("--no-header",), "no_header", "flag", help="Do not write '# key: value' metadata lines."),
                STORE_OPTION,
                CLUSTER_OPTION,
            ],
        ),
        Command(
            "gc",
            gc,
            [],
            [
                Option(
                    ("--keep-last",),
                    "keep_last",
                    "int",
                    minimum=1,
                    metavar="N",
                    help="Keep the N latest profiles of each branch.",
                ),
                Option(
                    ("--older-than",), "older_than", metavar="AGE", help="Remove profiles older than AGE (30d, 12h, 2w, 90m)."
                ),
                STORE_OPTION,
            ],
        ),
        Command("check", check, [], [STORE_OPTION]),
        Command("repair", repair, [], [STORE_OPTION]),
    ],
)
