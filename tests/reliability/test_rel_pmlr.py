"""PMLR BibTeX: braced accents are decoded in the displayed title; entries inherit the year,
booktitle and volume of their proceedings (``crossref`` or the file's single ``@Proceedings``)."""

from __future__ import annotations

from icml_topics.datasets import parse_pmlr_bibtex

ABSTRACT = "We study the privacy of subsampled mechanisms under many compositions."

PROCEEDINGS = "@Proceedings{ICML-2019, booktitle = {Proceedings of the 36th ICML}, year = {2019}, volume = {97}}\n"


def entry(key: str, title: str, extra: str = "") -> str:
    return f"@InProceedings{{{key}, title = {{{title}}}, author = {{Zhu, Yuqing}}, abstract = {{{ABSTRACT}}}{extra}}}\n"


def test_braced_accent_in_a_title_is_decoded():
    df = parse_pmlr_bibtex(
        entry("pmlr-v97-zhu19c", r"Poission Subsampled R{\'e}nyi Differential Privacy", ", year = {2019}").encode()
    )
    assert df["title"].iloc[0] == "Poission Subsampled Rényi Differential Privacy"


def test_entries_inherit_fields_through_crossref():
    bib = (
        PROCEEDINGS + entry("a", "First", ", crossref = {ICML-2019}") + entry("b", "Second", ", crossref = {ICML-2019}")
    )
    df = parse_pmlr_bibtex(bib.encode())
    assert df["year"].tolist() == [2019, 2019]
    assert df["booktitle"].tolist() == ["Proceedings of the 36th ICML"] * 2
    assert df["volume"].astype(str).tolist() == ["97", "97"]


def test_entries_inherit_from_the_single_proceedings_entry_of_the_file():
    df = parse_pmlr_bibtex((entry("a", "First") + PROCEEDINGS + entry("b", "Second", ", year = {2020}")).encode())
    assert df["year"].tolist() == [2019, 2020]  # an entry's own field wins
    assert df["volume"].astype(str).tolist() == ["97", "97"]
