"""The tree stage alone at one corpus size, part by part: where its CPU and memory go (issue 51).

``benchmarks/scaling.py`` times the whole fit after embedding; at 200,000 papers on a shared 2-core machine that
takes longer than a session has. This runs only the fit's tree stage (``fit_tree.topic_tree``, as the fit calls
it) on the same tiled vectors as ``scaling.py`` (its ``--work`` folder's base, ``scaling.synthetic``), and
reports the CPU seconds of every process and the peak RSS of the process tree for the stage and for each of its
parts as it ends: the consensus trees of the themes (``_theme_levels``), the new subjects, the keyphrases
(``represent_levels``), the representatives, the keyphrase names, the sibling names and their repair, the
membership. Keyphrase candidates are embedded by ``scaling.py``'s stand-in.

Themes: each paper's theme is its base paper's (a tiled copy keeps its original's theme), the base's themes
assigned once by the fit's own read, embed and themes stages on the base (kept as ``<work>/themes-<m>.npy``).
Not the themes stage of the tiled corpus itself (that costs ~340 CPU s at 200,000): the theme sizes are the
base's, scaled. What runs before the tree in a fit (the map's worker process, the themes stage's memory) is not
here: the peak RSS is the tree stage's own process tree over what reading and embedding left.

    python benchmarks/tree_stage_parts.py --work /tmp/s7-work --cache-dir /work/.scale-cache/cache --n 200000
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import scaling  # noqa: E402


def base_themes(work: Path, cache_dir: Path) -> np.ndarray:
    """Each base paper's theme as the fit's themes stage assigns it (computed once, kept in ``work``)."""
    m = len(np.load(work / "base.npy", mmap_mode="r"))
    path = work / f"themes-{m}.npy"
    if not path.exists():
        from icml_topics.fit_config import FitConfig
        from icml_topics.fitting import FIT_STAGES, FitRun, run_stages

        emb, table = scaling.synthetic(work, m)
        config = FitConfig.from_params({"random_state": 42, "cache": False})
        run = FitRun(config, scaling.BenchEmbed(cache_dir, m), table.drop(columns=["text"]), given_embeddings=emb)
        run_stages(run, [s for s in FIT_STAGES if s.name in ("read", "embed", "themes")])
        np.save(path, np.asarray(run.themes.docs.theme, dtype=object).astype(str))
    return np.load(path, allow_pickle=True)


class OpenParts:
    """The process tree's RSS sampled every ``every`` s: for each part running (``enter`` .. ``leave``), the RSS
    when it started and the most seen while it ran (its own peak, not the stage's so far)."""

    def __init__(self, every: float = 0.2) -> None:
        import threading

        self.open: dict[str, list[int]] = {}  # part -> [rss at its start, its peak]
        self._lock, self._stop = threading.Lock(), threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self._sample()

    def _sample(self) -> None:
        rss = scaling.tree_usage()[1]
        with self._lock:
            for seen in self.open.values():
                seen[1] = max(seen[1], rss)

    def enter(self, name: str) -> None:
        rss = scaling.tree_usage()[1]
        with self._lock:
            self.open[name] = [rss, rss]

    def leave(self, name: str) -> tuple[int, int]:
        self._sample()
        with self._lock:
            start, peak = self.open.pop(name)
        return start, peak

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def timed_parts(parts: dict, mem: scaling.PeakRSS, during: OpenParts) -> None:
    """Wrap each part of the tree stage so that its wall, CPU (every process), the RSS at its start, its own
    peak RSS and the stage's peak so far at its end are kept."""
    import icml_topics.fit_tree as fit_tree
    import icml_topics.stages.hierarchy as hierarchy
    import icml_topics.stages.tree as tree
    import icml_topics.stages.tree_names as tree_names

    def wrap(module, name: str) -> None:
        inner = getattr(module, name)

        @functools.wraps(inner)
        def outer(*args, **kwargs):
            t, cpu = time.perf_counter(), scaling.tree_usage()[0]
            during.enter(name)
            try:
                return inner(*args, **kwargs)
            finally:
                start, peak = during.leave(name)
                seen = parts.setdefault(name, {"calls": 0, "wall_s": 0.0, "cpu_s": 0.0})
                seen["rss_start_gb"] = min(seen.get("rss_start_gb", 1e9), round(start / 2**30, 2))
                seen["peak_rss_in_part_gb"] = max(seen.get("peak_rss_in_part_gb", 0.0), round(peak / 2**30, 2))
                seen["calls"] += 1
                seen["wall_s"] = round(seen["wall_s"] + time.perf_counter() - t, 1)
                seen["cpu_s"] = round(seen["cpu_s"] + scaling.tree_usage()[0] - cpu, 1)
                seen["peak_rss_gb_so_far"] = round(mem.peak / 2**30, 2)
                print(f"  {name}: {seen}, load {os.getloadavg()[0]:.1f}", flush=True)

        setattr(module, name, outer)

    for module, name in [
        (hierarchy, "_theme_levels"),
        (tree, "new_subject_levels"),
        (fit_tree, "represent_levels"),
        (fit_tree, "represent"),
        (tree, "representative_order"),
        (tree, "name_topics"),
        (tree_names, "group_names"),
        (tree_names, "repair_names"),
        (tree_names, "name_levels"),
        (tree, "node_similarity"),
    ]:
        wrap(module, name)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, required=True, help="scaling.py's --work folder (its base.npy, base.parquet)")
    p.add_argument("--cache-dir", type=Path, required=True, help="scaling.py's --cache-dir (the theme texts' vectors)")
    p.add_argument("--n", type=int, default=200_000)
    p.add_argument("--levels-only", action="store_true", help="only the hierarchy (fit_levels), not the whole stage")
    args = p.parse_args()
    from icml_topics.fit_config import FitConfig
    from icml_topics.fit_tree import topic_tree
    from icml_topics.fitting import FIT_STAGES, FitRun, run_stages

    themes = base_themes(args.work, args.cache_dir)
    emb, table = scaling.synthetic(args.work, args.n)
    themes = themes[np.arange(args.n) % len(themes)].tolist()
    config = FitConfig.from_params({"random_state": 42, "cache": False})
    embed = scaling.BenchEmbed(args.cache_dir, args.n)
    run = FitRun(config, embed, table.drop(columns=["text"]), given_embeddings=emb)
    run_stages(run, [s for s in FIT_STAGES if s.name in ("read", "embed")])
    embed.stage = "tree"  # keyphrase candidates: the stand-in
    parts: dict = {}
    during = OpenParts()
    with scaling.PeakRSS() as mem:
        timed_parts(parts, mem, during)
        before = scaling.tree_usage()[1] / 2**30
        t, cpu = time.perf_counter(), scaling.tree_usage()[0]
        if args.levels_only:
            from icml_topics.stages.hierarchy import fit_levels
            from icml_topics.stages.tree import NO_THEME

            groups = [str(x) if x else NO_THEME for x in themes]
            labels = fit_levels(run.embeddings, groups, config.hierarchy_settings(args.n))[0][:, ::-1]
        else:
            labels = topic_tree(config, run.texts, run.embeddings, embed, run.flagged.loc[run.ok], themes).labels
        wall, cpu = time.perf_counter() - t, scaling.tree_usage()[0] - cpu
    during.stop()
    result = {
        "n": args.n,
        "machine": scaling.cpu_model(),
        "rss_before_gb": round(before, 2),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_rss_gb": round(mem.peak / 2**30, 2),
        "load": round(float(np.mean(mem.loads)), 1),
        "parts": parts,
        "embedded_texts": embed.texts,
        "shape": scaling.level_shape(labels[:, ::-1], np.asarray(themes, dtype=object)),
        "levels_only": args.levels_only,
    }
    print(json.dumps(result, indent=1))
    (args.work / f"tree-stage-{args.n}{'-levels' if args.levels_only else ''}.json").write_text(
        json.dumps(result, indent=1)
    )


if __name__ == "__main__":
    main()
