"""199 copies of one abstract and one other paper that shares a single word with it (issue 48).

BERTopic's c-TF-IDF counts ``min_df`` over topics (each topic's texts joined), so two nodes whose texts share
one word have a one-word vocabulary, and ``fit`` and ``compare`` failed in the tree stage with ``TypeError:
object of type 'numpy.float64' has no len()`` (``scipy.sparse.diags``). Now both run, the copies share one node
at every level and no trend is invented from them. Each fit has a cache of its own: a keyphrase result cached
by an earlier run would hide the failure.
"""

from __future__ import annotations

import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer

from icml_topics.text import VECTORIZER_TOKEN_PATTERN, stop_words

COPIED = (
    "We study exploration in reinforcement learning with sparse rewards. Agents trained with an intrinsic "
    "curiosity bonus visit more states, and on twelve hard-exploration benchmarks the bonus doubles the "
    "success rate of policy gradient agents while adding a small overhead per environment step."
)
OTHER = (
    "Graph neural networks degrade on heterophilous graphs, where linked nodes tend to carry different "
    "labels. A spectral filter whose frequency response is fitted per graph recovers node classification "
    "accuracy on citation and co-purchase datasets; curiosity about long-range links motivates a second filter."
)


def test_the_two_abstracts_share_exactly_one_term():
    """The precondition of the case, with scikit-learn's own vectorizer on the keyphrase stage's words."""
    shared = CountVectorizer(
        stop_words=stop_words(), token_pattern=VECTORIZER_TOKEN_PATTERN, ngram_range=(1, 3), min_df=2
    ).fit([COPIED, OTHER])
    assert shared.get_feature_names_out().tolist() == ["curiosity"]


def _corpus() -> pd.DataFrame:
    rows = [{"id": f"copy-{i}", "abstract": COPIED, "year": 2019 if i < 100 else 2024} for i in range(199)]
    rows.append({"id": "other", "abstract": OTHER, "year": 2024})
    return pd.DataFrame(rows)


def test_fit_puts_the_copies_in_one_node_at_every_level(tmp_path):
    from icml_topics import TopicMap
    from icml_topics.outputs import write_outputs

    tm = TopicMap(random_state=0, cache=tmp_path / "cache").fit(_corpus())  # before: TypeError (tree stage)
    docs = tm.documents_
    copies = docs[docs["id"].astype(str).str.startswith("copy-")]
    for column in ["topic", *[c for c in docs.columns if c.startswith("topic_") and c[6:].isdigit()]]:
        assert copies[column].nunique(dropna=False) == 1, column
    write_outputs(tm, tmp_path / "out", report=False, static_map=False)
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_compare_runs_and_invents_no_trend(tmp_path):
    from icml_topics.workflows import compare

    result = compare(_corpus(), by="year", out=tmp_path / "cmp", random_state=0, cache=tmp_path / "cache")
    docs = result.model.documents_
    copies = docs[docs["id"].astype(str).str.startswith("copy-")]
    for column in ["topic", *[c for c in docs.columns if c.startswith("topic_") and c[6:].isdigit()]]:
        assert copies[column].nunique(dropna=False) == 1, column
    status = result.topics.status
    assert set(status["status"]) <= {"stable"}, status[["level", "topic", "status"]].to_string()
    assert not result.movers["significant"].any()
    assert (tmp_path / "cmp" / "manifest.json").is_file()
