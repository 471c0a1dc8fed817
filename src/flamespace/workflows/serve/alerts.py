"""Alerts: ``serve --watch SELECTOR --alert-webhook URL`` posts when a watched stack's level changes.

Every ``every`` seconds the watcher runs ``history`` (by window) over the latest ``windows`` windows
of each watched selector, and posts each change point it has not posted before to the webhook, as
JSON: the selector, the stack, its level before and after and the relative change (the size), the
permutation p-value, and the interval the change happened in (the last window at the old level and
the first at the new). Change points are tested as ``flamespace history`` tests them: a series
without a change reports one with probability at most α/m, so all m stacks of a check at most α.
What was posted is remembered while the server runs (a restart may post a change again).
"""

from __future__ import annotations

import json
import logging
import threading

from ..._record import Record, record
from . import ALERT_EVERY as EVERY
from . import ALERT_METRIC

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ...store import Store

#: The latest windows a check looks at (an hour of 10 s windows).
WINDOWS = 360
#: Stacks followed per selector (the largest).
TOP = 20
LOG = logging.getLogger("flamespace.serve.alerts")
#: How an alert of the normalised metric says what its levels are.
AT_LOAD = " at the typical load"


@record
class Alert(Record):
    """One change point of a watched selector's stack, as it is posted."""

    selector: str
    stack: str
    before: float
    after: float
    relative: float | None
    p: float
    last_before: str
    first_after: str
    unit: str
    #: the series the change was found in (``history --metric``)
    metric: str = "value"

    def document(self) -> dict[str, object]:
        """The webhook's JSON body (``text`` says it in one line, for chat webhooks)."""
        from ...core.units import human

        size = f"{self.relative:+.1%}" if self.relative is not None else "from 0"
        before, after = (human(value, self.unit, name_counts=True) for value in (self.before, self.after))
        return {
            "text": f"flamespace: {self.stack} changed {size} ({before} → {after} a window{AT_LOAD if self.metric == 'normalised' else ''}, "
            f"p = {self.p:.2g}) between {self.last_before} and {self.first_after} in {self.selector}",
            "selector": self.selector,
            "stack": self.stack,
            "before": self.before,
            "after": self.after,
            "relative": self.relative,
            "p": self.p,
            "interval": {"last_before": self.last_before, "first_after": self.first_after},
            "unit": self.unit,
            "metric": self.metric,
        }


def post_json(url: str, body: dict[str, object], timeout: float = 10.0) -> None:
    """POST ``body`` as JSON; an OSError when the webhook cannot be reached or answers an error."""
    import urllib.request

    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        answer.read()


class Watcher:
    """Checks ``selectors`` every ``every`` seconds (a thread: :meth:`start`, :meth:`stop`) and posts
    new change points with ``post`` (to ``webhook``)."""

    def __init__(
        self,
        store: Store,
        selectors: Sequence[str],
        webhook: str,
        every: float = EVERY,
        windows: int = WINDOWS,
        alpha: float | None = None,
        post: Callable[[str, dict[str, object]], None] = post_json,
        metric: str = ALERT_METRIC,
    ) -> None:
        from ...stats.history import check_metric
        from ...store import PREFIX, parse_selector

        check_metric(metric)  # at start, not in the watching thread
        self.store = store
        self.selectors = [parse_selector(s if s.startswith(PREFIX) else PREFIX + s) for s in selectors]  # bad: raised now
        self.webhook = webhook
        self.every = every
        self.windows = windows
        self.alpha = alpha
        self.post = post
        self.metric = metric
        self.posted: set[tuple[str, str, str]] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> list[Alert]:
        """One check of every watched selector: the alerts posted now (new change points)."""
        from ...stats import changepoint as cp
        from ...stats.history import analyse, shown_unit
        from ...store import StoreError
        from ...store.history import history

        sent: list[Alert] = []
        snapshot = self.store.snapshot()
        for chosen in self.selectors:
            text = chosen.text()
            try:
                ids = snapshot.select(chosen.replace(last=min(chosen.last or self.windows, self.windows)))
            except StoreError:
                continue  # nothing pushed yet for it
            report = analyse(history(snapshot, ids, "window", None, TOP), self.metric, self.alpha or cp.ALPHA)
            labels = report.history.points
            for stack in report.stacks:
                for change in stack.changes.points:
                    key = (text, stack.stack, change.label)
                    if key in self.posted:
                        continue
                    relative = (
                        change.relative if abs(change.relative) != float("inf") and change.relative == change.relative else None
                    )
                    alert = Alert(
                        text,
                        stack.stack,
                        change.before,
                        change.after,
                        relative,
                        change.p,
                        labels[change.index - 1],
                        change.label,
                        shown_unit(report) or "",
                        report.metric,
                    )
                    try:
                        self.post(self.webhook, alert.document())
                    except OSError as exc:
                        LOG.warning("flamespace serve: the alert webhook %s failed (%s); will try again", self.webhook, exc)
                        return sent
                    self.posted.add(key)
                    sent.append(alert)
        return sent

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="flamespace-serve-alerts", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.check()
            except Exception as exc:  # noqa: BLE001  # a check that fails must not end the watching
                LOG.warning("flamespace serve: checking the watched selectors failed: %s", exc)
