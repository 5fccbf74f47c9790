"""Identical abstracts are one point: they share every node, build no tree of their own and make no trend.

Issue 38 case 9: 20,000 copies of one abstract gave 1 fine topic but a topic tree of 1,309 nodes over 5
levels; 199 copies (100 in 2019, 99 in 2024) plus one other paper were split by row order into 13 finest
nodes, and ``compare`` reported 5 ``new`` and 4 ``vanished`` nodes at 5% FDR. Real ICML abstracts; 500
copies stand for the 20,000 (the same defect, a test-sized fit).
"""

from __future__ import annotations

import pandas as pd

from icml_topics import TopicMap


def _paper(row: pd.Series, i: int, year: int) -> dict:
    return {"id": f"copy-{i}", "title": row["title"], "abstract": row["abstract"], "year": year}


def _node_columns(docs: pd.DataFrame) -> list[str]:
    return ["topic", *[c for c in docs.columns if c.startswith("topic_") and c[6:].isdigit()]]


def test_copies_of_one_abstract_share_every_node_and_make_no_trend(icml_frame):
    one, other = icml_frame.iloc[0], icml_frame.iloc[1]
    rows = [_paper(one, i, 2019 if i < 100 else 2024) for i in range(199)]
    rows.append({"id": "other", "title": other["title"], "abstract": other["abstract"], "year": 2024})
    from icml_topics.workflows import compare

    result = compare(pd.DataFrame(rows), by="year", random_state=0, align=True, min_align_docs=50)  # years aligned
    docs = result.model.documents_
    copies = docs[docs["id"].astype(str).str.startswith("copy-")]
    for column in _node_columns(docs):
        assert copies[column].nunique(dropna=False) == 1, f"the copies fall in several nodes of {column}"
    tree = result.model.topic_tree_
    # every paper is placed: the copies' node and, at most, one for the other paper; nothing split further
    assert tree.groupby("level")["topic"].nunique().max() <= 2
    status = result.topics.status
    assert set(status["status"]) == {"stable"}, status[["level", "topic", "status"]].to_string()
    assert not result.movers["significant"].any()
    # each year fitted on its own is one topic: matched, never split into copies (before: "split", "merged")
    counts = result.alignment.counts()  # 2024 also holds the other paper: at most one new topic, its own
    assert counts == {
        "matched": 1,
        "split": 0,
        "merged": 0,
        "finer": 0,
        "coarser": 0,
        "vanished": 0,
        "new": counts["new"],
    }
    assert counts["new"] <= 1


def test_a_corpus_of_one_abstract_gives_one_node_per_level(icml_frame, tmp_path):
    one = icml_frame.iloc[2]
    corpus = pd.DataFrame([_paper(one, i, 2024) for i in range(500)])
    tm = TopicMap(random_state=0).fit(corpus)
    assert (tm.documents_["topic"] == tm.documents_["topic"].iloc[0]).all()
    assert len(set(tm.topics_["topic"].tolist()) - {-1}) == 1
    tree = tm.topic_tree_
    assert tree.groupby("level")["topic"].nunique().max() == 1
    from icml_topics.outputs import write_outputs

    write_outputs(tm, tmp_path / "out", report=False, static_map=False)
    written = pd.read_csv(tmp_path / "out" / "topic_tree.csv")  # before: 30, 8 and 3 nodes
    assert written.empty or written.groupby("level")["topic"].nunique().max() == 1
    for column in _node_columns(tm.documents_):
        assert tm.documents_[column].nunique(dropna=False) == 1


def test_duplicated_real_abstracts_share_their_originals_nodes(real_sample):
    """240 real ICML abstracts (2019 and 2024), 30 of them appended twice more and one 60 times more (before
    the fix, those 60 copies fell in 5 finest nodes): every copy has its original's fine topic and node at
    every tree level."""
    originals = real_sample.assign(id=[f"p{i}" for i in range(len(real_sample))])
    picked = originals.iloc[::8].head(30)
    copies = [picked.assign(id=picked["id"] + f"-copy{k}") for k in (1, 2)]
    many = originals.iloc[[5] * 60].assign(id=[f"p5-copy{k}" for k in range(3, 63)])
    corpus = pd.concat([originals, *copies, many], ignore_index=True)
    tm = TopicMap(random_state=0, topic_sizes=(40, 12)).fit(corpus)  # two levels (by default 240 papers get one)
    docs = tm.documents_.set_index(tm.documents_["id"].astype(str))
    assert tm.topic_tree_ is not None and len(tm.topic_tree_), "240 distinct abstracts build a tree"
    columns = _node_columns(tm.documents_)
    assert len(columns) > 2
    pairs = [(pid, f"{pid}-copy{k}") for pid in picked["id"] for k in (1, 2)]
    pairs += [("p5", f"p5-copy{k}") for k in range(3, 63)]
    differ = [(a, b) for a, b in pairs if docs.loc[a, columns].tolist() != docs.loc[b, columns].tolist()]
    assert not differ, f"{len(differ)} of {len(pairs)} copies differ from their original: {differ[:5]}"
