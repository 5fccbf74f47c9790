"""The packaged hand labels: valid theme names, the documented tune/held-out split, ids that exist."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from icml_topics.cli.demo import sample_path
from icml_topics.evaluate import load_theme_labels
from icml_topics.themes import Taxonomy


@pytest.fixture(scope="module")
def labels() -> pd.DataFrame:
    return load_theme_labels()


def test_labels_cover_the_three_sources_with_current_theme_names(labels):
    assert len(labels) >= 500 and labels["id"].is_unique
    source = labels["id"].str.extract(r"^(icml2026|icml|neurips)")[0]
    assert source.notna().all()
    counts = source.value_counts()
    assert counts["icml2026"] == 38 and counts["icml"] >= 300 and counts["neurips"] >= 150
    names = set(Taxonomy.default().names)
    assert set(labels["theme"]) <= names
    assert set(labels["second_theme"].dropna()) <= names
    assert (labels["theme"] != labels["second_theme"].fillna("")).all()


def test_split_is_the_documented_hash_stratified_halving(labels):
    # README: in batches 1 and 2, within each primary theme, ids sorted by SHA-256 of the id alternate
    # tune, heldout, tune, ...; batches 3-6 (training papers for the supervised head) are all tune.
    halved = labels[labels["batch"].isin(["1", "2"])]
    expected = {}
    for _, group in halved.groupby(["batch", "theme"]):
        ordered = sorted(group["id"], key=lambda i: hashlib.sha256(i.encode()).hexdigest())
        expected.update({i: ("tune" if k % 2 == 0 else "heldout") for k, i in enumerate(ordered)})
    assert halved["split"].tolist() == [expected[i] for i in halved["id"]]
    assert abs((halved["split"] == "tune").mean() - 0.5) < 0.05
    assert labels.loc[~labels["batch"].isin(["1", "2"]), "split"].eq("tune").all()
    assert set(labels["batch"]) <= {"1", "2", "3", "4", "5", "6"} and (labels["batch"] == "1").sum() == 520
    assert (labels["split"] == "heldout").sum() == 842  # later batches never change the held-out papers
    assert load_theme_labels("heldout")["split"].eq("heldout").all()
    with pytest.raises(ValueError, match="split must be"):
        load_theme_labels("test")


def test_every_bundled_seed_abstract_is_labelled(labels):
    ids = [json.loads(line)["id"] for line in sample_path().read_text(encoding="utf-8").splitlines() if line.strip()]
    assert set(ids) <= set(labels["id"])


def test_labelled_ids_exist_in_the_shared_corpora(labels, icml_frame):
    icml = labels[labels["id"].str.match(r"icml20(1\d|2[0-4])-")]
    assert set(icml["id"]) <= set(icml_frame["id"])


def test_no_training_paper_repeats_the_title_of_a_held_out_paper(labels, icml_frame):
    # the batches that only train the head skip every paper whose normalised title repeats a labelled one,
    # so a held-out paper is never learnt from under another id
    titles = icml_frame.set_index("id")["title"].fillna("").str.lower().str.replace(r"\W+", " ", regex=True).str.strip()
    known = labels[labels["id"].isin(titles.index)]
    held = set(titles[known.loc[known["split"] == "heldout", "id"]]) - {""}
    trained = titles[known.loc[known["split"] == "tune", "id"]]
    assert len(held) > 400 and not set(trained) & held
