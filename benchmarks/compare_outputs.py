"""How two ``compare`` (or ``fit``) output folders differ, file by file (issue 50: outputs identical, or
re-baselined with the difference shown).

    python benchmarks/compare_outputs.py A_DIR B_DIR [--label-a A] [--label-b B] [--rows 5] [--out FILE.md]

For every file in either folder: whether it is byte-identical, only in one, or different; for a CSV that differs,
its shape in each and, where both have the same rows and an ``id`` or first column to join on, the number of
rows that differ and the first ``--rows`` of them (the columns that differ only). Every line of the results file
is computed here.
"""

from __future__ import annotations

import argparse
import filecmp
from pathlib import Path

import pandas as pd


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def csv_difference(a: Path, b: Path, n_rows: int) -> list[str]:
    """Lines saying how two CSV tables differ."""
    x, y = pd.read_csv(a, low_memory=False), pd.read_csv(b, low_memory=False)
    lines = [f"  - shape {x.shape} against {y.shape}"]
    gone, new = sorted(set(x.columns) - set(y.columns)), sorted(set(y.columns) - set(x.columns))
    if gone or new:
        lines.append(f"  - columns only in the first: {gone or 'none'}; only in the second: {new or 'none'}")
    shared = [c for c in x.columns if c in y.columns]
    if len(x) != len(y) or not shared:
        return lines
    diff = [c for c in shared if not x[c].astype(str).equals(y[c].astype(str))]
    lines.append(f"  - columns that differ: {diff or 'none (the same values, written differently)'}")
    if diff:
        rows = (x[diff].astype(str) != y[diff].astype(str)).any(axis=1)
        lines.append(f"  - rows that differ: {int(rows.sum())} of {len(x)}")
        key = shared[0]
        for i in list(rows[rows].index)[:n_rows]:
            cells = "; ".join(f"{c}: {str(x.at[i, c])[:60]!r} -> {str(y.at[i, c])[:60]!r}" for c in diff[:4])
            lines.append(f"    - {key}={x.at[i, key]}: {cells}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--label-a", default="A")
    parser.add_argument("--label-b", default="B")
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    fa, fb = _files(args.a), _files(args.b)
    lines = [f"Outputs of {args.label_a} against {args.label_b}, file by file:", ""]
    for name in sorted(fa | fb):
        if name not in fb or name not in fa:
            lines.append(f"- `{name}`: only in {args.label_a if name in fa else args.label_b}")
        elif filecmp.cmp(args.a / name, args.b / name, shallow=False):
            lines.append(f"- `{name}`: identical")
        else:
            lines.append(f"- `{name}`: differs")
            if name.endswith(".csv"):
                lines += csv_difference(args.a / name, args.b / name, args.rows)
    text = "\n".join(lines) + "\n"
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
