"""Wall seconds of each stage of runs, from their progress lines (``[  12.3s] reading the corpus``), side by side.

    python benchmarks/progress_stages.py LOG [LOG ...]

A stage is a progress line that is not a heartbeat (``..., N s so far``); its seconds run to the next stage's
line. Prints a Markdown table, one column per log.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_LINE = re.compile(r"^\[\s*([\d.]+)s\] (.*)$")


def stages(log: Path) -> list[tuple[str, float]]:
    """(stage, wall seconds) in the order of the log."""
    marks = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _LINE.match(line)
        if m and not m.group(2).endswith("so far"):
            marks.append((float(m.group(1)), m.group(2)[:60]))
    ends = [t for t, _ in marks[1:]]
    return [(name, end - t) for (t, name), end in zip(marks, ends, strict=False)]


def main() -> None:
    logs = [Path(a) for a in sys.argv[1:]]
    runs = [dict(stages(p)) for p in logs]
    names = list(dict.fromkeys(n for r in runs for n in r))
    print("| stage | " + " | ".join(p.stem for p in logs) + " |")
    print("|---|" + "--:|" * len(logs))
    for n in names:
        print(f"| {n} | " + " | ".join(f"{r[n]:.1f}" if n in r else "" for r in runs) + " |")


if __name__ == "__main__":
    main()
