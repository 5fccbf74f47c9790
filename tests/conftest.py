"""Shared fixtures: no network for any test, the real shared corpora (skipped with a reason when absent), an
isolated embedding cache for the whole session, and one model fitted on real abstracts that many tests read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    os.environ.get("ICML_TOPICS_SHARED_DATA") or REPO.parent / "shared" / "data"
)  # env: run from a worktree
ICML = SHARED_DATA / "icml-2013-2024.jsonl.gz"
NEURIPS = SHARED_DATA / "neurips-1987-2018.jsonl.gz"
SEEDS = SHARED_DATA / "icml-2026-seed-abstracts.jsonl"

# One embedding cache for the session (notebook kernels inherit it through the environment), so a
# text is embedded once per test run. ICML_TOPICS_TEST_CACHE keeps it between local runs. The first process
# (pytest itself, or pytest-xdist's controller) makes the folder and puts it in the environment, which the
# xdist workers inherit: every worker shares one cache, one ONNX export and one embedding-path decision.
_CACHE = os.environ.get("ICML_TOPICS_TEST_CACHE") or tempfile.mkdtemp(prefix="icml-topics-test-cache-")
os.environ["ICML_TOPICS_TEST_CACHE"] = _CACHE
os.environ["ICML_TOPICS_CACHE_DIR"] = _CACHE  # embeddings/ and reductions/ live under it
# the ONNX export and the embedding-path decision are made once per session, even by tests (and their
# subprocesses) that use caches of their own
os.environ.setdefault("ICML_TOPICS_MACHINE_DIR", _CACHE)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# Test files that need no numba-compiled UMAP code (readers, embedding, tables, figures
# from made-up frames): they run first. On a new machine (a fresh CI venv) the first fit that maps with UMAP
# compiles that code (about two minutes of one core on a 2-core machine, in its background worker while it
# embeds). A file missing here only runs later; nothing else changes.
RUN_FIRST = (
    "cli/test_cli_info.py",
    "cli/test_compare_lines.py",
    "corpus/",
    "datasets/",
    "embedding/test_embedding.py",
    "embedding/test_embedding_cache.py",
    "embedding/test_embedding_paths.py",
    "embedding/test_setup_child.py",
    "evaluate/",
    "model/test_deferred_imports.py",
    "model/test_structure.py",
    "model/test_text.py",
    "plotting/test_dumbbell.py",
    "plotting/test_plot_trends.py",
    "plotting/test_zoom_label_layers.py",
    "reliability/test_rel_checks_early.py",
    "reliability/test_rel_child_process.py",
    "reliability/test_rel_cli_checks.py",
    "reliability/test_rel_dialects.py",
    "reliability/test_rel_machine_lock.py",
    "reliability/test_rel_pmlr.py",
    "reliability/test_rel_reader_properties.py",
    "themes/test_taxonomy.py",
)

# Then the test files that run pynndescent's NN-descent (the large-corpus path). pynndescent compiles most of its
# numba code without numba's on-disk cache, so every process that first builds an NN-descent graph compiles it
# again: 35 CPU seconds on this 2-core Xeon (a fresh process, 2,000 x 384 vectors). They are one xdist group
# (``XDIST_GROUPS``), so one worker runs them one after the other and compiles it once. Then the notebooks, each
# run in a fresh Jupyter kernel, and the other files with the longest fixtures or tests
# (``benchmarks/results/make_test.md``): long files that start early do not make the tail (the last worker still
# busy while the other is done).
NN_DESCENT = (
    "model/test_large_fit.py",
    "stages/test_large.py",
    "stages/test_large_themes.py",
)
RUN_EARLY = (
    *NN_DESCENT,
    "model/test_notebooks.py",
    "reliability/test_rel_embedding_choice.py",
    "stages/test_new_subjects.py",
    "embedding/test_first_run.py",
    "model/test_distributed_tree.py",
    "reliability/test_rel_faults.py",
    "model/test_trend_methods.py",
    "model/test_interop.py",
)

# ``make test`` runs pytest-xdist with ``--dist loadfile --no-loadscope-reorder`` and the scheduler below
# (``pytest_xdist_make_scheduler``): each unit of work, a test file or an ``XDIST_GROUPS`` group of files, is handed
# whole to one worker, in the order of the sorted collection (``pytest_collection_modifyitems``), the next unit to
# the first worker that is almost done. A module-scoped fixture is so built once (``--dist worksteal`` handed out
# single tests and could split a file between the two workers when one stole from the other's queue: each then
# built the file's fixtures, a second 2,000-paper fit or a second fresh machine's setup). The NN-descent files are
# one unit together. (``--dist loadgroup`` with ``xdist_group`` marks would say the same, but pytest-xdist 3.8
# tags a grouped test by rewriting ``item._nodeid``, which pytest 9 no longer reads: every test became a unit.)
XDIST_GROUPS = {name: "nn-descent" for name in NN_DESCENT}


#: the thread pools a fit uses: OpenMP (torch, scikit-learn, CTranslate2; the ONNX sessions follow it too), OpenBLAS
#: and MKL (numpy, scipy, torch) and numba
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test``: one worker per core, at most 4), each worker's thread pools get its share
    of the CPUs: set here, in the controller, before the workers start, so each pool reads it as it loads in a
    worker (and in the processes a test starts). On contended cores, two threads per pool spent CPU time waiting
    for each other: ``tests/stages/test_new_subjects.py`` took 146 CPU seconds with the default pools and 79 with
    one thread each, ``tests/model/test_trend_methods.py`` 114 and 66 (``benchmarks/results/suite_threads.md``). A
    variable already set is kept; a run without xdist changes nothing."""
    workers = len(getattr(config.option, "tx", None) or [])
    if not workers or hasattr(config, "workerinput"):
        return
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1  # (not on macOS)
    threads = str(max(1, cpus // workers))
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, threads)


@pytest.hookimpl(tryfirst=True)  # sort before other plugins read the order
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """The RUN_FIRST files' tests first, then the RUN_EARLY files' (in RUN_EARLY's order), then everything
    else, each in its collected order (every xdist worker sorts its identical collection the same way)."""
    tests = REPO / "tests"

    def relative(item: pytest.Item) -> str:
        path = Path(str(item.fspath)).resolve()
        return path.relative_to(tests).as_posix() if path.is_relative_to(tests) else str(path)

    def rank(item: pytest.Item) -> int:
        name = relative(item)
        if name.startswith(RUN_FIRST):
            return 0
        return 1 + RUN_EARLY.index(name) if name in RUN_EARLY else 1 + len(RUN_EARLY)

    items.sort(key=rank)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """With ``--dist loadfile``: units of work by test file, the ``XDIST_GROUPS`` files one unit together."""
    if config.getoption("dist", None) != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileGroups(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            return XDIST_GROUPS.get(file.removeprefix("tests/"), file)

    return FileGroups(config, log)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test: a download attempt fails the test (a test that needs one serves it with a fake)."""

    def refuse(*args: object, **kwargs: object) -> None:
        pytest.fail(f"network access attempted: {args}")

    monkeypatch.setattr("icml_topics.datasets.cache.http_get", refuse)
    monkeypatch.setattr("urllib.request.urlopen", refuse)


@pytest.fixture
def empty_dataset_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The dataset loaders' download cache points at an empty temporary folder, offline mode off (the
    network is still refused by ``_no_network``)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("ICML_TOPICS_DATA_DIR", str(cache))
    monkeypatch.delenv("ICML_TOPICS_OFFLINE", raising=False)
    return cache


#: short and long texts the embedding tests share (one long enough to be truncated at 128 tokens)
TEXTS = [
    "Graph neural networks for molecular property prediction.",
    "We study the sample complexity of reinforcement learning with linear function approximation "
    "and show that optimism in the face of uncertainty attains near-optimal regret bounds.",
    "Diffusion models.",
    "A short note on Adam.",
    "Large language models can be aligned with human preferences through direct preference optimisation, "
    "which avoids fitting an explicit reward model and is stable, performant and cheap to train. " * 3,
    "Bandits.",
]


def st_reference(model, texts):
    """sentence-transformers' own fp32 vectors: what every embedding path is compared with."""
    return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"shared corpus {path.name} not found in {path.parent} (third-party data, not in the repo)")
    return path


@pytest.fixture(scope="session")
def icml_path() -> Path:
    return require(ICML)


@pytest.fixture(scope="session")
def seeds_path() -> Path:
    return require(SEEDS)


@pytest.fixture(scope="session")
def icml_frame(icml_path: Path) -> pd.DataFrame:
    return pd.read_json(icml_path, lines=True)


@pytest.fixture(scope="session")
def real_sample(icml_frame: pd.DataFrame) -> pd.DataFrame:
    """240 real ICML abstracts: 120 from 2019 and 120 from 2024 (fixed sample)."""
    parts = [icml_frame[icml_frame["year"] == y].sample(n=120, random_state=7) for y in (2019, 2024)]
    return pd.concat(parts, ignore_index=True)


def plain_icml(icml_frame: pd.DataFrame) -> pd.DataFrame:
    """The ICML papers on neither large language models nor bandits. ``tests/model/test_trend_methods.py`` and
    ``tests/stages/test_new_subjects.py`` draw their 2016-2018 papers from it alike (``sample(n=100,
    random_state=year)``): the same 300 papers, whose vectors the session's cache then holds once for both."""
    text = (icml_frame["title"].fillna("") + " " + icml_frame["abstract"].fillna("")).str.lower()
    return icml_frame[~text.str.contains("large language model|llm") & ~text.str.contains("bandit")]


def one_worker_at_a_time(name: str):
    """A lock held while one xdist worker builds fixture ``name``: another worker that needs it too waits,
    then builds it from the caches the first one filled (embeddings, reductions, keyphrases, trees are
    shared by the session), instead of computing the same fit at the same time."""
    from icml_topics._machine_lock import machine_lock

    return machine_lock(Path(_CACHE) / "locks" / f"fixture-{name}.lock", what=f"test fixture {name}")


@pytest.fixture(scope="session")
def fitted(real_sample: pd.DataFrame):
    """A TopicMap fitted on the real sample; read-only for the tests that use it."""
    from icml_topics import TopicMap

    with one_worker_at_a_time("fitted"):
        return TopicMap(random_state=0).fit(real_sample)


@pytest.fixture(scope="session")
def fitted_two_levels(fitted, real_sample: pd.DataFrame):
    """The same papers and vectors as ``fitted`` with two tree levels fixed (``topic_sizes=(40, 12)``; by default
    240 papers get one level: the depth follows the corpus); read-only, for tests of nested levels."""
    from icml_topics import TopicMap

    with one_worker_at_a_time("fitted_two_levels"):
        return TopicMap(random_state=0, topic_sizes=(40, 12)).fit(real_sample, embeddings=fitted.embeddings_)


@pytest.fixture(scope="module")
def dask_client():
    """A real Dask LocalCluster of 2 worker processes (one thread each) and its client, for one test module."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as c,
    ):
        yield c


#: the 38 ICML 2026 abstracts bundled with the package (what ``icml-topics demo`` fits)
BUNDLED_SEEDS = REPO / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"


@pytest.fixture(scope="session")
def seeds_fitted():
    """A TopicMap (random_state=0) fitted on the bundled seed abstracts; read-only for the tests that use it."""
    from icml_topics import TopicMap

    with one_worker_at_a_time("seeds_fitted"):
        return TopicMap(random_state=0).fit(BUNDLED_SEEDS)


@pytest.fixture(scope="session")
def demo_fitted():
    """The demo's model: TopicMap(random_state=42) on the bundled seed abstracts; read-only."""
    from icml_topics import TopicMap

    with one_worker_at_a_time("demo_fitted"):
        return TopicMap(random_state=42).fit(BUNDLED_SEEDS)


# --- synthetic theme-rule inputs (no model, no data) --------------------------------------------
THEME_NAMES = ["Graphs", "Diffusion", "Time series"]
THEME_PHRASES = [
    ["graph neural network", "GNN", "message passing"],
    ["diffusion model", "score matching"],
    ["time series", "forecasting"],
]


def unit_vector(*parts: float, dim: int = 8) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    v[: len(parts)] = parts
    return v / np.linalg.norm(v)


def theme_prototypes() -> tuple[np.ndarray, np.ndarray]:
    """Synthetic prototypes of the three THEME_NAMES (for the theme-rule tests)."""
    # two prototypes per theme (a "description" and a "seed"), each theme on its own axes
    protos = np.vstack(
        [
            unit_vector(1, 0.2),
            unit_vector(1, 0, 0.2),
            unit_vector(0, 1, 0, 0.2),
            unit_vector(0, 1, 0, 0, 0.2),
            unit_vector(0, 0, 1),
            unit_vector(0, 0, 1, 0, 0, 0.2),
        ]
    )
    return protos, np.array([0, 0, 1, 1, 2, 2])


def theme_corpus(n_per_theme: int = 12, seed: int = 0):
    """Synthetic papers near each theme's axis: ``(embeddings, titles, abstracts, true theme names)``."""
    rng = np.random.default_rng(seed)
    emb, titles, abstracts, truth = [], [], [], []
    for t in range(3):
        for i in range(n_per_theme):
            v = np.zeros(8, dtype=np.float32)
            v[t] = 1.0
            v += rng.normal(0, 0.25, 8).astype(np.float32)
            emb.append(v / np.linalg.norm(v))
            titles.append(f"Paper {t}-{i}")
            abstracts.append("We study a new method and run experiments.")
            truth.append(THEME_NAMES[t])
    return np.vstack(emb), titles, abstracts, truth
