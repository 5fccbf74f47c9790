#!/usr/bin/env python
"""icml_topics vs BERTopic's default pipeline, side by side, in one run.

    python benchmarks/run.py --sizes 1000 2000 5630 all            # the full benchmark (hours on 2 cores)
    python benchmarks/run.py --sizes 100 --skip-demo               # a smoke test (minutes)

For every corpus size, each pipeline runs in its own fresh process, one after another:

1. ``bertopic``           BERTopic's default pipeline including its embedding (see ``_bertopic_baseline``);
2. ``ours-cold``          ``TopicMap(random_state=42, cache=<empty folder>).fit(sample.jsonl)``;
3. ``ours-warm``          the same again in a new process, with the cache the cold run filled;
4. ``bertopic-same-emb``  BERTopic's defaults on the embeddings icml_topics computed, so quality is
                          also compared on identical embeddings (its time is not a headline number);

then once ``icml-topics demo`` as a whole process, with an empty cache and again with a warm one.
Results: ``<out>/latest.csv``, ``latest.md``, ``latest.json``; ``--update-readme`` also rewrites the
"Latest results" section of ``benchmarks/README.md``. See that README for what is measured and how.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(REPO))

from _corpus import Corpus, DataMissing, check_data, load_corpus, write_jsonl  # noqa: E402
from _machine import git_state, machine_facts  # noqa: E402
from _measure import Measured, run_measured  # noqa: E402
from _report import MB, PIPELINES, update_readme, write_results  # noqa: E402

CHILD = HERE / "_child.py"
DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_OUT = HERE / "results"
# Untimed, before any measurement: read the libraries into the OS file cache and, with
# --jit-cache warm, fill the run's numba cache with UMAP's compiled functions the way both
# pipelines call UMAP (BERTopic: NN-descent, 5-D, then HDBSCAN; icml_topics: its 2-D map on a
# precomputed kNN graph, stage "map"; it no longer clusters with HDBSCAN), so neither measured
# pipeline pays a one-time compilation the other then reuses.
WARMUP = r"""
import sys
import numpy as np, torch, sentence_transformers, bertopic, umap, hdbscan, sklearn, pandas
import icml_topics.model, icml_topics.corpus
if sys.argv[1] == "jit":
    import warnings
    from sklearn.neighbors import NearestNeighbors
    warnings.filterwarnings("ignore")
    x = np.random.default_rng(0).normal(size=(600, 384)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    r = umap.UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", low_memory=False).fit_transform(x)
    hdbscan.HDBSCAN(min_cluster_size=10, metric="euclidean", cluster_selection_method="eom", prediction_data=True).fit(r)
    d, i = NearestNeighbors(n_neighbors=15, metric="cosine").fit(x).kneighbors(x)
    umap.UMAP(n_neighbors=15, n_components=2, min_dist=0.1, metric="cosine", random_state=42,
              precomputed_knn=(i, d.astype(np.float32), None), low_memory=True).fit_transform(x)
print("warm-up done")
"""


MACHINE_WARMUP = r"""
from icml_topics.embedding import resolve_precision
print("embedding path:", resolve_precision())
"""


def _read_decision(folder: Path) -> dict:
    """The stored precision decision (path and guard figures) of the machine-state warm-up."""
    try:
        data = json.loads((folder / "precision.json").read_text(encoding="utf-8"))
        entry = next(iter(data.values()))
        return {
            "precision": entry.get("precision"),
            "fp32_docs_per_second": entry.get("fp32_docs_per_second"),
            "guard": [
                {k: g.get(k) for k in ("candidate", "passed", "mean_cosine", "knn_agreement", "speedup")}
                for g in entry.get("guard", [])
            ],
        }
    except (OSError, ValueError, StopIteration, AttributeError):
        return {}


# ------------------------------------------------------------------------------------------ CLI
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="benchmarks/run.py",
        description="Benchmark icml_topics against BERTopic's default pipeline (same corpus, same embedding "
        "model): wall time, peak RSS, embedding throughput and quality, as ratios.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--sizes",
        nargs="+",
        default=["1000", "2000", "5630", "all"],
        metavar="N",
        help="corpus sizes (abstracts); 'all' = every record of the chosen corpus. A size above what exists "
        "is clipped to every record (the actual count is reported).",
    )
    p.add_argument(
        "--corpus",
        choices=["all", "icml"],
        default="all",
        help="'all': ICML 2013-2024, then NeurIPS 1987-2018, then the ICML 2026 seeds; 'icml': the ICML file only",
    )
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="folder holding the shared corpus files")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for latest.csv / latest.md / latest.json")
    p.add_argument("--timeout", type=float, default=3600, help="seconds allowed per pipeline process")
    p.add_argument("--skip-baseline", action="store_true", help="do not run BERTopic's default pipeline")
    p.add_argument("--skip-warm", action="store_true", help="do not re-run icml_topics with the warm cache")
    p.add_argument(
        "--skip-same-embeddings",
        action="store_true",
        help="do not fit BERTopic's defaults on icml_topics' embeddings (the quality-only comparison)",
    )
    p.add_argument("--skip-demo", action="store_true", help="do not time the `icml-topics demo` process")
    p.add_argument(
        "--jit-cache",
        choices=["warm", "cold"],
        default="warm",
        help="numba's on-disk JIT cache: 'warm' = one cache for the run, filled by an untimed UMAP warm-up "
        "(a user's second run ever); 'cold' = an empty one per cold pipeline (the first run after install)",
    )
    p.add_argument(
        "--machine-state",
        choices=["warm", "cold"],
        default="warm",
        help="icml_topics' once-per-machine state (precision decision, ONNX export): warm = made by an "
        "untimed warm-up, its one-time cost reported; cold = paid inside each cold run",
    )
    p.add_argument("--sample-seed", type=int, default=0, help="seed of the fixed sampling order")
    p.add_argument(
        "--work-dir",
        type=Path,
        default=None,
        help="scratch folder, kept afterwards (default: a new temporary folder, removed at the end)",
    )
    p.add_argument("--keep-work", action="store_true", help="keep the temporary scratch folder (samples, caches, logs)")
    p.add_argument(
        "--update-readme",
        action="store_true",
        help="rewrite the 'Latest results' section of benchmarks/README.md with this run",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show each pipeline's own output (default: logged)")
    return p.parse_args(argv)


def resolve_sizes(requested: list[str], corpus: Corpus) -> tuple[list[int], list[str]]:
    sizes: list[int] = []
    notes: list[str] = []
    for raw in requested:
        if raw.lower() == "all":
            n = corpus.size
        else:
            try:
                n = int(raw.replace(",", "").replace("_", ""))
            except ValueError:
                raise SystemExit(f"error: --sizes takes positive integers or 'all', got {raw!r}") from None
            if n < 3:
                raise SystemExit(f"error: a size must be at least 3 abstracts, got {n}")
            if n > corpus.size:
                notes.append(f"{n:,} abstracts requested; {corpus.size:,} exist in the chosen corpus, all used")
                n = corpus.size
        if n not in sizes:
            sizes.append(n)
    return sizes, notes


# ------------------------------------------------------------------------------------- helpers
def base_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("HF_HUB_OFFLINE", "1")  # every model is local; never wait on a network
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def pipeline_env(base: dict[str, str], home: Path, numba_dir: Path) -> dict[str, str]:
    """A user environment of its own: its cache home (XDG), the library's default cache, a numba cache."""
    env = dict(base)
    (home / "xdg").mkdir(parents=True, exist_ok=True)
    env["XDG_CACHE_HOME"] = str(home / "xdg")  # platformdirs' user cache (HF, torch, icml_topics defaults)
    env["ICML_TOPICS_CACHE_DIR"] = str(home / "icml_topics-cache")  # the library's default cache, if used
    numba_dir.mkdir(parents=True, exist_ok=True)
    env["NUMBA_CACHE_DIR"] = str(numba_dir)
    return env


def count_files(folder: Path | None) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder and folder.exists() else 0


def demo_command() -> tuple[list[str], str]:
    script = Path(sys.executable).parent / "icml-topics"
    if script.exists():
        return [str(script)], "icml-topics"
    if (REPO / "icml_topics" / "cli" / "__main__.py").exists():
        return [sys.executable, "-m", "icml_topics.cli"], "python -m icml_topics.cli"
    return (
        [sys.executable, "-c", "import sys; sys.argv[0] = 'icml-topics'; from icml_topics.cli import main; main()"],
        "python -c 'from icml_topics.cli import main; main()' (console script not installed)",
    )


def reference_texts(sample_path: Path) -> dict:
    """The cleaned text of the sample's modelled rows: the NPMI reference corpus for every pipeline."""
    from icml_topics.corpus.readers import read_corpus
    from icml_topics.corpus.validation import flag_rows

    flagged = flag_rows(read_corpus(sample_path))
    ok = flagged[flagged["status"] == "ok"]
    return {"ids": ok["id"].astype(str).tolist(), "texts": ok["text"].tolist()}


def empty_row(size: int, sample: str, pipeline: str) -> dict:
    return {
        "size": str(size),
        "n_docs": size,
        "sample": sample,
        "pipeline": pipeline,
        "label": PIPELINES[pipeline],
        "status": "not run",
        "note": "",
    }


def fill_row(row: dict, m: Measured, res: dict | None) -> dict:
    if m.timed_out:
        row.update(status="timeout", wall_s=round(m.wall_s, 2), note=f"killed after {m.wall_s:.0f} s (--timeout)")
        return row
    if res is None or res.get("status") != "ok":
        tail = m.log_tail(3).replace("\n", " / ") if m.log else ""
        why = (res or {}).get("error") or f"exit code {m.returncode}, no result written"
        row.update(status="error", wall_s=round(m.wall_s, 2), note=f"{why} | {tail}"[:500])
        return row
    wall = res["t_end"] - m.t_launch
    embed_s, embed_n = res.get("embed_s"), res.get("embed_n")
    row.update(
        status="ok",
        n_docs=res["n_docs"],
        wall_s=round(wall, 2),
        embed_s=None if embed_s is None else round(embed_s, 2),
        docs_per_s=round(embed_n / embed_s, 1) if embed_s and embed_n else None,
        peak_rss_mb=round(res["maxrss_bytes"] / MB, 1),
        tree_rss_mb=round(m.tree_peak_bytes(until=res["t_end"]) / MB, 1) or None,
    )
    for key in (
        "npmi",
        "npmi_words",
        "diversity",
        "outlier_share",
        "unassigned_share",
        "ari",
        "nmi",
        "topic_ari",
        "topic_nmi",
    ):
        v = res.get(key)
        row[key] = None if v is None else round(float(v), 4)
    for key in ("n_topics", "n_themes", "n_labelled"):
        row[key] = res.get(key)
    notes = []
    if res.get("n_modelled") is not None and res["n_modelled"] != res["n_docs"]:
        notes.append(f"{res['n_modelled']:,} of {res['n_docs']:,} modelled")
    first = (res.get("embed_runs") or [None])[0]
    if first:
        notes.append(
            f"embedding: {first.get('precision')} on {first.get('device')}, "
            f"{first.get('n_from_cache', 0):,} of {first.get('n_texts', 0):,} from cache"
        )
    row["note"] = "; ".join(notes)
    return row


def say(msg: str) -> None:
    print(msg, flush=True)


def progress(row: dict) -> None:
    if row["status"] != "ok":
        say(f"      {row['label']}: {row['status'].upper()}  {row['note']}")
        return
    parts = [f"{row['wall_s']:8.1f} s", f"RSS {row['peak_rss_mb']:7,.0f} MB"]
    if row.get("docs_per_s"):
        parts.append(f"embed {row['docs_per_s']:,.0f} docs/s")
    if row.get("n_topics") is not None:
        parts.append(f"{row['n_topics']} topics")
    if row.get("unassigned_share") is not None:
        parts.append(f"unassigned {100 * row['unassigned_share']:.1f}%")
    if row.get("npmi") is not None:
        parts.append(f"NPMI {row['npmi']:.3f}")
    say(f"      {row['label']:<46} " + " | ".join(parts))


# ------------------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    t_begin = time.time()
    try:
        check_data(args.data_dir, args.corpus)  # before any library import: a clear message first
        from icml_topics.evaluate import load_dev_labels

        dev_ids = set(load_dev_labels()["id"].astype(str))
        corpus = load_corpus(args.data_dir, args.corpus, seed=args.sample_seed, dev_ids=dev_ids)
    except DataMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sizes, size_notes = resolve_sizes(args.sizes, corpus)
    counts = corpus.counts()
    say(f"corpus: {', '.join(f'{k} {v:,}' for k, v in counts.items())} = {corpus.size:,} records; sizes {sizes}")
    for note in size_notes:
        say(f"note: {note}")

    work = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="icml-topics-benchmark-run-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return benchmark(args, corpus, sizes, size_notes, work, t_begin)
    finally:
        if args.work_dir is None and not args.keep_work:  # a folder the user named is never deleted
            shutil.rmtree(work, ignore_errors=True)


def benchmark(
    args: argparse.Namespace, corpus: Corpus, sizes: list[int], size_notes: list[str], work: Path, t_begin: float
) -> int:
    """Run every pipeline at every size in ``work``; write the results; 0 when every run succeeded."""
    counts = corpus.counts()
    env0 = base_env()
    say(f"scratch folder: {work}")
    say("machine facts ...")
    machine = machine_facts(env0)
    say(f"      {machine.get('cpu')}, {machine.get('usable_cores')} cores, load {machine.get('load_average_at_start')}")
    if machine["load_average_at_start"][0] > 0.5 * (machine.get("usable_cores") or 1):
        say("warning: the machine is busy (load average above half the cores): timings will be slow and noisy")
    say(
        "warm-up, untimed: imports (OS file cache)"
        + (" and numba JIT of UMAP" if args.jit_cache == "warm" else "")
        + " ..."
    )
    shared_numba = work / "numba-shared"  # --jit-cache warm: every pipeline's; cold: the warm-up's only
    warm_env = {**env0, "NUMBA_CACHE_DIR": str(shared_numba)}
    t0 = time.time()
    warm = run_measured(
        [sys.executable, "-c", WARMUP, "jit" if args.jit_cache == "warm" else "imports"],
        env=warm_env,
        timeout=args.timeout,
        log=work / "warmup.log",
    )
    if warm.returncode != 0:
        say("warning: the warm-up failed (timings below may include first reads / JIT):\n" + warm.log_tail(10))
    say(f"      {time.time() - t0:.0f} s; numba cache: {count_files(shared_numba)} files")

    machine_state = work / "machine-state"  # precision.json + onnx/: what icml_topics keeps once per machine
    machine_note: dict = {"mode": args.machine_state}
    if args.machine_state == "warm":
        say("warm-up, untimed for the pipelines: icml_topics chooses its embedding path for this machine (once) ...")
        m = run_measured(
            [sys.executable, "-c", MACHINE_WARMUP],
            env={**env0, "ICML_TOPICS_CACHE_DIR": str(machine_state)},
            timeout=args.timeout,
            log=work / "machine-state.log",
        )
        decision = _read_decision(machine_state)
        machine_note.update(seconds=round(m.wall_s, 1), returncode=m.returncode, **decision)
        say(f"      {m.wall_s:.0f} s; path: {decision.get('precision')}")

    def ours_home(home: Path) -> Path:
        """A fresh user cache for icml_topics, holding the machine state when --machine-state warm."""
        if args.machine_state == "warm" and machine_state.exists():
            target = home / "icml_topics-cache"
            target.mkdir(parents=True, exist_ok=True)
            for name in ("precision.json", "onnx"):
                src = machine_state / name
                if src.is_dir():
                    shutil.copytree(src, target / name, dirs_exist_ok=True)
                elif src.exists():
                    shutil.copy2(src, target / name)
        return home

    def numba_dir(home: Path) -> Path:
        return shared_numba if args.jit_cache == "warm" else home / "numba"

    command = "python benchmarks/run.py " + " ".join(shlex.quote(a) for a in args.argv)
    meta = {
        "command": command,
        "git": git_state(REPO),
        "machine": machine,
        "corpus_description": (
            f"{' + '.join(f'{k} {v:,}' for k, v in counts.items())} = {corpus.size:,} records available "
            f"(--corpus {args.corpus}); a size takes the first N of a fixed order: the 150 dev-labelled ICML 2024 "
            "abstracts, the other ICML ones, then NeurIPS, then the seeds (sampling seed "
            f"{args.sample_seed})" + ("; " + "; ".join(size_notes) if size_notes else "")
        ),
        "jit_note": (
            "warm (--jit-cache warm): one numba cache for the run, filled by an untimed UMAP/HDBSCAN warm-up on random "
            "vectors, so neither pipeline pays numba's one-time compilation (as on a user's second run ever); "
            "functions numba never caches are compiled in every process, by both"
        )
        if args.jit_cache == "warm"
        else (
            "cold (--jit-cache cold): each cold pipeline starts with an empty numba cache, so all JIT compilation is "
            "paid as on the first run after installing; the warm re-run reuses the cold run's"
        ),
        "icml_full_size": str(counts["icml"]) if counts["icml"] in sizes else None,
        "all_records_size": str(corpus.size) if args.corpus == "all" and corpus.size in sizes else None,
    }
    meta["machine_state"] = machine_note
    rows: list[dict] = []
    raw: dict = {"meta": meta, "runs": []}

    def run_child(key: str, size: int, spec: dict, env: dict, folder: Path) -> dict:
        row = empty_row(size, corpus.describe(size), key)
        spec_path, result_path = folder / f"{key}.spec.json", folder / f"{key}.result.json"
        spec["result"] = str(result_path)
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        log = None if args.verbose else folder / f"{key}.log"
        jit_before = count_files(Path(env["NUMBA_CACHE_DIR"]))
        m = run_measured([sys.executable, str(CHILD), str(spec_path)], env=env, timeout=args.timeout, log=log)
        res = json.loads(result_path.read_text(encoding="utf-8")) if result_path.exists() else None
        fill_row(row, m, res)
        jit_added = count_files(Path(env["NUMBA_CACHE_DIR"])) - jit_before
        raw["runs"].append(
            {
                "size": size,
                "pipeline": key,
                "row": row,
                "result": res,
                "process_maxrss_bytes": m.maxrss_bytes,
                "numba_cache_files_added": jit_added,
            }
        )
        meta.setdefault("jit_files_added", {})[f"{size}/{key}"] = jit_added
        if row["status"] != "ok" and log is not None:
            say(m.log_tail(25))
        return row

    def finish(partial: bool) -> dict[str, Path]:
        meta["finished"] = dt.datetime.now().astimezone().isoformat(timespec="seconds") + (
            " (partial)" if partial else ""
        )
        meta["duration_min"] = (time.time() - t_begin) / 60
        return write_results(rows, meta, args.out, raw)

    try:
        for i, n in enumerate(sizes, 1):
            folder = work / f"n{n}"
            folder.mkdir(parents=True, exist_ok=True)
            sample_path = write_jsonl(corpus.sample(n), folder / "sample.jsonl")
            ref_path = folder / "reference.json"
            ref_path.write_text(json.dumps(reference_texts(sample_path)), encoding="utf-8")
            say(f"[{i}/{len(sizes)}] {n:,} abstracts ({corpus.describe(n)})")
            common = {"sample": str(sample_path), "reference": str(ref_path)}
            emb_path, emb_ids = folder / "ours-embeddings.npy", folder / "ours-embedding-ids.json"

            if not args.skip_baseline:
                env = pipeline_env(env0, folder / "bertopic-user", numba_dir(folder / "bertopic-user"))
                rows.append(run_child("bertopic", n, {**common, "pipeline": "bertopic-default"}, env, folder))
                progress(rows[-1])

            ours_env = pipeline_env(env0, ours_home(folder / "ours-user"), numba_dir(folder / "ours-user"))
            cache = folder / "ours-user" / "cache"
            cache.mkdir(parents=True, exist_ok=True)
            spec = {**common, "pipeline": "icml_topics", "cache_dir": str(cache)}
            cold = run_child(
                "ours-cold",
                n,
                {**spec, "embeddings_out": str(emb_path), "embeddings_ids": str(emb_ids)},
                ours_env,
                folder,
            )
            rows.append(cold)
            progress(cold)
            if not args.skip_warm:
                if cold["status"] == "ok":
                    rows.append(run_child("ours-warm", n, spec, ours_env, folder))
                else:
                    rows.append(
                        {**empty_row(n, corpus.describe(n), "ours-warm"), "note": "skipped: the cold run failed"}
                    )
                progress(rows[-1])
            if not (args.skip_baseline or args.skip_same_embeddings):
                if cold["status"] == "ok" and emb_path.exists():
                    env = pipeline_env(env0, folder / "bertopic-user", numba_dir(folder / "bertopic-user"))
                    same = {
                        **common,
                        "pipeline": "bertopic-same-emb",
                        "embeddings": str(emb_path),
                        "embeddings_ids": str(emb_ids),
                    }
                    rows.append(run_child("bertopic-same-emb", n, same, env, folder))
                else:
                    rows.append(
                        {
                            **empty_row(n, corpus.describe(n), "bertopic-same-emb"),
                            "note": "skipped: no icml_topics embeddings (the cold run failed)",
                        }
                    )
                progress(rows[-1])
            finish(partial=True)

        if not args.skip_demo:
            cmd, how = demo_command()
            say(f"[demo] `icml-topics demo` as a whole process ({how})")
            demo_env = pipeline_env(env0, ours_home(work / "demo-user"), numba_dir(work / "demo-user"))
            for key in ("demo-cold", "demo-warm"):
                row = {**empty_row(38, "bundled ICML 2026 sample", key), "size": "demo"}
                log = None if args.verbose else work / f"{key}.log"
                m = run_measured(
                    [*cmd, "demo", "--out", str(work / key)], env=demo_env, timeout=args.timeout, log=log, cwd=work
                )
                if m.timed_out:
                    row.update(status="timeout", note=f"killed after {m.wall_s:.0f} s")
                elif m.returncode != 0:
                    row.update(status="error", note=f"exit code {m.returncode} | " + m.log_tail(3).replace("\n", " / "))
                    say(m.log_tail(25))
                else:
                    row.update(status="ok", note=how)
                row.update(
                    wall_s=round(m.wall_s, 2),
                    peak_rss_mb=round(m.maxrss_bytes / MB, 1),
                    tree_rss_mb=round(m.tree_peak_bytes() / MB, 1) or None,
                )
                rows.append(row)
                raw["runs"].append({"pipeline": key, "row": row})
                progress(row)
    except KeyboardInterrupt:
        if not rows:
            say("interrupted before any measurement; results left as they were")
            return 130
        paths = finish(partial=True)
        say(f"interrupted: partial results in {paths['md']}")
        return 130

    paths = finish(partial=False)
    say(f"results: {paths['csv']}, {paths['md']}, {paths['json']}")
    if args.update_readme:
        if update_readme(HERE / "README.md", rows, meta):
            say("benchmarks/README.md: latest results updated")
        else:
            say("warning: benchmarks/README.md has no latest-results markers; not updated")
    say("")
    say((args.out / "latest.md").read_text(encoding="utf-8"))
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
