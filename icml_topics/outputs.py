"""Write a fitted model's output folder: documents.csv, topics.csv, themes.csv, topic_tree.csv, report.html, model/.

This module holds the fit's own file set; the folder machinery is the store's: the outputs are written
into a staging folder that is completed with ``manifest.json`` and swapped into place as a whole
(:func:`icml_topics.store.folders.output_folder`), every CSV through the one spreadsheet-safe writer
(:func:`icml_topics.store.csv_files.write_csv`: ``csv_safe=False``, CLI ``--raw-csv``, writes raw cells),
and drawn reports come from the output cache (:mod:`icml_topics.store.cache`) when the tables are unchanged.

    >>> write_outputs(tm, "out/")
    >>> from icml_topics.store.folders import verify_folder
    >>> verify_folder("out/")  # raises unless every file matches the manifest
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from icml_topics._io import atomic_write_bytes
from icml_topics._progress import STAGE
from icml_topics._version import __version__
from icml_topics.fitted_tables import FittedModel
from icml_topics.schema import ANALYSIS_COLUMNS, csv_document_columns
from icml_topics.store.cache import cached_files, code_signature, content_key
from icml_topics.store.csv_files import write_csv
from icml_topics.store.folders import output_folder
from icml_topics.store.swap import kill_point

__all__ = ["run_record", "write_outputs", "write_outputs_into"]

logger = logging.getLogger("icml_topics")


def write_outputs(model: FittedModel, out: str | os.PathLike, *, inputs: Any = None, **options: Any) -> dict[str, Path]:
    """Write every output of a fitted ``model`` into folder ``out`` (swapped into place as a whole);
    returns the paths written. ``options`` are ``write_outputs_into``'s (``title``, ``save_model``,
    ``report``, ``csv_safe`` (default True: formulas escaped; False: raw cells), ``maps``: the static
    map's formats, default ``("png",)`` at ``map_dpi=100``;
    ``map_dpi=300`` for print; ``static_map=False``: no static map).

    Args:
        model: a fitted [`TopicMap`][icml_topics.TopicMap].
        out: the output folder (a new one, or one icml_topics wrote before).
        inputs: the input files, so that ``out`` is never one of them (``None``: not checked).
        **options: as above.

    Examples:
        >>> from icml_topics.outputs import write_outputs
        >>> paths = write_outputs(tm, "icml-map", maps=("png", "svg"), map_dpi=300)
    """
    folder = Path(out).expanduser()
    logger.info("writing outputs to %s", folder, extra={STAGE: True})  # a stage line: the CLI shows it
    with output_folder(folder, inputs=inputs, record=run_record(model)) as staging:
        names = write_outputs_into(model, staging, **options)
    return {key: folder / name for key, name in names.items()}


def run_record(model: FittedModel) -> dict[str, Any]:
    """What made a fitted ``model``'s outputs, for their manifest: the embedding path of its vectors (a loaded
    model: the one its corpus size gives, ``corpus_rule``; None when that is the machine's, not recorded), the CPU
    and the package version."""
    from icml_topics.embedding.corpus_rule import corpus_path  # lazy: keeps TopicMap light
    from icml_topics.embedding.precision import cpu_features  # lazy: keeps TopicMap light

    path = getattr(model, "embedding_path_", None)
    if path is None and getattr(model, "embeddings_", None) is not None:
        path = corpus_path(str(getattr(model, "precision", "auto")), len(model.embeddings_))
    return {"embedding_path": path, "cpu": cpu_features(), "package_version": __version__}


def write_outputs_into(
    model: FittedModel,
    folder: Path,
    *,
    title: str = "Topic map",
    save_model: bool = True,
    report: bool = True,
    csv_safe: bool = True,
    static_map: bool = True,
    maps: tuple[str, ...] | list[str] = ("png",),
    map_dpi: int | None = None,
    also: Callable[[], dict[str, str]] | None = None,
) -> dict[str, str]:
    """Write the outputs into an existing (staging) ``folder``; returns their names inside it. ``also``: more
    files to write into ``folder`` while the map and the model are written (``compare``'s tables and report);
    it returns their names.

    The report, the static map and the model folder are independent files: the map (the one part that
    uses matplotlib and DataMapPlot) and the model are written on worker threads while the tables and the
    report are written here. Any failure is raised here, before the caller writes the manifest (so a failed run
    never replaces the earlier folder).
    """
    from icml_topics.plotting.static_map import SCREEN_DPI, check_map_dpi  # lazy: keeps TopicMap light

    formats = tuple(maps) if static_map else ()
    dpi = check_map_dpi(SCREEN_DPI if map_dpi is None else map_dpi)
    tables = model.tables_  # the fit's tables (FittedTables): every file below is written from them
    docs = tables.documents
    maps_dir = _output_cache(model)
    names: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="icml-topics-outputs") as pool:
        jobs = []
        if formats:
            from icml_topics.plotting.static_map import write_map_files  # lazy: keeps TopicMap light

            options = dict(title=title, formats=formats, dpi=dpi, cache_dir=maps_dir)
            jobs.append(pool.submit(write_map_files, docs, folder, **options).result)
        if save_model:  # written in place inside the staging folder: the one swap is the output folder's
            jobs.append(pool.submit(_write_model, model, folder / "model").result)
        filled = [c for c in ANALYSIS_COLUMNS if c in docs.columns and docs[c].notna().any()]
        write_csv(docs[csv_document_columns(docs.columns, filled)], folder / "documents.csv", csv_safe=csv_safe)
        kill_point("mid-staging")  # test hook (ICML_TOPICS_KILL_AT): a run killed while writing its outputs
        write_csv(tables.topics, folder / "topics.csv", csv_safe=csv_safe)
        write_csv(tables.themes, folder / "themes.csv", csv_safe=csv_safe)
        write_csv(tables.topic_tree, folder / "topic_tree.csv", csv_safe=csv_safe)
        names.update(
            {"documents": "documents.csv", "topics": "topics.csv", "themes": "themes.csv", "tree": "topic_tree.csv"}
        )
        if report:
            # the tables are the CSVs above (one table, one column set): no second copy under tables/
            _write_report(model, folder / "report.html", title, maps_dir)
            names["report"] = "report.html"
        if also is not None:
            names.update(also())
        for job in jobs:
            written = job()  # re-raises a worker's error here, before the manifest
            names.update({key: Path(path).name for key, path in written.items()})
    return names


def _output_cache(model: FittedModel) -> Path | None:
    """Where drawn outputs (static maps, reports) are kept for re-runs: ``<cache>/outputs``; None
    when the model was fitted with ``cache=False``."""
    from icml_topics.fit_config import cache_dir  # lazy: fit_config pulls in stages/ and themes/ (~0.1 s)

    try:
        return cache_dir(model.get_params(deep=False).get("cache", True), "outputs")
    except (AttributeError, TypeError, ValueError):
        return None


def _write_report(model: FittedModel, path: Path, title: str, cache: Path | None) -> None:
    """``model.report(path)``, or the same bytes from an earlier run on the same tables and title (building
    the page takes seconds: plotly, the map's hover texts, the search index)."""
    tables = model.tables_
    frames = (tables.documents, tables.topics, tables.themes, tables.topic_tree)
    key = content_key(
        "fit-report-v1",
        code_signature("icml_topics.report", "icml_topics.plotting", distributions=("plotly",)),
        title,
        json.dumps(model.summary(), sort_keys=True, default=str),
        *(frame.to_csv(index=False) if frame is not None else "" for frame in frames),
    )

    def build() -> dict[str, bytes]:
        model.report(path, title=title, tables=False)
        return {"report.html": path.read_bytes()}

    blobs = cached_files(f"report-{key}", build, cache)
    if not path.exists():
        atomic_write_bytes(path, blobs["report.html"])


def _write_model(model: FittedModel, folder: Path) -> dict[str, Path]:
    from icml_topics.persistence import write_model_into  # lazy: keeps TopicMap light

    write_model_into(model.get_params(deep=False), model.state_, folder, record=run_record(model))
    return {"model": folder}
