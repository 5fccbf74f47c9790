"""Quality measures, computed the same way for every pipeline with the library's own evaluators.

* NPMI coherence of each topic's top 10 keywords, document co-occurrence over the *cleaned* text of
  the sample (``icml_topics.corpus`` cleaning: LaTeX/HTML stripped), the same documents for every
  pipeline (``icml_topics.evaluate.npmi_coherence``): ``npmi`` on the keywords as the pipeline gives
  them (a keyphrase counts where the whole phrase occurs), ``npmi_words`` on the keywords split into
  their first 10 distinct words (the same thing for BERTopic's single words);
* topic diversity of the top 25 keywords (``topic_diversity``; both pipelines keep 10 keywords per
  topic, so it covers those 10);
* outlier share (HDBSCAN topic -1) and unassigned share (BERTopic: topic -1; icml_topics: no theme);
* ARI / NMI against the packaged dev labels (``load_dev_labels``) for the sampled documents that
  have one: BERTopic's topic ids, icml_topics' themes (and its topic ids, for a like-for-like view).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["agreement", "keyword_quality"]


def _finite(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def keyword_quality(keywords: Sequence[Sequence[str]], reference_texts: Sequence[str]) -> dict[str, Any]:
    """``npmi`` (top 10) and ``diversity`` (top 25) of the non-outlier topics' keywords."""
    from icml_topics.evaluate import default_tokenizer, npmi_coherence, topic_diversity

    topics = [[w for w in words if w and str(w).strip()] for words in keywords]
    topics = [t for t in topics if t]
    if not topics:
        return {"npmi": None, "npmi_words": None, "diversity": None}
    docs = [default_tokenizer(t) for t in reference_texts]  # tokenised once, used twice
    npmi, _ = npmi_coherence(topics, docs, top_n=10)
    npmi_words, _ = npmi_coherence([_words(t) for t in topics], docs, top_n=10)
    return {
        "npmi": _finite(npmi),
        "npmi_words": _finite(npmi_words),
        "diversity": _finite(topic_diversity(topics, top_n=25)),
    }


def _words(keywords: Sequence[str]) -> list[str]:
    """Keyphrases split into their words, first occurrence kept: ``["graph neural", "graph"]`` -> graph, neural."""
    from icml_topics.evaluate import default_tokenizer

    out: list[str] = []
    for kw in keywords:
        for w in default_tokenizer(str(kw)):
            if w not in out:
                out.append(w)
    return out


def agreement(ids: Sequence[str], predicted: Sequence[Any], dev: dict[str, str], prefix: str = "") -> dict[str, Any]:
    """ARI / NMI of ``predicted`` (one per id) against the dev labels of the ids that have one."""
    from icml_topics.evaluate import label_agreement

    pairs = [(p, dev[str(i)]) for i, p in zip(ids, predicted) if str(i) in dev]
    if len(pairs) < 2:
        return {f"{prefix}ari": None, f"{prefix}nmi": None, "n_labelled": len(pairs)}
    pred, ref = zip(*pairs)
    scores = label_agreement(list(pred), list(ref))
    return {f"{prefix}ari": _finite(scores["ari"]), f"{prefix}nmi": _finite(scores["nmi"]), "n_labelled": scores["n"]}
