"""The demo's outputs read as a person would write them: a map that names every colour it draws, a report without
"1 resolutions" or "1 topics", key numbers that add up, and a CLI summary that says what the 38 papers are about.

All on the demo's own fit (``demo_fitted``: TopicMap(random_state=42) on the bundled seed abstracts)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# a count of one with a plural noun: "1 resolutions", "1 topics", "1 papers", "1 broad topics", "1 fine ones"
ONE_WITH_PLURAL = re.compile(
    r"(?<![\d.,])1 (?:more |broad |fine |research )?(resolutions|topics|themes|papers|levels|nodes|outliers|ones)\b"
)


def _drawn_papers(documents: pd.DataFrame) -> pd.DataFrame:
    """The papers the static map draws, in its order: modelled ones with finite coordinates."""
    docs = documents[documents["status"].astype("string") == "ok"]
    xy = docs[["x", "y"]].apply(pd.to_numeric, errors="coerce")
    return docs[np.isfinite(xy.to_numpy()).all(axis=1)].reset_index(drop=True)


def _hex(rgba) -> str:
    from matplotlib.colors import to_hex

    return to_hex(rgba, keep_alpha=False)


def _words(text: str) -> str:
    return " ".join(text.split())  # DataMapPlot wraps long names over lines


def test_counted_nouns_are_singular_for_one_and_plural_otherwise():
    from icml_topics._wording import counted

    assert [counted(n, "resolution") for n in (0, 1, 2)] == ["0 resolutions", "1 resolution", "2 resolutions"]
    assert counted(1, "fine one") == "1 fine one" and counted(12_345, "paper") == "12,345 papers"
    assert counted(1, "child", "children") == "1 child" and counted(3, "child", "children") == "3 children"


def test_the_topic_tree_sentence_counts_its_levels_as_a_person_would():
    from icml_topics.report.fit_report import tree_sentence

    one_level = tree_sentence(pd.Series([2], index=[0]))
    assert "1 resolution" not in one_level and "single level" in one_level and "2 topics" in one_level
    assert "finer topics" not in one_level  # a one-level tree has no finer topics in its boxes
    nested = tree_sentence(pd.Series([7, 1], index=[0, 1]))
    assert "2 resolutions" in nested and "from 1 broad topic to 7 fine ones" in nested
    assert not ONE_WITH_PLURAL.search(nested)


def test_the_demo_map_has_a_label_or_legend_entry_for_every_colour(demo_fitted):
    """From what the map is drawn from: each point's colour (the scatter's face colours, in the papers' order)
    belongs to one theme, and that theme is named over its papers (a DataMapPlot label) or in the legend, whose
    marker has the theme's colour and whose count is the theme's number of papers on the map."""
    from matplotlib.collections import PathCollection
    from matplotlib.text import Annotation

    from icml_topics.plotting import plot_map_static

    docs = _drawn_papers(demo_fitted.documents_)
    fig = plot_map_static(demo_fitted.documents_)
    ax = fig.axes[0]
    scatter = [c for c in ax.collections if isinstance(c, PathCollection) and len(c.get_offsets()) == len(docs)]
    assert len(scatter) == 1, "one scatter of every drawn paper"
    colors = [_hex(c) for c in np.broadcast_to(scatter[0].get_facecolors(), (len(docs), 4))]
    themes = docs["theme"].astype("string").fillna("").str.strip().tolist()
    outlier = (pd.to_numeric(docs["topic"], errors="coerce") == -1).tolist()

    theme_of: dict[str, set[str]] = {}
    for color, theme in zip(colors, themes):
        theme_of.setdefault(color, set()).add(theme)
    assert all(len(t) == 1 for t in theme_of.values()), theme_of  # a colour means one theme
    assert len(theme_of) > 10, "the demo colours many themes (some lighter for outliers)"

    labels = {_words(a.get_text()) for a in ax.texts if isinstance(a, Annotation) and a.get_text().strip()}
    legend = ax.get_legend()
    entries: dict[str, tuple[str, int]] = {}
    if legend is not None:
        for text, handle in zip(legend.get_texts(), legend.legend_handles):
            name, count = re.fullmatch(r"(.+) \((\d+) papers?\)", text.get_text()).groups()
            entries[name] = (_hex(handle.get_markerfacecolor()), int(count))

    unnamed = sorted({t or "(no theme)" for t in themes if (t or "No theme") not in labels | set(entries)})
    assert unnamed == [], f"colours on the map with neither a label nor a legend entry: {unnamed}"
    for name, (color, count) in entries.items():
        rows = [i for i, t in enumerate(themes) if (t or "No theme") == name]
        assert count == len(rows), name
        clustered = {colors[i] for i in rows if not outlier[i]}
        assert not clustered or clustered == {color}, f"{name}: legend marker {color}, points {clustered}"
    assert not labels & set(entries), "a theme is named once: over its papers or in the legend"


def test_the_demo_report_reads_as_a_person_writes_and_its_key_numbers_add_up(demo_fitted, tmp_path: Path):
    page = (demo_fitted.report(tmp_path / "report.html")).read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))  # the words on the page, hover texts (JSON) included
    assert not ONE_WITH_PLURAL.findall(text), sorted(set(ONE_WITH_PLURAL.findall(text)))

    metrics = dict(
        re.findall(r'<span class="metric-value">([^<]*)</span><span class="metric-name">([^<]*)</span>', page)
    )
    cards = {name: value for value, name in metrics.items()}
    docs = demo_fitted.documents_
    modelled = int((docs["status"] == "ok").sum())
    assert (pd.to_numeric(docs.loc[docs["status"] == "ok", "topic"]) >= 0).all(), "every paper has a topic"
    assert cards["modelled"] == str(modelled)
    assert cards["topics"] == str(len(demo_fitted.topics_)) and "papers in no topic" not in cards


def test_the_demo_report_describes_what_its_map_has_and_names_untitled_papers(demo_fitted, tmp_path: Path):
    """The demo's papers are of one year and have no titles: its map text mentions no year menu (the map has
    none), and the topics table shows each topic's representative papers by their abstract's first sentence
    (the column was empty)."""
    from icml_topics.report.fit_report import topics_table

    docs, topics = demo_fitted.documents_, demo_fitted.topics_
    assert docs["year"].nunique() == 1 and docs["title"].fillna("").eq("").all()
    page = (demo_fitted.report(tmp_path / "report.html")).read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "year menu" not in text
    no_theme = docs.loc[docs["status"] == "ok", "theme"].fillna("").eq("").any()
    assert ("papers without a theme" in text) == bool(no_theme)
    table = topics_table(topics, docs)
    shown = table["most representative papers"]
    assert len(shown) == len(topics) and shown.str.len().gt(0).all(), shown.tolist()
    abstracts = dict(zip(docs["id"], docs["abstract"]))
    for ids, cell in zip(topics.sort_values("size", ascending=False, kind="stable")["representative_ids"], shown):
        opening = " ".join(abstracts[ids[0]].split())[:40]  # the first paper's abstract starts its cell
        assert cell.startswith(opening), (cell, opening)
        assert opening in text


def test_the_demo_cli_summary_says_what_the_papers_are_about_and_accounts_for_each(demo_fitted, capsys):
    from icml_topics.cli.fit import print_summary

    paths = {k: Path(f"demo/{k}") for k in ("report", "documents", "topics", "themes")}
    print_summary(demo_fitted, paths)
    lines = capsys.readouterr().out.splitlines()
    docs = demo_fitted.documents_[demo_fitted.documents_["status"] == "ok"]
    topic = pd.to_numeric(docs["topic"], errors="coerce")
    n_topics, outliers = int(topic[topic != -1].nunique()), int((topic == -1).sum())
    themes = docs["theme"].astype("string").fillna("").str.strip()
    sizes = themes[themes != ""].value_counts()

    head = re.match(
        r"(\d+) papers? in (\d+) topics? under (\d+) research themes?, (\d+) papers? without a theme", lines[0]
    )
    assert head, lines[0]
    assert outliers == 0 and "no topic" not in lines[0]
    assert [int(g) for g in head.groups()] == [len(docs), n_topics, len(sizes), int((themes == "").sum())]

    rows = [re.fullmatch(r"\s+(\d+) papers?\s+[\d.]+%\s+(.+)", line) for line in lines[2:]]
    rows = [r for r in rows if r]
    listed = {name: int(n) for n, name in (r.groups() for r in rows) if not name.startswith("in ")}
    assert 1 <= len(listed) <= 10 and all(sizes[name] == n for name, n in listed.items()), listed
    rest = [(int(n), name) for n, name in (r.groups() for r in rows) if name.startswith("in ")]
    if len(sizes) > len(listed):
        ((papers, words),) = rest
        more = int(re.fullmatch(r"in (\d+) more themes?", words).group(1))
        assert more == len(sizes) - len(listed) and papers == int(sizes.sum()) - sum(listed.values())
    total = sum(n for n, _ in rest) + sum(listed.values()) + int((themes == "").sum())
    assert total == len(docs), "the listed themes, the rest and the papers without a theme make every paper"
    assert lines[-2] == "Report: demo/report"


@pytest.mark.parametrize("line", ["1 resolutions", "from 1 broad topics", "1 papers · 1 topics", "to 1 fine ones"])
def test_the_report_check_catches_a_count_of_one_with_a_plural(line):
    assert ONE_WITH_PLURAL.search(line)
