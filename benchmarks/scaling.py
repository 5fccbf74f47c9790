"""How the cost of each stage grows with the corpus: 10k, 50k, 200k, 1M "abstracts".

Stages after embedding run on stored vectors: the real embeddings of the shared corpora, read from
the embedding cache (``--cache-dir``; only texts already cached there are used), tiled with jittered
copies (``v + sigma * noise``, renormalised; the copy keeps its original's text, venue and year) up
to each size. Every size runs in its own fresh Python process, so its peak RSS is its own. Per stage:
wall time, CPU time of the process (all threads: on a shared machine it moves less with the others'
load than wall time), the mean load average during the stage and peak RSS (sampled every 0.2 s), then
the exponent ``b`` of ``time ~ a * n^b`` fitted over the sizes (least squares on log-log), for wall
and CPU time. ``SCALING_PROFILE=<stage>`` writes a cProfile of that stage to ``--work``. Optionally
(``--embed-texts N``) embedding throughput of one process vs. a Dask ``LocalCluster`` of 1 and 2
workers on ``N`` uncached texts.

    python benchmarks/scaling.py --sizes 10000 50000 200000 --out benchmarks/results
    python benchmarks/scaling.py --sizes 1000000 --out benchmarks/results --append     # when time allows
    python benchmarks/scaling.py --sizes --embed-texts 256 --out benchmarks/results --append

Keyphrase candidates and theme texts (a few thousand short texts, independent of n, cached in real
use) are embedded by a deterministic stand-in (a hash-seeded unit vector), not the model: embedding
cost is measured apart (``--embed-texts``), and this time is recorded as ``embedding_s`` and left out
of the stage times. ``SCALING_KEYPHRASE_MODEL=real`` uses the model instead.

Stages: ``knn`` (from the large-corpus threshold: the NN-descent graph the theme rule's neighbour vote
reads, ``stages.large.theme_neighbours``, kept for the themes stage; below it the exact graph, timed
only: the exact rule finds its neighbours itself), ``map`` (the 2-D map: UMAP, or t-SNE for a small
corpus; sample-and-place from the threshold, ``stages.large.project_large``), ``themes`` (the theme rule
over all papers), ``tree`` (the hierarchy under the themes, each level's keyphrases through
``fit_tree.represent`` (BERTopic c-TF-IDF + KeyBERT-style keyphrases), the names; then the tables,
``state.derive``). After ``knn`` the stages are the fit's own (``fitting.FIT_STAGES`` run by
``fitting.run_stages``), timed through its ``on_stage`` callback. The tree needs the themes, so
``--themes-max`` leaves out both above its size. Runs measured with the earlier stages (``reduce_cluster``,
``represent``, ``naming``, ``themes``; the committed ``results/scaling.md``) show ``map`` and ``tree`` as
not run when ``--append`` keeps them: measure every size again rather than mix the two.
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

SIGMA = 0.01  # per-dimension jitter of the copies: cosine ~0.98 to their original
STAGES = ("knn", "map", "themes", "tree")  # knn, then the fit's own (FIT_STAGES after read and embed)
BELOW_THEMES = ("themes", "tree", "state")  # what --themes-max leaves out (the tree is built under the themes)
ABOVE_THEMES = tuple(s for s in STAGES if s not in BELOW_THEMES)
WITHOUT_THEMES = "total without themes and tree"


class PeakRSS:
    """Peak resident memory of this process while the ``with`` block runs (sampled)."""

    def __init__(self, every: float = 0.2) -> None:
        import psutil

        self._proc, self._every, self.peak = psutil.Process(), every, 0
        self.loads: list[float] = []  # 1-minute load average, every 5 s

    def __enter__(self) -> Self:
        self._stop = threading.Event()
        self.peak = self._proc.memory_info().rss
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        ticks = 0
        while not self._stop.wait(self._every):
            self.peak = max(self.peak, self._proc.memory_info().rss)
            if ticks % 25 == 0:
                self.loads.append(os.getloadavg()[0])
            ticks += 1

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)
        self.loads.append(os.getloadavg()[0])


# ----------------------------------------------------------------------------- base vectors
def prepare_base(data_dir: Path, cache_dir: Path, work: Path) -> dict:
    """Real texts + their cached vectors -> work/base.npy, work/base.parquet (kept: every size of a
    series uses the same base; delete the folder to refresh it)."""
    if (work / "base.json").exists():
        return json.loads((work / "base.json").read_text())

    from icml_topics.corpus import read_corpus
    from icml_topics.corpus.validation import flag_rows
    from icml_topics.embedding import EmbeddingCache, cached_model_identity

    files = [
        data_dir / f
        for f in ("icml-2013-2024.jsonl.gz", "neurips-1987-2018.jsonl.gz", "icml-2026-seed-abstracts.jsonl")
    ]
    flagged = flag_rows(read_corpus([str(f) for f in files if f.exists()]), prepend_title=True)
    ok = flagged[flagged["status"] == "ok"].reset_index(drop=True)
    folder = cache_dir / "embeddings"
    model_id = cached_model_identity(None, folder)
    with EmbeddingCache(folder) as store:
        found = store.get_many(model_id, ok["text"].tolist(), dim=384)
    keep = [i for i, v in enumerate(found) if v is not None]
    vectors = np.stack([found[i] for i in keep]).astype(np.float32)
    rows = ok.iloc[keep][["id", "venue", "year", "title", "abstract", "authors", "text"]].reset_index(drop=True)
    work.mkdir(parents=True, exist_ok=True)
    np.save(work / "base.npy", vectors)
    rows.assign(year=rows["year"].astype("Int64")).to_parquet(work / "base.parquet")
    info = {"real_vectors": len(keep), "corpus_rows": len(ok), "model": model_id}
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
    """A deterministic unit vector per text (seeded by its hash): stands in for the model when keyphrases
    and theme texts are embedded, whose cost does not grow with n (a few thousand short texts, cached
    in real use). Set SCALING_KEYPHRASE_MODEL=real to use the model (slow on a loaded 2-core box)."""
    import hashlib

    out = np.empty((len(texts), 384), dtype=np.float32)
    for i, text in enumerate(texts):
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        out[i] = v / np.linalg.norm(v)
    return out


# ----------------------------------------------------------------------------- one size (child)
class StageTimer:
    """Per-stage wall and CPU time, load and peak RSS, driven by ``run_fit``'s ``on_stage`` callback: each
    call closes the stage before and opens the next; :meth:`close` ends the last. Embedding time spent in
    ``embedded`` (wall, CPU) is subtracted from the stage it falls in. ``SCALING_PROFILE=<stage>`` profiles one."""

    def __init__(self, result: dict, work: Path, n: int, embedded: list[float]) -> None:
        self.result, self.work, self.n, self.embedded = result, work, n, embedded
        self.open: tuple | None = None

    def __call__(self, name: str, line: str = "") -> None:
        self.close()
        mem = PeakRSS().__enter__()
        prof = None
        if os.environ.get("SCALING_PROFILE") == name:  # cProfile this stage (its time is then inflated)
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        self.open = (name, mem, prof, self.embedded[0], self.embedded[1], time.perf_counter(), time.process_time())

    def close(self) -> None:
        if self.open is None:
            return
        name, mem, prof, before, before_cpu, t, cpu = self.open
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
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
            "cpu_s": round(cpu - (self.embedded[1] - before_cpu), 2),  # all threads of this process
            "load": round(float(np.mean(mem.loads)), 2),  # mean 1-minute load average during the stage
            "peak_rss_gb": round(mem.peak / 2**30, 3),
            "embedding_s": round(spent, 2),
        }
        print(
            f"[n={self.n}] {name}: {seconds:.1f} s, CPU {cpu:.1f} s, load {np.mean(mem.loads):.1f}, "
            f"peak RSS {mem.peak / 2**30:.2f} GB",
            flush=True,
        )
        (self.work / f"partial-{self.n}.json").write_text(json.dumps(self.result))  # what a timeout leaves


def run_size(work: Path, n: int, bench_cache: Path, threshold: int, sample_size: int, themes_max: int) -> dict:
    """One size through the fit's own stages (``fitting.run_stages`` over ``FIT_STAGES``, on the stored
    vectors), each timed through ``on_stage``; the themes and tree stages are left out above ``themes_max``."""
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import FIT_STAGES, Embedder, FitRun, run_stages
    from icml_topics.stages import knn_graph
    from icml_topics.stages.large import theme_neighbours
    from icml_topics.state import derive

    t0 = time.perf_counter()
    emb, table = synthetic(work, n)
    result = {"n": n, "synthesis_s": round(time.perf_counter() - t0, 1), "stages": {}}
    # cache=False: every stage computes (no reduction or keyphrase cache hits between runs)
    config = FitConfig.from_params(
        {"random_state": 42, "cache": False, "large_corpus_threshold": threshold, "sample_size": sample_size}
    )
    # keyphrases and theme texts are embedded with the real model (cached in bench_cache): that time is
    # recorded apart and left out of the stage's own time, so a cold cache does not bend the exponent
    embedded = [0.0, 0.0]  # wall and CPU seconds
    plain_embed = Embedder(config)
    if os.environ.get("SCALING_KEYPHRASE_MODEL") != "real":
        plain_embed = stand_in_embed

    def timed_embed(batch, **_):
        t, c = time.perf_counter(), time.process_time()
        try:
            return plain_embed(batch)
        finally:
            embedded[0] += time.perf_counter() - t
            embedded[1] += time.process_time() - c

    timer = StageTimer(result, work, n, embedded)
    large = config.is_large(n)
    settings = config.theme_settings
    timer("knn")
    if large:  # the approximate graph the theme rule's neighbour vote reads (remembered for the themes stage)
        theme_neighbours(emb, settings.n_neighbors, random_state=config.seed)
    else:  # the exact graph (the theme rule computes its exact neighbours itself): timed, result dropped
        knn_graph(emb, settings.n_neighbors, approximate=False)
    timer.close()
    result["knn_method"] = "nn-descent" if large else "exact"
    # below the threshold the theme rule's exact neighbours are O(n^2): themes (and the tree built under
    # them) only up to themes_max
    stages = [s for s in FIT_STAGES if s.name not in BELOW_THEMES or n <= themes_max]
    run = FitRun(config, timed_embed, table.drop(columns=["text"]), given_embeddings=emb)
    run_stages(run, stages, on_stage=timer)
    if run.state is not None:
        derive(run.state)  # the tables, as TopicMap.fit builds them: timed with the tree stage
    timer.close()
    for skipped in ("read", "embed"):  # reading the table and checking the given vectors: not a scaling stage
        result["stages"].pop(skipped, None)
    for name in BELOW_THEMES:
        result["stages"].setdefault(name, {"seconds": None, "peak_rss_gb": None})
    if run.state is not None:  # the finest level of the hierarchy; -1: a paper no finest node holds
        labels = np.asarray(run.state.labels)
        result["topics"] = len(set(labels.tolist()) - {-1})
        result["outlier_share"] = round(float((labels == -1).mean()), 4)
    result["total_s"] = round(sum(s["seconds"] or 0 for s in result["stages"].values()), 1)
    result["peak_rss_gb"] = max(s["peak_rss_gb"] or 0 for s in result["stages"].values())
    return result


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
    return None if run.get("partial") or any(v is None for v in values) else float(sum(values))


def exponents(runs: list[dict], field: str = "seconds") -> dict:
    """``b`` of ``time ~ a * n^b`` per stage and for the total, fitted on log-log over the sizes measured
    (``field``: wall ``seconds`` or ``cpu_s``). The total leaves out themes and tree when a size skipped them."""
    out = {}
    series = {s: [(r["n"], _stage_value(r, s, field)) for r in runs] for s in STAGES}
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


def write_report(out: Path, payload: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scaling.json").write_text(json.dumps(payload, indent=2))
    runs = sorted((r for r in payload["runs"] if "stages" in r), key=lambda r: r["n"])
    lines = [
        "# Scaling: cost per stage after embedding (stored vectors)",
        "",
        f"Machine: {payload['machine']}; load average at start {payload['load_start']}, at end {payload['load_end']}.",
        (
            f"Base: {payload['base']['real_vectors']:,} real embeddings from the shared cache, tiled with jittered copies "
            f"(sigma {SIGMA}). Command: `{payload['command']}`"
        ),
        "",
        "Wall time per stage in seconds (peak RSS of the process in GB):",
        "",
        "| n | " + " | ".join(f"{s} s (GB)" for s in STAGES) + " | total s | peak RSS GB | kNN | topics | outliers |",
        "|---|" + "---|" * (len(STAGES) + 5),
    ]
    for r in runs:
        cells = [
            f"{r['stages'][s]['seconds']:.1f} ({r['stages'][s]['peak_rss_gb']:.2f})"
            if _stage_value(r, s, "seconds") is not None
            else "not run"
            for s in STAGES
        ]
        lines.append(
            f"| {r['n']:,} | "
            + " | ".join(cells)
            + f" | {r['total_s']:.0f} | {r['peak_rss_gb']:.2f} | {r['knn_method']} | {r.get('topics', 'n/a')} | "
            + (f"{r['outlier_share']:.1%} |" if r.get("outlier_share") is not None else "n/a |")
        )
    for r in payload["runs"]:
        if "error" in r:
            lines.append(f"| {r['n']:,} | {r['error']} |")
    with_cpu = [r for r in runs if any(_stage_value(r, s, "cpu_s") is not None for s in STAGES)]
    if with_cpu:
        lines += [
            "",
            "CPU time per stage in seconds (all threads of the process; less sensitive to the other users' load "
            "than wall time), with the mean 1-minute load average of the machine during the stage:",
            "",
            "| n | " + " | ".join(f"{s} CPU s (load)" for s in STAGES) + " | total CPU s |",
            "|---|" + "---|" * (len(STAGES) + 1),
        ]
        for r in with_cpu:
            cells = [
                f"{_stage_value(r, s, 'cpu_s'):.1f} ({_stage_value(r, s, 'load'):.1f})"
                if _stage_value(r, s, "cpu_s") is not None and _stage_value(r, s, "load") is not None
                else (f"{_stage_value(r, s, 'cpu_s'):.1f}" if _stage_value(r, s, "cpu_s") is not None else "n/a")
                for s in STAGES
            ]
            total = _total(r, "cpu_s")
            lines.append(f"| {r['n']:,} | " + " | ".join(cells) + (f" | {total:.0f} |" if total else " | n/a |"))
    lines += _exponent_table(
        "Fitted exponent b of wall time ~ n^b (least squares on log-log over the sizes above):", exponents(runs)
    )
    if len(with_cpu) >= 2:
        lines += _exponent_table("Fitted exponent b of CPU time ~ n^b:", exponents(with_cpu, "cpu_s"))
    target = payload.get("extrapolate_to")
    exps = exponents(runs)
    if target and not any(r["n"] == target and "stages" in r for r in payload["runs"]):
        est = []
        for name, b in exps.items():
            stages = STAGES if name == "total" else ABOVE_THEMES if name == WITHOUT_THEMES else (name,)
            pts = [(r["n"], _total(r, "seconds", stages)) for r in runs]
            n0, t0 = max((n, t) for n, t in pts if t)
            est.append(
                f"{name} ~{t0 * (target / n0) ** b / 60:.0f} min"
                if b > 0
                else f"{name} n/a (b <= 0: the load changed more than n did)"
            )
        lines += [
            "",
            f"EXTRAPOLATED (not measured) to n = {target:,} from the largest measured size with each exponent: "
            + "; ".join(est)
            + ".",
        ]
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


def main() -> None:
    from icml_topics.fit_config import FitConfig

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000, 200_000])
    p.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("ICML_TOPICS_CACHE_DIR", "~/.cache/icml_topics")).expanduser(),
    )
    p.add_argument(
        "--bench-cache",
        type=Path,
        default=Path("/tmp/icml-topics-scaling-cache"),
        help="cache for keyphrase/taxonomy embeddings",
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
    args = p.parse_args()
    if args.child:
        result = run_size(args.work, args.child, args.bench_cache, args.threshold, args.sample_size, args.themes_max)
        (args.work / f"result-{args.child}.json").write_text(json.dumps(result))
        return

    payload = {
        "command": "python " + " ".join(sys.argv[1:] and ["benchmarks/scaling.py", *sys.argv[1:]]),
        "load_start": os.getloadavg()[:3],
        "runs": [],
        "extrapolate_to": args.extrapolate_to,
    }
    old = args.out / "scaling.json"
    if args.append and old.exists():
        payload["runs"] = json.loads(old.read_text())["runs"]
        payload["embedding"] = json.loads(old.read_text()).get("embedding")
    payload["machine"] = (
        f"{os.cpu_count()} CPUs, {round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GB RAM"
    )
    payload["base"] = prepare_base(args.data_dir, args.cache_dir, args.work)
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
            "--bench-cache",
            str(args.bench_cache),
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
                json.loads(done.read_text()) if done.exists() else {"n": n, "error": f"failed (exit {proc.returncode})"}
            )
        except subprocess.TimeoutExpired:
            partial = args.work / f"partial-{n}.json"
            done_stages = json.loads(partial.read_text())["stages"] if partial.exists() else {}
            payload["runs"].append(
                {
                    "n": n,
                    "error": f"timeout after {args.timeout:.0f} s; finished stages: "
                    + ", ".join(
                        f"{k} {v['seconds']:.0f} s ({v['peak_rss_gb']:.2f} GB)" for k, v in done_stages.items()
                    ),
                }
            )
        payload["load_end"] = os.getloadavg()[:3]
        write_report(args.out, payload)
    if args.embed_texts:
        payload["embedding"] = embedding_throughput(args.work, args.embed_texts)
    payload["load_end"] = os.getloadavg()[:3]
    measured = sorted((r for r in payload["runs"] if "stages" in r), key=lambda r: r["n"])
    payload["exponents"] = exponents(measured)
    payload["cpu_exponents"] = exponents([r for r in measured if "cpu_s" in r["stages"]["knn"]], "cpu_s")
    write_report(args.out, payload)


if __name__ == "__main__":
    main()
