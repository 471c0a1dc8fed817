"""What a reader skipped or doubted, or a renderer warned of, collected for the caller to report (the library never prints)."""

from __future__ import annotations

from ._record import Record, factory, record


@record(frozen=False)
class Diagnostics(Record):
    """Counts skipped input and keeps the first few examples, with where they were; warnings;
    ``empty``: there was nothing to draw (a renderer drew a picture that says so)."""

    max_examples: int = 5
    skipped: int = 0
    examples: list[tuple[str, int | None, str]] = factory(list)
    warnings: list[str] = factory(list)
    empty: bool = False

    def skip(self, source: str, line: int | None, reason: str) -> None:
        self.skipped += 1
        if len(self.examples) < self.max_examples:
            self.examples.append((source, line, reason))

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def messages(self) -> list[str]:
        """Human-readable lines: warnings, then a summary of what was skipped."""
        lines = list(self.warnings)
        if self.skipped:
            lines.append(f"skipped {self.skipped} invalid line{'s' if self.skipped != 1 else ''}")
            for source, line, reason in self.examples:
                lines.append(f"  {source}:{line}: {reason}" if line else f"  {source}: {reason}")
            if self.skipped > len(self.examples):
                lines.append(f"  ... and {self.skipped - len(self.examples)} more")
        return lines
