"""Topic alignment between separately fitted models (icml_topics.compare.align)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from icml_topics.compare import TopicAlignment, align_models, align_topics
from icml_topics.fitted_tables import FittedTables

DIM = 8


def e(i: int) -> np.ndarray:
    v = np.zeros(DIM)
    v[i] = 1.0
    return v


def rotated(i: int, j: int, degrees: float) -> np.ndarray:
    """Unit vector at ``degrees`` from axis i towards axis j (cosine to e_i = cos(degrees))."""
    t = math.radians(degrees)
    return math.cos(t) * e(i) + math.sin(t) * e(j)


COS20, COS30 = math.cos(math.radians(20)), math.cos(math.radians(30))


def constructed_case() -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray]:
    """Year A and year B with known events.

    A0 ~ B0 (identical); A1 split into B1 and B2; A2 and A3 merged into B3; A4 vanished; B4 is new.
    Both sides also have an outlier topic -1 whose centroid equals A0 / B0 (it must be ignored).
    """
    topics_a = pd.DataFrame(
        {
            "topic": [-1, 0, 1, 2, 3, 4],
            "label": ["Outliers", "GNNs", "RL", "Diffusion", "Score models", "Kernels"],
            "theme": ["", "Graphs", "RL", "Generative", "Generative", "Kernels"],
            "size": [40, 30, 50, 20, 25, 15],
            "keywords": [
                ["graph neural networks", "message passing"],
                ["graph neural networks", "message passing"],
                ["reinforcement learning", "policy optimization"],
                ["diffusion models", "image generation"],
                ["score matching", "generative models"],
                ["kernel methods", "gaussian processes"],
            ],
        }
    )
    emb_a = np.stack([e(0), e(0), e(1), rotated(2, 3, 20), rotated(2, 3, -30), e(4)]).astype(np.float32)
    topics_b = pd.DataFrame(
        {
            "topic": [-1, 0, 1, 2, 3, 4],
            "label": ["Outliers", "GNNs", "Offline RL", "Exploration", "Diffusion & scores", "LLMs"],
            "theme": ["", "Graphs", "RL", "RL", "Generative", "Language"],
            "size": [60, 35, 30, 28, 70, 90],
            "keywords": [
                ["graph neural networks", "message passing"],
                ["graph neural networks", "message passing"],
                ["offline reinforcement learning", "policy optimization"],
                ["reinforcement learning", "exploration", "bandits"],
                ["diffusion models", "generative models", "score matching"],
                ["large language models", "instruction tuning"],
            ],
        }
    )
    emb_b = np.stack([e(0), e(0), rotated(1, 5, 20), rotated(1, 5, -30), e(2), e(6)]).astype(np.float32)
    return topics_a, emb_a, topics_b, emb_b


# Hand-computed similarities, keyword_weight = 0.25 (Jaccard over the words of the keyphrases):
SIM_A1_B1 = 0.75 * COS20 + 0.25 * 4 / 5  # {reinforcement, learning, policy, optimization} vs + {offline}
SIM_A1_B2 = 0.75 * COS30 + 0.25 * 2 / 6  # share {reinforcement, learning} out of 6 words
SIM_A2_B3 = 0.75 * COS20 + 0.25 * 2 / 7  # share {diffusion, models} out of 7 words
SIM_A3_B3 = 0.75 * COS30 + 0.25 * 4 / 5  # share {score, matching, generative, models} out of 5 words


def test_similarity_matrix_combines_centroid_cosine_and_keyword_jaccard() -> None:
    al = align_topics(*constructed_case())
    assert al.similarity.shape == (5, 5)  # outlier topics left out
    assert list(al.topics_a) == [0, 1, 2, 3, 4] and list(al.topics_b) == [0, 1, 2, 3, 4]
    assert al.similarity[0, 0] == pytest.approx(1.0)
    assert al.similarity[1, 1] == pytest.approx(SIM_A1_B1)
    assert al.similarity[1, 2] == pytest.approx(SIM_A1_B2)
    assert al.similarity[2, 3] == pytest.approx(SIM_A2_B3)
    assert al.similarity[3, 3] == pytest.approx(SIM_A3_B3)
    assert al.similarity[4].max() == pytest.approx(0.0)  # Kernels: nothing in common with B
    assert al.keyword_similarity[3, 4] == pytest.approx(1 / 8)  # only "models" shared with the LLM topic


def test_many_to_one_finds_the_planted_split_merge_vanished_and_new_topics() -> None:
    al = align_topics(*constructed_case(), threshold=0.7)
    assert al.status_a.to_dict() == {0: "matched", 1: "split", 2: "merged", 3: "merged", 4: "vanished"}
    assert al.status_b.to_dict() == {0: "matched", 1: "split", 2: "split", 3: "merged", 4: "new"}
    assert al.counts() == {"matched": 1, "split": 1, "merged": 1, "finer": 0, "coarser": 0, "vanished": 1, "new": 1}
    links = set(zip(al.pairs["topic_a"], al.pairs["topic_b"]))
    assert links == {(0, 0), (1, 1), (1, 2), (2, 3), (3, 3)}
    relation = dict(zip(zip(al.pairs["topic_a"], al.pairs["topic_b"]), al.pairs["relation"]))
    assert relation[(1, 2)] == "split" and relation[(2, 3)] == "merged" and relation[(0, 0)] == "matched"
    summary = al.summary.set_index(["side", "topic"])
    assert summary.loc[("a", 1), "partners"] == [1, 2]
    assert summary.loc[("b", 3), "partners"] == [2, 3]
    assert summary.loc[("a", 4), "best_similarity"] == pytest.approx(0.0)


def test_pairs_table_has_the_contract_columns_and_sizes() -> None:
    al = align_topics(*constructed_case())
    assert list(al.pairs.columns[:9]) == [
        "topic_a",
        "label_a",
        "topic_b",
        "label_b",
        "similarity",
        "centroid_similarity",
        "keyword_similarity",
        "size_a",
        "size_b",
    ]
    row = al.pairs[(al.pairs["topic_a"] == 1) & (al.pairs["topic_b"] == 2)].iloc[0]
    assert (row["label_a"], row["label_b"], row["size_a"], row["size_b"]) == ("RL", "Exploration", 50, 28)
    assert row["centroid_similarity"] == pytest.approx(COS30)
    assert row["keyword_similarity"] == pytest.approx(1 / 3)


def test_one_to_one_keeps_the_best_partner_only() -> None:
    al = align_topics(*constructed_case(), mode="one-to-one")
    assert set(zip(al.pairs["topic_a"], al.pairs["topic_b"])) == {(0, 0), (1, 1), (3, 3)}
    assert al.status_a.to_dict() == {0: "matched", 1: "matched", 2: "vanished", 3: "matched", 4: "vanished"}
    assert al.status_b.to_dict() == {0: "matched", 1: "matched", 2: "new", 3: "matched", 4: "new"}
    assert al.counts() == {"matched": 3, "split": 0, "merged": 0, "finer": 0, "coarser": 0, "vanished": 2, "new": 2}


def test_a_higher_threshold_turns_weak_links_into_vanished_and_new() -> None:
    # SIM_A2_B3 ~ 0.776 and SIM_A1_B2 ~ 0.733 fall below 0.8; the other links are above it.
    assert SIM_A1_B2 < SIM_A2_B3 < 0.8 < SIM_A3_B3
    al = align_topics(*constructed_case(), threshold=0.8)
    assert al.status_a.to_dict() == {0: "matched", 1: "matched", 2: "vanished", 3: "matched", 4: "vanished"}
    assert al.status_b.to_dict() == {0: "matched", 1: "matched", 2: "new", 3: "matched", 4: "new"}
    gone = al.summary.set_index(["side", "topic"]).loc[("a", 2)]
    assert gone["best_match"] == 3 and gone["best_similarity"] == pytest.approx(SIM_A2_B3)
    everything_new = align_topics(*constructed_case(), threshold=1.01)
    assert everything_new.counts() == {
        "matched": 0,
        "split": 0,
        "merged": 0,
        "finer": 0,
        "coarser": 0,
        "vanished": 5,
        "new": 5,
    }


def test_outlier_topics_are_ignored() -> None:
    al = align_topics(*constructed_case())
    assert -1 not in set(al.summary["topic"])
    assert -1 not in set(al.pairs["topic_a"]) | set(al.pairs["topic_b"])


def test_keyword_weight_zero_uses_centroids_only_and_needs_no_keywords() -> None:
    ta, ea, tb, eb = constructed_case()
    al = align_topics(ta.drop(columns="keywords"), ea, tb.drop(columns="keywords"), eb, keyword_weight=0.0)
    assert al.similarity[1, 2] == pytest.approx(COS30)
    assert al.status_a[4] == "vanished" and al.status_b[4] == "new"
    with pytest.raises(ValueError, match=r"missing columns \['keywords'\].*keyword_weight=0"):
        align_topics(ta.drop(columns="keywords"), ea, tb, eb)


def test_keywords_joined_as_in_topics_csv_give_the_same_result() -> None:
    ta, ea, tb, eb = constructed_case()
    as_csv = align_topics(
        ta.assign(keywords=ta["keywords"].map("; ".join)), ea, tb.assign(keywords=tb["keywords"].map("; ".join)), eb
    )
    np.testing.assert_allclose(as_csv.similarity, align_topics(ta, ea, tb, eb).similarity)


def test_keyword_embedder_uses_the_cosine_of_mean_keyword_vectors() -> None:
    vectors = {"alpha": [1.0, 0.0], "beta": [0.0, 1.0], "gamma": [1.0, 1.0]}
    calls: list[list[str]] = []

    def embedder(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.array([vectors[t] for t in texts])

    ta = pd.DataFrame({"topic": [0], "label": ["x"], "size": [1], "keywords": [["alpha", "beta"]]})
    tb = pd.DataFrame({"topic": [0, 1], "label": ["y", "z"], "size": [1, 1], "keywords": [["alpha"], ["gamma"]]})
    al = align_topics(ta, np.eye(2)[:1], tb, np.eye(2), keyword_weight=1.0, keyword_embedder=embedder)
    # mean(alpha, beta) = (0.5, 0.5): cosine 1/sqrt(2) with alpha, 1 with gamma.
    assert al.keyword_similarity[0].tolist() == pytest.approx([1 / math.sqrt(2), 1.0])
    assert al.similarity[0].tolist() == pytest.approx([1 / math.sqrt(2), 1.0])
    assert calls == [["alpha", "beta", "gamma"]]  # each distinct keyphrase embedded once


def test_to_frame_is_a_crosswalk_with_vanished_and_new_rows() -> None:
    frame = align_topics(*constructed_case()).to_frame()
    assert len(frame) == 7  # 5 links + 1 vanished + 1 new
    assert frame["status"].value_counts().to_dict() == {"split": 2, "merged": 2, "matched": 1, "vanished": 1, "new": 1}
    vanished = frame[frame["status"] == "vanished"].iloc[0]
    assert vanished["topic_a"] == 4 and pd.isna(vanished["topic_b"])
    new = frame[frame["status"] == "new"].iloc[0]
    assert new["topic_b"] == 4 and new["label_b"] == "LLMs" and pd.isna(new["topic_a"])


def _fitted(topics: pd.DataFrame, centroids: np.ndarray) -> SimpleNamespace:
    """A stand-in for a fitted TopicMap: only its ``tables_`` (finest topics and their centroids)."""
    tables = FittedTables(
        documents=pd.DataFrame({"status": []}),
        topics=topics,
        themes=pd.DataFrame(),
        topic_tree=pd.DataFrame({"level": [], "topic": []}),
        topic_embeddings=centroids,
        theme_names=[],
        theme_embeddings=np.zeros((0, centroids.shape[1])),
        embeddings=np.zeros((0, centroids.shape[1])),
    )
    return SimpleNamespace(tables_=tables)


def test_align_models_reads_the_fitted_tables_of_both_models() -> None:
    ta, ea, tb, eb = constructed_case()
    al = align_models(_fitted(ta, ea), _fitted(tb, eb), level=None, threshold=0.7)
    assert isinstance(al, TopicAlignment)
    assert al.counts()["split"] == 1
    with pytest.raises(ValueError, match="model_b is not a fitted TopicMap \\(it has no tables_\\): fit it first"):
        align_models(_fitted(ta, ea), object())


def test_input_errors_name_the_problem_and_the_fix() -> None:
    ta, ea, tb, eb = constructed_case()
    with pytest.raises(ValueError, match=r"emb_b must have one row per row of topics_b \(6 rows\)"):
        align_topics(ta, ea, tb, eb[:3])
    with pytest.raises(ValueError, match="different embedding models"):
        align_topics(ta, ea, tb, np.hstack([eb, eb]))
    with pytest.raises(ValueError, match="mode must be"):
        align_topics(ta, ea, tb, eb, mode="greedy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="keyword_weight"):
        align_topics(ta, ea, tb, eb, keyword_weight=1.5)
    with pytest.raises(ValueError, match="duplicated topic ids"):
        align_topics(pd.concat([ta, ta.tail(1)]), np.vstack([ea, ea[-1:]]), tb, eb)


def test_a_coarser_model_is_a_granularity_difference_not_a_merge() -> None:
    """A has six topics, B the same papers in two: each B topic takes three A topics, as the 1:3 resolution
    explains; B at A's resolution with one real merge still reports it as merged."""
    rng = np.random.default_rng(0)
    centres = np.eye(8)[:2]
    fine = np.vstack([centres[i // 3] + 0.25 * rng.standard_normal(8) * np.eye(8)[2 + i % 3] for i in range(6)])
    topics_a = pd.DataFrame({"topic": range(6), "label": [f"a{i}" for i in range(6)], "size": 10})
    topics_b = pd.DataFrame({"topic": range(2), "label": ["b0", "b1"], "size": 30})
    al = align_topics(topics_a, fine, topics_b, centres, keyword_weight=0.0, threshold=0.7)
    assert al.resolution_ratio == pytest.approx(2 / 6)
    assert set(al.status_b) == {"coarser"} and set(al.status_a) == {"coarser"}
    assert al.counts()["merged"] == 0 and al.counts()["coarser"] == 2
    assert set(al.pairs["relation"]) == {"coarser"} and set(al.pairs["confidence"]) <= {"high", "medium", "low"}
    # same resolution, well separated topics: every link matched with high confidence; near-copies (the
    # three A topics inside one B topic) are linked with low confidence
    apart = np.eye(8)[:6]
    same = align_topics(topics_a, apart, topics_a, apart, keyword_weight=0.0, threshold=0.7)
    assert same.counts()["matched"] == 6 and (same.pairs["confidence"] == "high").all()
    close = align_topics(topics_a, fine, topics_a, fine, keyword_weight=0.0, threshold=0.7)
    assert (close.pairs["confidence"] == "low").all()


def test_models_with_a_tree_are_aligned_at_matching_levels() -> None:
    from icml_topics.compare.resolution import matching_levels

    tree_a = pd.DataFrame({"level": [0] * 30 + [1] * 8 + [2] * 3, "topic": [*range(30), *range(8), *range(3)]})
    tree_b = pd.DataFrame({"level": [0] * 9 + [1] * 3, "topic": [*range(9), *range(3)]})
    assert matching_levels(tree_a, tree_b) == (2, 1)  # 3 nodes and 3 nodes
    assert matching_levels(tree_b, tree_a) == (1, 2)
    assert matching_levels(tree_a[tree_a["level"] < 2], tree_b[tree_b["level"] == 0]) == (1, 0)  # 8 vs 9


def test_an_unstable_node_is_matched_never_split_or_merged():
    ta = pd.DataFrame({"topic": [0], "label": ["RL"], "size": [40], "keywords": [["policy"]], "stability": [0.2]})
    tb = pd.DataFrame(
        {"topic": [0, 1], "label": ["offline RL", "online RL"], "size": [20, 20], "keywords": [["policy"]] * 2}
    )
    emb_b = np.array([[1.0, 0.1, 0.0], [1.0, 0.0, 0.1]])
    unstable = align_topics(ta, np.array([[1.0, 0.05, 0.05]]), tb, emb_b, keyword_weight=0)
    assert unstable.counts()["split"] + unstable.counts()["finer"] == 0 and len(unstable.pairs) == 1
    assert unstable.pairs["confidence"].tolist() == ["low"]
    stable = align_topics(ta.assign(stability=0.9), np.array([[1.0, 0.05, 0.05]]), tb, emb_b, keyword_weight=0)
    assert stable.counts()["split"] + stable.counts()["finer"] == 1 and len(stable.pairs) == 2
