"""Every environment variable the package reads or sets, in one place, and what it does.

The modules that read a variable name it themselves (each beside the code it switches); this table is the
one list of them, kept complete by ``tests/model/test_environment.py`` (every name the package's code
reads is here, every name here is read, and ``docs/how-to/environment.md`` describes each one).

    >>> from icml_topics.environment import ENVIRONMENT
    >>> ENVIRONMENT["ICML_TOPICS_CACHE_DIR"]
    'the cache folder (embeddings, 2-D maps, keyphrases, trees, drawn outputs); default ~/.cache/icml_topics'
"""

from __future__ import annotations

__all__ = ["ENVIRONMENT"]

ENVIRONMENT: dict[str, str] = {
    # where things are kept
    "ICML_TOPICS_CACHE_DIR": "the cache folder (embeddings, 2-D maps, keyphrases, trees, drawn outputs); "
    "default ~/.cache/icml_topics",
    "ICML_TOPICS_MACHINE_DIR": "the machine folder: the embedding-path decision and the exported ONNX / "
    "CTranslate2 models, once per machine; default: inside the cache folder",
    "ICML_TOPICS_DATA_DIR": "where downloaded proceedings are kept (PMLR, OpenReview)",
    # network
    "ICML_TOPICS_OFFLINE": "1: no download of proceedings; only what ICML_TOPICS_DATA_DIR holds",
    "HF_HUB_OFFLINE": "1 (Hugging Face's own switch): a named embedding model is loaded from the local cache only",
    # processes and threads
    "ICML_TOPICS_BACKGROUND": "0: no background worker process; the 2-D map is drawn in the fit's process",
    "ICML_TOPICS_JIT_WARMUP": "0: numba's code for UMAP is compiled where it is first used, not ahead",
    "ICML_TOPICS_SETUP_CHILD": "0: the once-per-machine embedding setup runs in the fit's process, not a child",
    "ICML_TOPICS_NUM_THREADS": "the number of threads torch embeds with (default: every CPU this process may use)",
    "OMP_NUM_THREADS": "when set (and ICML_TOPICS_NUM_THREADS is not), torch's thread count is left as it is; "
    "the ONNX path uses it as its thread count",
    "MKL_NUM_THREADS": "when set (and ICML_TOPICS_NUM_THREADS is not), torch's thread count is left as it is",
    "NUMBA_CACHE_DIR": "numba's own cache folder: read to see whether UMAP's code is compiled already",
    "CT2_FORCE_CPU_ISA": "set to AVX512 (unless already set) before CTranslate2 loads, on CPUs that have it",
    # the embedding path
    "ICML_TOPICS_DIRECT_BELOW": "corpora of fewer papers than this are embedded with the packaged model directly, "
    "without the once-per-machine setup",
    # tests
    "ICML_TOPICS_KILL_AT": "test hook: the process kills itself at this step of an output folder's swap",
}
"""Name -> what it does; the only variables the package reads or sets."""
