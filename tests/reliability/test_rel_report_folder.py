"""``TopicMap.report`` writes its tables under the folder rules of ``--out`` (issue 48).

Before, ``tm.report("proj/report.html")`` wrote ``proj/tables/*.csv`` straight over whatever was there: a
user's own ``proj/tables/topics.csv`` was silently overwritten. Now the tables folder is checked before
anything is written, staged and listed in ``manifest.json``: a folder holding a file icml_topics did not write
is refused with the path and the fix, and a report written again replaces its own tables.
"""

from __future__ import annotations

import pandas as pd
import pytest

from icml_topics.errors import IcmlTopicsError
from icml_topics.report import Report
from icml_topics.store.folders import verify_folder

MINE = "topic,my notes\n1,keep me\n"


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("own", ["tables/topics.csv", "tables/notes.txt", "tables/sub/x.csv"])
def test_a_users_file_in_the_tables_folder_is_never_overwritten(seeds_fitted, tmp_path, own):
    proj = tmp_path / "proj"
    (proj / own).parent.mkdir(parents=True)
    (proj / own).write_text(MINE, encoding="utf-8")
    before = _files(proj)
    with pytest.raises(IcmlTopicsError, match=r"tables.*no icml_topics manifest lists.*tables=False") as err:
        seeds_fitted.report(proj / "report.html")
    assert str(proj / "tables") in str(err.value)
    assert _files(proj) == before  # nothing written: not the report, not a table
    seeds_fitted.report(proj / "report.html", tables=False)  # the way out the message names
    assert (proj / own).read_text(encoding="utf-8") == MINE


def test_a_report_written_twice_replaces_its_own_tables(seeds_fitted, tmp_path):
    proj = tmp_path / "proj"
    seeds_fitted.report(proj / "report.html")
    manifest = verify_folder(proj / "tables")
    assert "topics.csv" in manifest["files"]
    seeds_fitted.report(proj / "report.html", title="Again")
    assert "Again" in (proj / "report.html").read_text(encoding="utf-8")
    verify_folder(proj / "tables")
    (proj / "tables" / "topics.csv").write_text(MINE, encoding="utf-8")  # edited by hand: kept
    with pytest.raises(IcmlTopicsError, match=r"topics\.csv was edited"):
        seeds_fitted.report(proj / "report.html")
    assert (proj / "tables" / "topics.csv").read_text(encoding="utf-8") == MINE


def test_a_users_file_at_the_report_path_is_never_overwritten(seeds_fitted, tmp_path):
    page = tmp_path / "report.html"
    page.write_text("<html>my own page</html>", encoding="utf-8")
    with pytest.raises(IcmlTopicsError, match=r"report\.html.*not a report icml_topics wrote"):
        seeds_fitted.report(page, tables=False)
    assert page.read_text(encoding="utf-8") == "<html>my own page</html>"


def test_a_table_beside_the_report_replaces_only_its_own_file(tmp_path):
    frame = pd.DataFrame({"a": [1, 2]})
    mine = tmp_path / "t.csv"
    mine.write_text(MINE, encoding="utf-8")
    with pytest.raises(IcmlTopicsError, match=r"t\.csv exists and icml_topics cannot prove it wrote it"):
        Report("T").add_table(frame, csv_name="t.csv").write(tmp_path / "r.html")
    assert mine.read_text(encoding="utf-8") == MINE and not (tmp_path / "r.html").exists()
    mine.unlink()
    Report("T").add_table(frame, csv_name="t.csv").write(tmp_path / "r.html")
    Report("T").add_table(frame.assign(a=[3, 4]), csv_name="t.csv").write(tmp_path / "r.html")  # its own: replaced
    assert pd.read_csv(mine)["a"].tolist() == [3, 4]
