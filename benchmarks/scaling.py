"""How the cost and the shape of a default fit grow with the corpus: 10k, 50k, 200k, 1M "abstracts".

Base: the shared ICML + NeurIPS + ICLR abstracts (distinct texts), embedded once as a default
``icml-topics fit --cache-dir <cache-dir>`` embeds them (``<cache-dir>/embeddings.sqlite3``, the default path's
identity: ``...+int8-ct2`` from 1,000 papers); ``--cached-only`` uses only the texts already there. Each size
tiles the base with jittered copies (``v + sigma * noise``, renormalised; a copy keeps its original's text,
venue and year), and runs the fit's own stages after embedding (``fitting.FIT_STAGES`` through
``fitting.run_stages``, timed by its ``on_stage`` callback) in its own fresh Python process.

Per stage (the fit's own, plus ``knn`` on the large path: the NN-descent graph the theme rule reads, built
first and remembered; and ``map_wait``: the wait for the 2-D map its worker process draws while themes and tree
run): wall time, CPU time of **every process** (this one, every thread, and its children, with the reaped
children's CPU; the children's share shown apart), the mean load average, and the peak RSS of all processes
(psutil over the process tree, sampled every 0.2 s). The exponent ``b`` of ``time ~ a * n^b`` per stage (CPU:
each stage's own work; the map's: its worker's) over every size and from 50k up, the tree's shape at each size
(levels, nodes per level, median and max node size, median branching: children a node, the top level's: nodes
a theme; the share of nodes identical to their parent) and issue 51's targets, checked. The machine (``_machine.cpu_model``)
and its load are recorded. The taxonomy's theme texts are embedded with the model (every paper gets its theme
as in a real fit); keyphrase candidates by a deterministic stand-in (a hash-seeded unit vector; their count is
recorded), ``SCALING_KEYPHRASE_MODEL=real`` uses the model for them too. ``SCALING_PROFILE=<stage>`` writes a
cProfile of that stage (this process only) to ``--work``.

    python benchmarks/scaling.py --cache-dir C --cached-only --work W --sizes 10000 50000 200000
    python benchmarks/scaling.py --cache-dir C --work W --sizes 1000000 --append --timeout 3600  # adds a size
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from typing_extensions import Self

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import cpu_model  # noqa: E402

BASE_FILES = ("icml-2013-2024.jsonl.gz", "neurips-1987-2018.jsonl.gz", "iclr-2024-2025-areas.jsonl.gz")
SIGMA = 0.01  # per-dimension jitter of the copies: cosine ~0.98 to their original
STAGES = ("knn", "map", "themes", "tree", "map_wait", "state")  # knn, then the fit's own FIT_STAGES after embed
# map_wait: the wait for the 2-D map the fit's worker process draws while themes and tree run (resolved before the
# state stage); a stage of the benchmark only, so that the wait is not counted in the tree stage
BIG = 50_000  # the exponents the targets name are fitted from this size up
BELOW_THEMES = (
    "themes",
    "tree",
    "map_wait",
    "state",
)  # what --themes-max leaves out (the tree is built under the themes)
ABOVE_THEMES = tuple(s for s in STAGES if s not in BELOW_THEMES)
WITHOUT_THEMES = "total without themes and tree"


def tree_usage(own: bool = False) -> tuple[float, int]:
    """CPU seconds (user + system, with each process's reaped children) and resident memory of this process
    and every live descendant (``own``: the CPU seconds of this process alone, every thread)."""
    import psutil

    me = psutil.Process()
    if own:
        t = me.cpu_times()
        return t.user + t.system, me.memory_info().rss
    cpu, rss = 0.0, 0
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
            cpu += t.user + t.system + t.children_user + t.children_system
            rss += proc.memory_info().rss
        except psutil.Error:  # it ended between the listing and the reading: its CPU is in its parent's children
            continue
    return cpu, rss


class PeakRSS:
    """Peak resident memory of this process and its children (summed) while the ``with`` block runs (sampled)."""

    def __init__(self, every: float = 0.2) -> None:
        self._every, self.peak = every, 0
        self.loads: list[float] = []  # 1-minute load average, every 5 s

    def __enter__(self) -> Self:
        self._stop = threading.Event()
        self.peak = tree_usage()[1]
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        ticks = 0
        while not self._stop.wait(self._every):
            self.peak = max(self.peak, tree_usage()[1])
            if ticks % 25 == 0:
                self.loads.append(os.getloadavg()[0])
            ticks += 1

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_usage()[1])
        self.loads.append(os.getloadavg()[0])


# ----------------------------------------------------------------------------- base vectors
def prepare_base(data_dir: Path, cache_dir: Path, work: Path, cached_only: bool = False) -> dict:
    """Real texts + their vectors -> work/base.npy, work/base.parquet (kept: every size of a series uses the
    same base; delete the folder to refresh it).

    The vectors are what a default ``icml-topics fit --cache-dir <cache_dir>`` of the whole shared corpus
    stores (``<cache_dir>/embeddings.sqlite3``, the default path's identity, e.g. ``...+int8-ct2`` from 1,000
    papers): read from there, the texts not yet there embedded once, through the fit's own ``Embedder``
    (``cached_only``: only the texts already there are used)."""
    if (work / "base.json").exists():
        return json.loads((work / "base.json").read_text())

    from icml_topics.fit_config import FitConfig
    from icml_topics.fit_inputs import Embedder, read_flagged
    from icml_topics.fitted_tables import modelled_mask

    files = [data_dir / f for f in BASE_FILES if (data_dir / f).exists()]
    flagged = read_flagged([str(f) for f in files])
    ok = flagged[modelled_mask(flagged)]
    ok = ok.drop_duplicates("text").reset_index(drop=True)  # a paper in two corpora is one text
    embedder = Embedder(FitConfig.from_params({"cache": str(cache_dir), "verbose": True}), corpus_size=len(ok))
    distinct = len(ok)
    if cached_only:
        from icml_topics.embedding import EmbeddingCache, cached_model_identity

        identity = cached_model_identity(None, cache_dir)
        if embedder.path != "fp32":
            identity = f"{identity}+{embedder.path}"
        with EmbeddingCache(cache_dir) as store:
            found = store.get_many(identity, ok["text"].tolist(), dim=384)
        ok = ok[[v is not None for v in found]].reset_index(drop=True)
    t, c = time.perf_counter(), time.process_time()
    vectors = np.asarray(embedder(ok["text"].tolist(), documents=True), dtype=np.float32)
    rows = ok[["id", "venue", "year", "title", "abstract", "authors", "text"]].reset_index(drop=True)
    work.mkdir(parents=True, exist_ok=True)
    np.save(work / "base.npy", vectors)
    rows.assign(year=rows["year"].astype("Int64")).to_parquet(work / "base.parquet")
    info = {
        "real_vectors": len(rows),
        "distinct_texts": distinct,
        "files": [f.name for f in files],
        "embedding_path": embedder.path,
        "embedded": embedder.counts,
        "embedding_wall_s": round(time.perf_counter() - t, 1),
        "embedding_cpu_s_parent": round(time.process_time() - c, 1),
    }
    (work / "base.json").write_text(json.dumps(info))
    return info


def synthetic(work: Path, n: int, seed: int = 0):
    import pandas as pd

    base = np.load(work / "base.npy")
    rows = pd.read_parquet(work / "base.parquet")
    m = len(base)
    src = np.arange(n) % m
    emb = np.empty((n, base.shape[1]), dtype=np.float32)
    rng = np.random.default_rng(seed)
    for start in range(0, n, 65536):  # in chunks: memory stays at the vectors
        part = src[start : start + 65536]
        block = base[part] + SIGMA * rng.standard_normal((len(part), base.shape[1]), dtype=np.float32)
        first = np.arange(start, start + len(part)) < m
        block[first] = base[part[first]]  # the first copy is the real vector
        emb[start : start + len(part)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    table = rows.iloc[src].reset_index(drop=True)
    table["id"] = [f"{i}-{c}" for i, c in zip(table["id"], np.arange(n) // m)]
    return emb, table


def stand_in_embed(texts: list[str]) -> np.ndarray:
    """A deterministic unit vector per text (seeded by its hash): stands in for the model when keyphrase
    candidates are embedded (``SCALING_KEYPHRASE_MODEL=real`` uses the model)."""
    import hashlib

    out = np.empty((len(texts), 384), dtype=np.float32)
    for i, text in enumerate(texts):
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        out[i] = v / np.linalg.norm(v)
    return out


class BenchEmbed:
    """The fit's embedder (picklable: the keyphrase child receives it): the model, through the fit's own
    ``Embedder`` and the benchmark's cache, for the theme texts; the stand-in for keyphrase candidates (the
    tree stage) unless ``SCALING_KEYPHRASE_MODEL=real``. Counts the texts of each kind."""

    def __init__(self, cache_dir: Path, n: int) -> None:
        from icml_topics.fit_config import FitConfig
        from icml_topics.fitting import Embedder

        self.model = Embedder(FitConfig.from_params({"cache": str(cache_dir)}), corpus_size=n)
        self.real_phrases = os.environ.get("SCALING_KEYPHRASE_MODEL") == "real"
        self.stage = ""
        self.texts = {"model": 0, "stand_in": 0}
        self.seconds = [0.0, 0.0]  # wall and CPU (this process) spent embedding with the model

    def __call__(self, texts: list[str], **kwargs) -> np.ndarray:
        if self.stage == "tree" and not self.real_phrases:
            self.texts["stand_in"] += len(texts)
            return stand_in_embed(list(texts))
        self.texts["model"] += len(texts)
        t, c = time.perf_counter(), time.process_time()
        try:
            return self.model(list(texts), **kwargs)
        finally:
            self.seconds[0] += time.perf_counter() - t
            self.seconds[1] += time.process_time() - c


# ----------------------------------------------------------------------------- one size (child)
class StageTimer:
    """Per-stage wall and CPU time, load and peak RSS, driven by ``run_fit``'s ``on_stage`` callback: each
    call closes the stage before and opens the next; :meth:`close` ends the last. Embedding time spent in
    ``embedded`` (wall, CPU) is subtracted from the stage it falls in. ``SCALING_PROFILE=<stage>`` profiles one."""

    def __init__(self, result: dict, work: Path, n: int, embed: BenchEmbed) -> None:
        self.result, self.work, self.n, self.embed = result, work, n, embed
        self.embedded = embed.seconds
        self.open: tuple | None = None

    def __call__(self, name: str, line: str = "") -> None:
        self.close()
        self.embed.stage = name
        mem = PeakRSS().__enter__()
        self._ticking = threading.Event()
        threading.Thread(target=self._tick, args=(name, mem, self._ticking), daemon=True).start()
        prof = None
        if os.environ.get("SCALING_PROFILE") == name:  # cProfile this stage (its time is then inflated)
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        self.open = (
            name, mem, prof, self.embedded[0], self.embedded[1], time.perf_counter(), tree_usage()[0],
            tree_usage(own=True)[0],
        )  # fmt: skip

    def _tick(self, name: str, mem: PeakRSS, stop: threading.Event, every: float = 5.0) -> None:
        """Every ``every`` s while stage ``name`` runs: the partial file with the stage so far (``open``: its wall,
        CPU of every process and peak RSS until now), so a size stopped from outside still says where it was."""
        while not stop.wait(every):
            if self.open is None or self.open[0] != name:
                continue
            t, cpu = self.open[5], self.open[6]
            self.result["open"] = {
                "stage": name,
                "seconds": round(time.perf_counter() - t, 1),
                "cpu_s": round(tree_usage()[0] - cpu, 1),
                "peak_rss_gb": round(mem.peak / 2**30, 3),
            }
            (self.work / f"partial-{self.n}.json").write_text(json.dumps(self.result))

    def close(self) -> None:
        if self.open is None:
            return
        self._ticking.set()
        self.result.pop("open", None)
        name, mem, prof, before, before_cpu, t, cpu, own = self.open
        seconds, cpu, own = time.perf_counter() - t, tree_usage()[0] - cpu, tree_usage(own=True)[0] - own
        mem.__exit__(None, None, None)
        self.open = None
        if prof is not None:
            import io
            import pstats

            prof.disable()
            text = io.StringIO()
            pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(60)
            (self.work / f"profile-{name}-{self.n}.txt").write_text(text.getvalue())
        spent = self.embedded[0] - before
        self.result["stages"][name] = {
            "seconds": round(seconds - spent, 2),
            "cpu_s": round(cpu - (self.embedded[1] - before_cpu), 2),  # every process, every thread
            "child_cpu_s": round(max(cpu - own, 0.0), 2),  # of which the child processes' (the map's worker)
            "load": round(float(np.mean(mem.loads)), 2),  # mean 1-minute load average during the stage
            "peak_rss_gb": round(mem.peak / 2**30, 3),  # this process and its children, summed
            "embedding_s": round(spent, 2),
        }
        print(
            f"[n={self.n}] {name}: {seconds:.1f} s, CPU {cpu:.1f} s, load {np.mean(mem.loads):.1f}, "
            f"peak RSS {mem.peak / 2**30:.2f} GB",
            flush=True,
        )
        (self.work / f"partial-{self.n}.json").write_text(json.dumps(self.result))  # what a timeout leaves


def run_size(work: Path, n: int, cache_dir: Path, threshold: int, sample_size: int, themes_max: int) -> dict:
    """One size through the fit's own stages (``fitting.run_stages`` over ``FIT_STAGES``, on the stored
    vectors), each timed through ``on_stage``; the themes and tree stages are left out above ``themes_max``."""
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import FIT_STAGES, FitRun, FitStage, run_stages
    from icml_topics.stages.large import theme_neighbours
    from icml_topics.state import derive

    t0 = time.perf_counter()
    emb, table = synthetic(work, n)
    result = {"n": n, "synthesis_s": round(time.perf_counter() - t0, 1), "stages": {}}
    # cache=False: every stage computes (no map, keyphrase or tree cache hits between runs); the theme texts are
    # embedded by the model through the benchmark's embedding cache (BenchEmbed)
    config = FitConfig.from_params(
        {"random_state": 42, "cache": False, "large_corpus_threshold": threshold, "sample_size": sample_size}
    )
    embed = BenchEmbed(cache_dir, n)
    timer = StageTimer(result, work, n, embed)
    large = config.is_large(n)
    settings = config.theme_settings
    if large:  # the approximate graph the theme rule's neighbour vote reads (remembered for the themes stage)
        timer("knn")
        theme_neighbours(emb, settings.n_neighbors, random_state=config.seed)
        timer.close()
    # else: the theme rule computes its exact neighbours itself, inside the themes stage
    result["knn_method"] = "nn-descent" if large else "exact, in themes"
    wait = FitStage("map_wait", lambda run: None)  # the map is resolved before "state" starts: timed here
    order = [s for s in FIT_STAGES if s.name != "state"] + [wait] + [s for s in FIT_STAGES if s.name == "state"]
    stages = [s for s in order if s.name not in BELOW_THEMES or n <= themes_max]
    run = FitRun(config, embed, table.drop(columns=["text"]), given_embeddings=emb)
    run_stages(run, stages, on_stage=timer)
    if run.state is not None:
        derive(run.state)  # the tables, as TopicMap.fit builds them: timed with the state stage
    timer.close()
    for skipped in ("read", "embed"):  # reading the table and checking the given vectors: not a scaling stage
        result["stages"].pop(skipped, None)
    for name in BELOW_THEMES:
        result["stages"].setdefault(name, {"seconds": None, "peak_rss_gb": None})
    result["embedded_texts"] = dict(embed.texts)
    if run.state is not None:
        themes = np.asarray(run.themes.docs.theme, dtype=object)
        result["unthemed_share"] = round(float(np.mean([not t for t in themes])), 4)
        result["shape"] = tree_shape(run.state.tree, themes)
    result["total_s"] = round(sum(s["seconds"] or 0 for s in result["stages"].values()), 1)
    result["total_cpu_s"] = round(sum(s.get("cpu_s") or 0 for s in result["stages"].values()), 1)
    result["child_cpu_s"] = round(sum(s.get("child_cpu_s") or 0 for s in result["stages"].values()), 1)
    result["peak_rss_gb"] = max(s["peak_rss_gb"] or 0 for s in result["stages"].values())
    return result


def tree_shape(tree, themes: np.ndarray) -> list[dict]:
    """Per level of ``tree`` (coarsest first): nodes, median and max papers a node, median children a node of
    the level above (the top level's: nodes a theme) and the share of nodes holding exactly their parent's
    papers (the top level: their theme's)."""
    return level_shape(tree.labels[:, ::-1], themes)  # coarsest first


def level_shape(labels: np.ndarray, themes: np.ndarray) -> list[dict]:
    """``tree_shape`` of per-paper node ids, one column a level, coarsest first (-1: no node)."""
    out = []
    for lv in range(labels.shape[1]):
        col = labels[:, lv]
        rows = np.flatnonzero(col >= 0)
        if len(rows) == 0:
            continue
        nodes, first, sizes = np.unique(col[rows], return_index=True, return_counts=True)
        parent_col = (labels[:, lv - 1] if lv else themes).astype(str)[rows]
        parent = parent_col[first]
        names, parent_sizes = np.unique(parent_col, return_counts=True)
        same = sizes == parent_sizes[np.searchsorted(names, parent)]
        out.append(
            {
                "nodes": len(nodes),
                "median_size": float(np.median(sizes)),
                "max_size": int(sizes.max()),
                "median_branching": float(np.median(np.unique(parent, return_counts=True)[1])),
                "identical_to_parent": round(float(np.mean(same)), 3),
            }
        )
    return out


# ----------------------------------------------------------------------------- embedding throughput
def embedding_throughput(work: Path, n_texts: int) -> dict:
    """Docs/s of embed() in this process and of embed_distributed on LocalClusters of 1 and 2 workers."""
    import pandas as pd

    from icml_topics.embedding import embed
    from icml_topics.embedding.distributed import cluster_client, embed_distributed

    texts = pd.read_parquet(work / "base.parquet")["text"].tolist()[:n_texts]
    texts = [t + " (throughput run)" for t in texts]  # never cached anywhere: every text is embedded
    out = {"texts": len(texts), "precision": "bf16"}
    t = time.perf_counter()
    embed(texts, cache=False, precision="bf16", show_progress_bar=False)
    out["single_process_docs_s"] = round(len(texts) / (time.perf_counter() - t), 2)
    for workers in (1, 2):
        with cluster_client(workers=workers) as client:
            embed_distributed(texts[:32], client=client, cache=False, precision="bf16")  # model loaded on the workers
            t = time.perf_counter()
            embed_distributed(texts, client=client, cache=False, precision="bf16")
            out[f"dask_{workers}_workers_docs_s"] = round(len(texts) / (time.perf_counter() - t), 2)
    return out


# ----------------------------------------------------------------------------- report
def _stage_value(run: dict, stage_name: str, field: str) -> float | None:
    return (run["stages"].get(stage_name) or {}).get(field)


def _total(run: dict, field: str, stages: tuple[str, ...] = STAGES) -> float | None:
    values = [_stage_value(run, s, field) for s in stages]
    values = [0.0 if v is None and s == "knn" and run.get("knn_method", "").startswith("exact") else v
              for s, v in zip(stages, values)]  # fmt: skip
    return None if run.get("partial") or any(v is None for v in values) else float(sum(values))


def stage_cpu(run: dict, stage_name: str) -> float | None:
    """CPU seconds of one stage's work: this process's during the stage; the map's: its worker process's (the
    child processes' CPU over the whole fit, the map being the fit's one worker job) plus the submission."""
    if stage_name == "map_wait":
        return None
    cpu, child = _stage_value(run, stage_name, "cpu_s"), _stage_value(run, stage_name, "child_cpu_s")
    if cpu is None or child is None:
        return None
    if stage_name == "map":
        return cpu - child + sum(_stage_value(run, s, "child_cpu_s") or 0.0 for s in STAGES)
    return cpu - child


def exponents(runs: list[dict], field: str = "seconds", from_n: int = 0) -> dict:
    """``b`` of ``time ~ a * n^b`` per stage and for the total, fitted on log-log over the sizes measured from
    ``from_n`` up (``field``: wall ``seconds``, or ``cpu_s``: each stage's own work, ``stage_cpu``; the total:
    every process's). The total leaves out themes and tree when a size skipped them."""
    out = {}
    runs = [r for r in runs if r["n"] >= from_n]
    if field == "cpu_s":
        series = {s: [(r["n"], stage_cpu(r, s)) for r in runs] for s in STAGES if s != "map_wait"}
    else:
        series = {s: [(r["n"], _stage_value(r, s, field)) for r in runs] for s in STAGES if s not in ("map",)}
    series["total"] = [(r["n"], _total(r, field)) for r in runs]
    if sum(t is not None for _, t in series["total"]) < len(runs):
        series[WITHOUT_THEMES] = [(r["n"], _total(r, field, ABOVE_THEMES)) for r in runs]
    for name, pairs in series.items():
        pairs = [(n, t) for n, t in pairs if t]
        if len(pairs) >= 2:
            b, _a = np.polyfit(np.log([p[0] for p in pairs]), np.log([p[1] for p in pairs]), 1)
            out[name] = round(float(b), 2)
    return out


def _exponent_table(title: str, exps: dict) -> list[str]:
    return [
        "",
        title,
        "",
        "| " + " | ".join(exps) + " |",
        "|" + "---|" * len(exps),
        "| " + " | ".join(str(v) for v in exps.values()) + " |",
    ]


def shape_table(runs: list[dict]) -> list[str]:
    """The tree's shape at each size: one row per level."""
    rows = [r for r in runs if r.get("shape")]
    if not rows:
        return []
    lines = [
        "",
        "The tree's shape (levels coarsest first; branching: median children a node of the level above, the top "
        "level's: nodes a theme; identical: share of nodes holding exactly their parent's papers, the top level's: "
        "their theme's). Embedded texts: by the model (theme texts), by the stand-in (keyphrase candidates):",
        "",
        "| n | level | nodes | median size | max size | median branching | identical | embedded texts |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        texts = r.get("embedded_texts", {})
        for lv, level in enumerate(r["shape"]):
            lines.append(
                f"| {r['n']:,} | {lv + 1} of {len(r['shape'])} | {level['nodes']:,} | {level['median_size']:g} | "
                f"{level['max_size']:,} | {level['median_branching']:g} | {level['identical_to_parent']:.1%} | "
                + (f"{texts.get('model', 0):,} model, {texts.get('stand_in', 0):,} stand-in |" if lv == 0 else " |")
            )
    return lines


def target_checks(runs: list[dict]) -> list[str]:
    """Issue 51's targets, size by size, from the measured values: the finest median node 10-60 papers, every
    level's median branching 3-20, no level over 60% of nodes identical to their parent; at 1M the fit after
    embedding <= 45 min wall and <= 16 GB (all processes); at 200k <= 4.2 GB x 1.25."""
    rows = [r for r in runs if r.get("shape")]
    if not rows:
        return []
    lines = [
        "",
        "Issue 51's targets, checked on the values above (wall and memory targets at the sizes they name; the "
        "wall target is for a quiet machine: see the load column):",
        "",
        "| n | finest median (10-60) | median branching per level (3-20) | most identical (<= 60%) | "
        "fit wall | peak RSS | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        shape = r["shape"]
        finest = shape[-1]["median_size"]
        branching = [lv["median_branching"] for lv in shape]
        identical = max(lv["identical_to_parent"] for lv in shape)
        ok = 10 <= finest <= 60 and all(3 <= b <= 20 for b in branching) and identical <= 0.6
        wall = _total(r, "seconds")
        rss = r["peak_rss_gb"]
        if r["n"] == 1_000_000:
            ok = ok and wall is not None and wall <= 45 * 60 and rss <= 16
        if r["n"] == 200_000:
            ok = ok and rss <= 4.2 * 1.25
        lines.append(
            f"| {r['n']:,} | {finest:g} | {', '.join(f'{b:g}' for b in branching)} | {identical:.1%} | "
            + (f"{wall / 60:.1f} min" if wall is not None else "n/a")
            + f" | {rss:.2f} GB | {'yes' if ok else 'NO'} |"
        )
    return lines


def _without_map(stages: dict) -> dict:
    """A stopped size's finished stages less the map (its worker's CPU, counted through the later stages, is
    incomplete when the size stops before the state)."""
    return {k: v for k, v in stages.items() if k not in ("map", "map_wait")}


def extrapolation(runs: list[dict], payload: dict) -> list[str]:
    """Each stage's CPU seconds at ``extrapolate_to`` papers (when not measured): from the two largest sizes
    that measured the stage (a stopped size's finished stages count), with the exponent between them; and what
    that means for the wall on this machine's cores (CPU / cores: the least wall time if every core were busy)."""
    target = payload.get("extrapolate_to")
    if not target or any(r["n"] == target and "stages" in r for r in payload["runs"]):
        return []
    stopped = [
        {"n": r["n"], "stages": _without_map(r["finished"]), "partial": True}
        for r in payload["runs"]
        if r.get("finished") and "stages" not in r
    ]
    every = sorted([*runs, *stopped], key=lambda r: r["n"])
    cores = os.cpu_count() or 1
    parts, total = [], 0.0
    for st in STAGES:
        measured = [r for r in every if st != "map_wait" and stage_cpu(r, st)]
        if len(measured) < 2:
            continue
        before, last = measured[-2], measured[-1]
        b = exponents([before, last], "cpu_s").get(st)
        if b is None:
            continue
        est = stage_cpu(last, st) * (target / last["n"]) ** b
        total += est
        parts.append(f"{st} ~{est:,.0f} s (b {b} over {before['n']:,}-{last['n']:,})")
    if not parts:
        return []
    return [
        "",
        f"EXTRAPOLATED (not measured) to n = {target:,}: each stage's CPU seconds from the largest size that "
        "measured it, with its CPU exponent between the two largest: " + "; ".join(parts) + f". Together "
        f"~{total:,.0f} CPU s: at least ~{total / cores / 60:,.0f} min wall on {cores} fully used cores, against the "
        "target of 45 min.",
    ]


def write_report(out: Path, payload: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scaling.json").write_text(json.dumps(payload, indent=2))
    runs = sorted((r for r in payload["runs"] if "stages" in r), key=lambda r: r["n"])
    base = payload["base"]
    lines = [
        "# Scaling: cost and tree shape of a default fit after embedding (stored vectors)",
        "",
        f"Machine: {payload['machine']}; load average (1, 5, 15 min) at start "
        f"{', '.join(f'{x:.1f}' for x in payload['load_start'])}, at end "
        f"{', '.join(f'{x:.1f}' for x in payload['load_end'])}"
        " (a machine shared with other jobs: wall times move with their load; CPU times less).",
        (
            f"Base: {base['real_vectors']:,} real abstracts ({', '.join(base.get('files', []))}; "
            f"{base.get('distinct_texts', base['real_vectors']):,} distinct texts, those in the cache used), embedded "
            f"as a default fit stores them (path `{base.get('embedding_path', '?')}`), tiled with jittered copies "
            f"(sigma {SIGMA}). Sizes run: {', '.join(f'{r[chr(110)]:,}' for r in runs) or 'none'}. "
            "Commands, in order: " + "; ".join(f"`{c}`" for c in payload.get("commands", [payload["command"]]))
        ),
        "",
        "Per stage: wall seconds; CPU seconds of every process (this one, every thread, and its children: the "
        "worker that draws the 2-D map while themes and tree run), of which the children's; the mean 1-minute load "
        "average during the stage; the peak RSS of all processes, summed. `map`: handing the map to the worker; "
        "`map_wait`: waiting for it after the tree; `state`: the fitted state and its tables (`derive`). "
        "Total: the fit after embedding, wall and CPU of all processes; themed: the share of papers with a theme.",
        "",
        "| n | stage | wall s | CPU s (all processes) | of which children | load | peak RSS GB |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        for st in STAGES:
            v = r["stages"].get(st) or {}
            if v.get("seconds") is None:
                lines.append(
                    f"| {r['n']:,} | {st} | "
                    + ("in themes (exact) |  |  |  |  |" if st == "knn" else "not run |  |  |  |  |")
                )
                continue
            lines.append(
                f"| {r['n']:,} | {st} | {v['seconds']:.1f} | {v.get('cpu_s', float('nan')):.1f} | "
                f"{v.get('child_cpu_s', float('nan')):.1f} | {v.get('load', float('nan')):.1f} | "
                f"{v['peak_rss_gb']:.2f} |"
            )
        wall, cpu = _total(r, "seconds"), _total(r, "cpu_s")
        themed = f"{1 - r['unthemed_share']:.1%}" if r.get("unthemed_share") is not None else "n/a"
        lines.append(
            f"| **{r['n']:,}** | **total** ({r['knn_method']} kNN; themed {themed}) | "
            f"**{wall:.0f}** = {wall / 60:.1f} min | **{cpu:.0f}** | {r.get('child_cpu_s', 0):.0f} | | "
            f"**{r['peak_rss_gb']:.2f}** |"
            if wall is not None and cpu is not None
            else f"| **{r['n']:,}** | total | n/a | | | | {r['peak_rss_gb']:.2f} |"
        )
    for r in payload["runs"]:
        if "error" in r:
            lines.append(f"| {r['n']:,} | {r['error']} |")
    big = [r for r in runs if r["n"] >= BIG]
    if len(runs) >= 2:
        lines += _exponent_table(
            "Fitted exponent b of CPU time ~ n^b over every size (each stage's own work: this process's CPU during "
            "the stage; the map's: its worker's; total: all processes):",
            exponents(runs, "cpu_s"),
        )
        lines += _exponent_table("Fitted exponent b of wall time ~ n^b over every size:", exponents(runs))
    if len(big) >= 2:
        lines += _exponent_table(
            f"The same from {BIG:,} up (the target: every stage <= 1.1), CPU:", exponents(big, "cpu_s", BIG)
        )
        lines += _exponent_table("And wall, from the same sizes:", exponents(big, "seconds", BIG))
    stopped = [
        {"n": r["n"], "stages": _without_map(r["finished"]), "partial": True, "knn_method": r.get("knn_method", "")}
        for r in payload["runs"]
        if r.get("finished") and "stages" not in r
    ]
    if stopped and big:
        lines += _exponent_table(
            f"With the stages that the stopped size{'s' if len(stopped) > 1 else ''} "
            f"({', '.join(f'{r[chr(110)]:,}' for r in stopped)}) finished, CPU from {BIG:,} up (a stage it did not "
            "finish has no exponent here):",
            exponents(sorted(big + stopped, key=lambda r: r["n"]), "cpu_s", BIG),
        )
    lines += shape_table(runs)
    lines += target_checks(runs)
    lines += extrapolation(runs, payload)
    for note in payload.get("notes", []):
        lines += ["", note]
    if payload.get("embedding"):
        e = payload["embedding"]
        lines += [
            "",
            (
                f"Embedding throughput ({e['texts']} uncached texts, {e['precision']}): one process "
                f"{e['single_process_docs_s']} docs/s; Dask LocalCluster 1 worker {e['dask_1_workers_docs_s']} docs/s, "
                f"2 workers {e['dask_2_workers_docs_s']} docs/s."
            ),
        ]
    (out / "scaling.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def stopped_run(n: int, why: str, partial: Path) -> dict:
    """The row of a size stopped before its end (``why``: timeout, the exit status), from its partial file: the
    stages it finished and, where it says, the stage it was in (its wall, CPU and peak RSS until the last tick)."""
    done = json.loads(partial.read_text()) if partial.exists() else {"stages": {}}
    finished = {k: v for k, v in done["stages"].items() if k in STAGES}
    run = {"n": n, "finished": finished, "knn_method": done.get("knn_method", "")}
    error = why
    if done.get("open"):
        run["stopped_in"] = st = done["open"]
        error += (
            f"; stopped in {st['stage']} after {st['seconds']:.0f} s wall, {st['cpu_s']:.0f} s CPU, "
            f"peak RSS so far {st['peak_rss_gb']:.2f} GB"
        )
    run["error"] = (
        error
        + "; finished stages: "
        + ", ".join(
            f"{k} {v['seconds']:.0f} s wall, {v.get('cpu_s', 0):.0f} s CPU ({v['peak_rss_gb']:.2f} GB)"
            for k, v in finished.items()
        )
    )
    return run


def main() -> None:
    from icml_topics.fit_config import FitConfig

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000, 200_000])
    p.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=Path("~/.cache/icml_topics/embeddings").expanduser(),
        help="the folder given to `icml-topics fit --cache-dir` (its embeddings.sqlite3); default: the default cache",
    )
    p.add_argument("--note", action="append", default=[], help="a line added to the results file")
    p.add_argument(
        "--cached-only", action="store_true", help="build the base from the texts already in --cache-dir only"
    )
    p.add_argument("--work", type=Path, default=Path("/tmp/icml-topics-scaling"))
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    p.add_argument("--timeout", type=float, default=3600)
    p.add_argument("--embed-texts", type=int, default=0)
    defaults = FitConfig.defaults()  # the library's own defaults
    p.add_argument(
        "--threshold", type=int, default=defaults["large_corpus_threshold"], help="TopicMap(large_corpus_threshold=)"
    )
    p.add_argument("--sample-size", type=int, default=defaults["sample_size"], help="TopicMap(sample_size=)")
    p.add_argument("--themes-max", type=int, default=10**9, help="skip the themes and tree stages above this size")
    p.add_argument("--extrapolate-to", type=int, default=1_000_000)
    p.add_argument("--append", action="store_true", help="keep the runs of an earlier scaling.json")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    p.add_argument(
        "--report-only", action="store_true", help="rewrite scaling.md from --out's scaling.json (notes: --note)"
    )
    args = p.parse_args()
    if args.report_only:  # e.g. after a size was stopped: the notes say which sizes ran
        payload = json.loads((args.out / "scaling.json").read_text())
        payload["notes"] = list(args.note) or payload.get("notes", [])
        for run in payload["runs"]:  # a size stopped from outside: the stages it finished, from its partial file
            partial = args.work / f"partial-{run['n']}.json"
            if "error" in run and "finished stages" not in run["error"] and partial.exists():
                run.update(stopped_run(run["n"], run["error"], partial))
        write_report(args.out, payload)
        return
    if args.child:
        result = run_size(args.work, args.child, args.cache_dir, args.threshold, args.sample_size, args.themes_max)
        (args.work / f"result-{args.child}.json").write_text(json.dumps(result))
        return

    payload = {
        "command": "python " + " ".join(sys.argv[1:] and ["benchmarks/scaling.py", *sys.argv[1:]]),
        "load_start": os.getloadavg()[:3],
        "runs": [],
        "extrapolate_to": args.extrapolate_to,
    }
    payload["notes"] = list(args.note)
    old = args.out / "scaling.json"
    if args.append and old.exists():
        earlier = json.loads(old.read_text())
        payload["runs"], payload["embedding"] = earlier["runs"], earlier.get("embedding")
        payload["notes"] = earlier.get("notes", []) + payload["notes"]  # an appended size keeps what was said
        payload["commands"] = earlier.get("commands", [earlier["command"]]) + [payload["command"]]
        payload["load_start"] = earlier.get("load_start", payload["load_start"])  # the series' start
    payload["machine"] = (
        f"{cpu_model()}, {os.cpu_count()} CPUs, "
        f"{round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GB RAM"
    )
    payload["base"] = prepare_base(args.data_dir, args.cache_dir, args.work, args.cached_only)
    print(f"base: {payload['base']}", flush=True)
    for n in args.sizes:
        payload["runs"] = [r for r in payload["runs"] if r["n"] != n]
        cmd = [
            sys.executable,
            __file__,
            "--child",
            str(n),
            "--work",
            str(args.work),
            "--cache-dir",
            str(args.cache_dir),
            "--threshold",
            str(args.threshold),
            "--sample-size",
            str(args.sample_size),
            "--themes-max",
            str(args.themes_max),
        ]
        done = args.work / f"result-{n}.json"
        done.unlink(missing_ok=True)
        (args.work / f"partial-{n}.json").unlink(missing_ok=True)
        try:
            proc = subprocess.run(cmd, check=False, timeout=args.timeout, env={**os.environ, "PYTHONPATH": str(REPO)})
            payload["runs"].append(
                json.loads(done.read_text())
                if done.exists()
                else stopped_run(n, f"failed (exit {proc.returncode})", args.work / f"partial-{n}.json")
            )
        except subprocess.TimeoutExpired:
            payload["runs"].append(
                stopped_run(n, f"timeout after {args.timeout:.0f} s", args.work / f"partial-{n}.json")
            )
        payload["load_end"] = os.getloadavg()[:3]
        write_report(args.out, payload)
    if args.embed_texts:
        payload["embedding"] = embedding_throughput(args.work, args.embed_texts)
    payload["load_end"] = os.getloadavg()[:3]
    measured = sorted((r for r in payload["runs"] if "stages" in r), key=lambda r: r["n"])
    payload["exponents"] = exponents(measured)
    payload["cpu_exponents"] = exponents(measured, "cpu_s")
    payload["cpu_exponents_from_50k"] = exponents(measured, "cpu_s", BIG)
    write_report(args.out, payload)


if __name__ == "__main__":
    main()
