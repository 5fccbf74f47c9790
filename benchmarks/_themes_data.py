"""Shared inputs of the theme benchmarks: labelled corpora with their embeddings, and the taxonomy's prototypes.

Embeddings come from the embedding cache (``ICML_TOPICS_CACHE_DIR``), so a warm cache embeds nothing.
Each corpus is placed on its own (the rule's neighbours and centroids come from that corpus): ICML
2013-2024, NeurIPS 1987-2018 and the 38 bundled ICML 2026 abstracts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(os.environ.get("ICML_TOPICS_SHARED_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
CORPORA = {
    "icml": "icml-2013-2024.jsonl.gz",
    "neurips": "neurips-1987-2018.jsonl.gz",
    "seeds": None,  # bundled
}


@dataclass
class Corpus:
    name: str
    frame: pd.DataFrame  # modelled rows: id, year, title, abstract
    embeddings: np.ndarray
    precision: str = "auto"  # the embedding path the vectors came from (theme texts are embedded on it too)


def load_corpus(name: str, precision: str = "auto") -> Corpus | None:
    """A corpus's modelled rows and their embeddings (on embedding path ``precision``), or None when its
    file is absent: read and embedded by the fit's own stage functions (``fitting.read_flagged``,
    ``fitting.document_embeddings``)."""
    from icml_topics.cli.demo import sample_path
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import Embedder, document_embeddings, read_flagged

    path = sample_path() if CORPORA[name] is None else SHARED / CORPORA[name]
    if not Path(path).is_file():
        return None
    flagged = read_flagged(path, prepend_title=True)
    ok = (flagged["status"] == "ok").to_numpy()
    rows = flagged[ok].reset_index(drop=True)
    emb = document_embeddings(
        rows["text"].tolist(), None, ok, Embedder(FitConfig.from_params({"precision": precision}))
    )
    return Corpus(name, rows[["id", "year", "title", "abstract"]].copy(), emb, precision)


def prototypes(taxonomy, precision: str = "auto"):
    """The taxonomy's prototype vectors, embedded as ``TopicMap`` does (cached)."""
    from icml_topics.embedding import embed
    from icml_topics.themes.assign import embed_prototypes

    return embed_prototypes(taxonomy.theme_texts(), lambda texts: embed(texts, precision=precision))


def place(corpus: Corpus, taxonomy, settings, *, titles=None, abstracts=None, head=None) -> pd.DataFrame:
    """Run the fit's theme stage (``fitting.assign_themes``) on one corpus as ``TopicMap`` does with the
    default model (the supervised head when ``settings.supervised_head``, or ``head``); the frame gains
    theme, theme_score, theme_2, theme_2_score."""
    from icml_topics.fit_config import FitConfig
    from icml_topics.fitting import Embedder, assign_themes

    config = FitConfig.from_params({"precision": corpus.precision, "theme_settings": settings, "taxonomy": taxonomy})
    titles = corpus.frame["title"].tolist() if titles is None else titles
    abstracts = corpus.frame["abstract"].tolist() if abstracts is None else abstracts
    _, docs = assign_themes(
        corpus.embeddings, titles, abstracts, taxonomy, settings, Embedder(config), config, head=head
    )
    out = corpus.frame.copy()
    out["theme"], out["theme_score"], out["theme_2"], out["theme_2_score"] = (
        docs.theme,
        docs.score,
        docs.theme_2,
        docs.score_2,
    )
    return out


def accuracy(placed: pd.DataFrame, labels: pd.DataFrame) -> dict:
    """Primary and primary-or-secondary accuracy of ``placed`` on the labelled ids it holds."""
    m = placed.merge(labels, on="id", suffixes=("", "_label"))
    primary = m["theme"] == m["theme_label"]
    either = primary | (m["theme"] == m["second_theme"].fillna("\0"))
    return {
        "n": len(m),
        "primary": float(primary.mean()) if len(m) else float("nan"),
        "primary_or_secondary": float(either.mean()) if len(m) else float("nan"),
    }
