"""The public interface: names, CLI help, plug-in contracts, seeds, summaries and output tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from typer.testing import CliRunner

import icml_topics
from icml_topics import TopicMap
from icml_topics.cli import app
from icml_topics.cli.compare import alignment_line
from icml_topics.cli.demo import sample_path
from icml_topics.stages import (
    MapProjector,
    ReducerProtocol,
    seed_from,
)
from icml_topics.themes.assign import embed_prototypes


def test_dir_lists_the_public_api_and_every_name_imports():
    names = dir(icml_topics)
    assert {"TopicMap", "ThemeSettings", "read_corpus", "bertopic_documents"} <= set(names)
    assert "Any" not in names and "TYPE_CHECKING" not in names
    for name in icml_topics.__all__:
        assert getattr(icml_topics, name) is not None
    from icml_topics.themes.assign import ThemeSettings

    assert icml_topics.ThemeSettings is ThemeSettings


@pytest.mark.parametrize("command", ["fit", "compare", "fetch", "demo"])
def test_cli_help_shows_no_python_type_labels(command):
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output and "<list[" not in result.output and "<str>" not in result.output
    assert "--out" in result.output


def test_alignment_counts_read_as_words():
    line = alignment_line({"matched": 12, "split": 1, "merged": 0, "vanished": 2, "new": 3})
    assert line == "12 topics matched, 1 split, 2 vanished, 3 new"
    assert "{" not in line and alignment_line({"matched": 0}) == "no topics to align"


def test_summary_counts_only_themes_with_papers():
    from icml_topics.fitted_tables import headline_numbers  # what TopicMap.summary() reports

    documents = pd.DataFrame(
        {"status": ["ok"] * 3, "is_duplicate": [False] * 3, "topic": [0, 0, 1], "theme": ["A", "A", "B"]}
    )
    topics = pd.DataFrame({"topic": [0, 1], "theme": ["A", "B"]})
    themes = pd.DataFrame({"theme": ["A", "B", "C"], "size": [2, 1, 0], "share": [2 / 3, 1 / 3, 0.0]})
    assert headline_numbers(documents, topics, themes)["themes"] == 2


def test_a_theme_without_description_has_only_its_seeds_as_prototypes():
    from icml_topics.themes.taxonomy import Taxonomy

    basis = {"desc": [1.0, 0.0, 0.0], "s1": [0.0, 1.0, 0.0], "s2": [0.0, 0.0, 1.0]}

    def embed(texts):
        return np.array([basis[t] for t in texts], dtype=np.float32)

    taxonomy = Taxonomy.from_dict(
        {"A": {"description": "desc", "seeds": ["s1"]}, "B": {"description": "", "seeds": ["s1", "s2"]}}
    )
    prototypes, owner = embed_prototypes(taxonomy.theme_texts(), embed)
    assert owner.tolist() == [0, 0, 1, 1]  # no text of B stands in for a missing description
    np.testing.assert_allclose(prototypes[owner == 1], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def test_seed_rule_is_scikit_learns():
    assert seed_from(3) == 3 and seed_from(np.int64(3)) == 3
    assert len({seed_from(None) for _ in range(5)}) > 1  # None: fresh randomness
    x = np.random.default_rng(0).normal(size=(60, 8)).astype(np.float32)
    fixed = [MapProjector(n_neighbors=5, random_state=1).fit_transform(x) for _ in range(2)]
    np.testing.assert_array_equal(fixed[0], fixed[1])
    fresh = [MapProjector(n_neighbors=5, random_state=None).fit_transform(x) for _ in range(2)]
    assert not np.allclose(fresh[0], fresh[1])  # UMAP with fresh randomness


def test_plugins_are_checked_against_their_protocols_before_any_work():
    assert isinstance(PCA(2), ReducerProtocol)
    with pytest.raises(TypeError, match="fit_transform"):
        TopicMap(reducer=object()).fit("no-such-file.jsonl")  # the file is never read
    with pytest.raises(TypeError, match="unexpected keyword argument 'clusterer'"):
        TopicMap(clusterer=KMeans(3))  # the topics come from the hierarchy under the themes, not a plug-in


@pytest.fixture(scope="module")
def sklearn_plugged():
    """The seed abstracts with scikit-learn's PCA as the map."""
    return TopicMap(reducer=PCA(2, random_state=0), random_state=0).fit(sample_path())


def test_sklearn_reducer_plugs_in_as_the_map(sklearn_plugged):
    ok = sklearn_plugged.documents_.query("status == 'ok'")
    expected = PCA(2, random_state=0).fit_transform(sklearn_plugged.embeddings_)
    np.testing.assert_allclose(ok[["x", "y"]].to_numpy(), expected, atol=1e-4)


def test_fit_outputs_hold_one_themes_table(sklearn_plugged, tmp_path):
    from icml_topics.outputs import write_outputs

    paths = write_outputs(sklearn_plugged, tmp_path / "out", save_model=False)
    assert not (tmp_path / "out" / "tables").exists()
    themes = pd.read_csv(paths["themes"])
    assert list(themes.columns) == list(sklearn_plugged.themes_.columns)
    assert "tables/" not in paths["report"].read_text(encoding="utf-8")


def test_random_state_none_caches_no_stage_result(tmp_path):
    root = tmp_path / "cache"  # its own cache: other test processes write stage results into the shared one
    TopicMap(random_state=None, min_topic_size=3, cache=root).fit(sample_path())
    assert (root / "embeddings.sqlite3").exists()  # this fit used that cache
    assert not [p for kind in ("reductions", "representations") for p in (root / kind).glob("*")]
