"""A list of English words is no research evidence: it gets no theme, whatever words it names (issue 48).

Before, word salad got a theme whenever its embedding came close enough to a theme or it named a theme's term:
"graph network lattice signal model data" x 20 was given a theme by its term 'graph'. Now an abstract of 20
words or more that is not prose (English function words such as "we", "the", "of" are under 10% of its words;
real ICML abstracts have 23% or more) gets no theme, with a reason that says so; real abstracts keep theirs.
"""

from __future__ import annotations

import pandas as pd
import pytest

from icml_topics.text import function_word_share

SALADS = {
    "banana": "banana quantum velvet staple orbit pepper " * 20,
    "research-words": "graph network lattice signal model data " * 20,
    "mixed": (
        "reinforcement banana policy velvet gradient orbit transformer pepper attention staple diffusion "
        "kernel meadow bandit regret lantern graph neural molecule protein ribbon language tokens "
    )
    * 3,
    "sentences-of-nouns": "Graph. Network. Kernel. Regret. Bandit. Policy. Molecule. Token. " * 10,
}


def _abstracts(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"id": frame.index.astype(str), "abstract": frame["abstract"].tolist()})


@pytest.fixture(scope="module")
def placed(seeds_fitted) -> pd.DataFrame:
    salads = pd.DataFrame({"id": list(SALADS), "abstract": list(SALADS.values())})
    return seeds_fitted.transform(salads).set_index("id")


@pytest.mark.parametrize("name", list(SALADS))
def test_word_lists_get_no_theme(placed, name):
    row = placed.loc[name]
    assert row["theme"] == "", row["theme_reason"]
    assert pd.isna(row["theme_score"])
    assert row["theme_reason"].startswith("no theme")


def test_the_reason_names_the_missing_prose(placed):
    assert "not prose" in placed.loc["research-words", "theme_reason"]


def test_real_abstracts_are_prose_and_keep_their_themes(seeds_fitted, icml_frame):
    sample = icml_frame.sample(n=60, random_state=3)
    assert min(function_word_share(t)[0] for t in sample["abstract"]) >= 0.2  # far above the 10% rule
    out = seeds_fitted.transform(pd.DataFrame({"id": [f"r{i}" for i in range(60)], "abstract": sample["abstract"]}))
    assert not out["theme_reason"].str.contains("not prose").any()
    assert (out["theme"] != "").mean() >= 0.95
