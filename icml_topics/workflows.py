"""The end-to-end workflows, input files to an output folder: ``fit_to_folder`` (``icml-topics fit``)
and ``compare`` (``icml-topics compare``). The statistics they use live in ``icml_topics.compare``;
the writing in ``icml_topics.outputs`` (the fit's files) and ``icml_topics.store`` (staging folder, manifest, CSVs).

    >>> from icml_topics.workflows import compare, fit_to_folder
    >>> tm, paths = fit_to_folder("../shared/data/icml-2013-2024.jsonl.gz", "icml-map/", random_state=0)

``compare`` fits one joint model (one topic tree under the themes), slices it by year or venue and, with
``align=True``, also aligns two separately fitted periods; it writes one self-contained report and its
CSV tables:

    >>> from icml_topics.workflows import compare
    >>> result = compare("../shared/data/icml-2013-2024.jsonl.gz", by="year", a=2019, b=2024, out="compare/")
    >>> result.movers.head()

Which path to use: the joint model (fit all years together, then slice) puts every year on one map
with one tree of topics, so shares are directly comparable and new or emerging nodes are found at every
level: use it for trends (the default). Separate models (fit each year alone, then
[`align_models`][icml_topics.compare.align_models], ``align=True`` / ``--align``) let each year find its own
topics, at the cost of two more fits; the report then shows both.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from icml_topics._progress import STAGE
from icml_topics.compare import align_models, periods, theme_movers, theme_shares, year_theme_table
from icml_topics.compare.period_labels import baseline_label, period_label
from icml_topics.compare.periods import MAX_PERIODS, MIN_PERIOD_PAPERS, plan_comparison
from icml_topics.compare.topic_tables import TopicTables, topic_tables
from icml_topics.corpus.readers import CorpusError, read_corpus
from icml_topics.fit_config import FitConfig
from icml_topics.fitted_tables import modelled_mask
from icml_topics.fitting import Embedder, FlaggedCorpus
from icml_topics.model import TopicMap
from icml_topics.outputs import run_record, write_outputs, write_outputs_into
from icml_topics.plotting.static_map import SCREEN_DPI, check_map_dpi
from icml_topics.store.csv_files import write_csv
from icml_topics.store.folders import check_output_path, output_folder

if TYPE_CHECKING:  # pragma: no cover
    from icml_topics.compare.align import TopicAlignment
    from icml_topics.compare.periods import ComparisonPlan
    from icml_topics.report.builder import Report

__all__ = ["ComparisonResult", "compare", "default_periods", "fit_to_folder"]

logger = logging.getLogger("icml_topics")

MIN_ALIGN_DOCS = 150  # a period needs this many abstracts to be fitted on its own


def fit_to_folder(
    inputs: Any,
    out: str | os.PathLike,
    *,
    columns: dict[str, str] | None = None,
    sep: str | None = None,
    title: str = "Topic map",
    csv_safe: bool = True,
    scheduler: str | None = None,
    workers: int | None = None,
    maps: tuple[str, ...] = ("png",),
    map_dpi: int | None = None,
    **topicmap_kwargs: Any,
) -> tuple[TopicMap, dict[str, Path]]:
    """Read ``inputs``, fit a ``TopicMap(**topicmap_kwargs)`` and write documents.csv, topics.csv,
    themes.csv, report.html, the static map (``maps``: formats among png, svg, pdf; default a PNG at
    screen resolution, ``map_dpi=300`` for print) and model/ into ``out`` (swapped into place as a whole).

    The output folder, the parameters and the input are checked before the model loads, so a typo costs
    seconds, not an hour. ``scheduler`` (a Dask scheduler address) or ``workers`` (N local worker
    processes) embed, and build each theme's consensus tree, on a Dask cluster, started only once the input
    has been read (its workers unload the model once the documents are embedded; a local cluster is closed
    once the themes' trees are built). CSV cells that a
    spreadsheet would run as a formula are written with a leading ``'`` (``csv_safe=False``: raw cells).
    Returns ``(fitted model, paths written)``.

    Args:
        inputs: what [`read_corpus`][icml_topics.read_corpus] reads: a file, a source such as ``pmlr:235``,
            a DataFrame, or a list of them.
        out: the output folder (a new one, or one icml_topics wrote before).
        columns: our column name -> your column name, e.g. ``{"abstract": "summary"}``.
        sep: the field separator of CSV inputs; ``None``: detected.
        title: the title of report.html.
        csv_safe: write spreadsheet formulas in cells as text (a leading ``'``); ``False``: raw cells.
        scheduler: a Dask scheduler address to embed (and build the themes' trees) on (``tcp://host:8786``).
        workers: embed (and build the themes' trees) on this many local Dask worker processes.
        maps: the static map's formats, among ``"png"``, ``"svg"``, ``"pdf"``; ``()``: none.
        map_dpi: the static map's resolution; ``None``: 100 (screens).
        **topicmap_kwargs: [`TopicMap`][icml_topics.TopicMap]'s parameters, e.g. ``random_state=0``.

    Examples:
        >>> from icml_topics.workflows import fit_to_folder
        >>> tm, paths = fit_to_folder("papers.jsonl", "icml-map", random_state=0)
        >>> paths["report"]
        PosixPath('icml-map/report.html')
    """

    check_output_path(out, inputs=inputs)  # only a folder icml_topics wrote is replaced, never the input's
    check_map_dpi(SCREEN_DPI if map_dpi is None else map_dpi)
    FitConfig.from_params(topicmap_kwargs)  # every parameter, the taxonomy file included, before any work
    corpus = read_corpus(inputs, columns=columns, sep=sep)
    with fit_cluster(scheduler, workers) as client:
        if client is not None:
            topicmap_kwargs["client"] = client
        tm = TopicMap(**topicmap_kwargs).fit(corpus)
    return tm, write_outputs(tm, out, inputs=inputs, title=title, csv_safe=csv_safe, maps=maps, map_dpi=map_dpi)


def fit_cluster(scheduler: str | None, workers: int | None) -> contextlib.AbstractContextManager[Any]:
    """A Dask client for ``scheduler`` / ``workers`` (a local cluster serves this one fit: ``release_cluster``), or
    nothing (embedding in this process)."""
    if scheduler is None and workers is None:
        return contextlib.nullcontext(None)
    from icml_topics.embedding.distributed import cluster_client  # heavy: distributed

    return cluster_client(scheduler, workers, one_fit=True)  # a local cluster closes after the fit's last use


@dataclass
class ComparisonResult:
    """What ``compare`` computed: theme tables, and the topic-level tables (``topics``: a
    ``TopicTables`` with the status of every tree node in the
    latest period, the tree, the per-period wording, paper novelty, acceptance and areas when known)."""

    model: TopicMap
    shares: pd.DataFrame
    table: pd.DataFrame
    movers: pd.DataFrame
    alignment: TopicAlignment | None
    periods: tuple[Any, Any]
    paths: dict[str, Path]
    topics: TopicTables | None = None
    trends: pd.DataFrame | None = None
    plan: ComparisonPlan | None = None  # the checked periods: what was left out


def default_periods(documents: pd.DataFrame, by: str, *, min_papers: int = MIN_PERIOD_PAPERS) -> tuple[Any, Any]:
    """The two groups compared by default: the two latest ``by`` values with at least ``MIN_ALIGN_DOCS``
    modelled papers each (both can then be fitted alone for the alignment), else the two latest with at
    least ``min_papers`` (``icml_topics.compare.periods.MIN_PERIOD_PAPERS``, 30) each; a value with
    fewer papers is never compared (``icml_topics.compare.periods`` says why)."""

    counts, _ = periods.period_counts(documents, by)
    return periods.default_periods(counts, by, min_papers=min_papers, min_align_docs=MIN_ALIGN_DOCS)


_NOT_ALIGNED = (
    "The periods were not fitted separately (the joint tree answers what changed; --align adds "
    "separately fitted models and their alignment)."
)


def compare(
    inputs: Any,
    *,
    by: str = "year",
    out: str | os.PathLike | None = None,
    a: Any = None,
    b: Any = None,
    align: bool = False,
    min_align_docs: int = MIN_ALIGN_DOCS,
    model: TopicMap | None = None,
    title: str | None = None,
    csv_safe: bool = True,
    min_papers: int = MIN_PERIOD_PAPERS,
    max_periods: int = MAX_PERIODS,
    **topicmap_kwargs: Any,
) -> ComparisonResult:
    """Fit one model on all ``inputs``, compute theme shares per ``by`` value with intervals, the
    movers between ``a`` and ``b`` (default: ``default_periods``), with ``align=True`` align separately
    fitted models of ``a`` and ``b`` (when each has enough papers), and write the report to ``out`` (its CSVs
    with formulas escaped; ``csv_safe=False``: raw cells).

    Checked before the fit (``icml_topics.compare.periods.plan_comparison``): ``by`` has at most
    ``max_periods`` distinct values and two with ``min_papers`` modelled papers each (default 30);
    ``a`` and ``b`` are in the data, hold ``min_papers`` papers each and do not overlap. By default the
    two latest ``by`` values with ``min_align_docs`` papers each are compared, else the two latest with
    ``min_papers``. Values with fewer papers are reported and not compared; papers without a ``by``
    value are fitted but left out of the comparison (both counted in ``result.plan``).

    Args:
        inputs: what [`read_corpus`][icml_topics.read_corpus] reads (files, a source, DataFrames).
        by: the column to compare by: ``"year"`` or ``"venue"``.
        out: the folder for report.html and its CSV tables; ``None``: nothing is written.
        a: the first period: a value (``2019``) or a list of values; ``None``: as above.
        b: the second period, as ``a``.
        align: also fit ``a`` and ``b`` separately and align their topics.
        min_align_docs: papers each period needs for the default choice and for ``align``.
        model: a model already fitted on ``inputs``; ``None``: one is fitted.
        title: the report's title; ``None``: one naming the two periods.
        csv_safe: write spreadsheet formulas in cells as text (a leading ``'``); ``False``: raw cells.
        min_papers: papers a ``by`` value needs to be compared.
        max_periods: the most distinct ``by`` values accepted.
        **topicmap_kwargs: [`TopicMap`][icml_topics.TopicMap]'s parameters for the fit.

    Examples:
        >>> from icml_topics.workflows import compare
        >>> result = compare("icml-2013-2024.jsonl.gz", by="year", a=2019, b=2024, out="trends")
        >>> result.movers.head()
    """

    if out is not None:
        check_output_path(out, inputs=inputs)  # before any work: only a folder icml_topics wrote is replaced
    corpus = read_corpus(inputs)
    if by not in corpus.columns:
        raise CorpusError(f"Cannot compare by {by!r}: no such column. Columns: {list(corpus.columns)}.")
    fit_input = None if model is not None else _flagged(corpus, topicmap_kwargs)
    rows = model.tables_.documents if fit_input is None else fit_input.table  # the rows modelled: status "ok"
    plan = _plan(rows, by, a, b, min_papers, max_periods, min_align_docs)  # before any embedding
    tm = model if fit_input is None else TopicMap(**topicmap_kwargs).fit(fit_input)
    shares, table, movers = _theme_tables(tm.tables_.documents, by, plan.a, plan.b)
    by_topic, trends = topic_tables(tm.tables_, tm.state_.texts, by, latest=plan.latest)
    periods = (plan.a, plan.b)
    if align:
        alignment, note = _align_periods(tm, corpus, by, periods, topicmap_kwargs, min_align_docs)
    else:
        alignment, note = None, _NOT_ALIGNED
    result = ComparisonResult(tm, shares, table, movers, alignment, periods, {}, by_topic, trends, plan)
    if out is not None:
        result.paths = write_comparison(
            result, by, out, title=title, alignment_note=note, inputs=inputs, csv_safe=csv_safe
        )
    return result


def _flagged(corpus: pd.DataFrame, topicmap_kwargs: dict[str, Any]) -> FlaggedCorpus:
    """``corpus`` flagged once, as the fit with ``topicmap_kwargs`` (checked here, before any work) flags it: the
    plan reads its modelled rows, and the fit takes it as it is (cleaning the text is the slowest part of reading)."""
    return FlaggedCorpus.of(corpus, prepend_title=FitConfig.from_params(topicmap_kwargs).prepend_title)


def _theme_tables(docs: pd.DataFrame, by: str, a: Any, b: Any) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Theme shares per ``by`` value, the theme x ``by`` table and the movers from ``a`` to ``b``."""

    return theme_shares(docs, by=by), year_theme_table(docs, by=by), theme_movers(docs, by=by, a=a, b=b)


def _plan(
    flagged: pd.DataFrame,
    by: str,
    a: Any,
    b: Any,
    min_papers: int,
    max_periods: int,
    min_align_docs: int,
) -> ComparisonPlan:
    """The checked periods of a comparison (a ``ComparisonPlan``, before the fit) of the ``flagged`` corpus (the rows
    the fit models: status "ok"), logged with the rule that chose them."""

    plan = plan_comparison(
        flagged, by, a, b, min_papers=min_papers, max_periods=max_periods, min_align_docs=min_align_docs
    )
    how = (
        "as asked"
        if a is not None
        else f"default: the two latest {by} values with at least {max(min_align_docs, min_papers)} papers each, "
        f"else at least {min_papers}"
    )
    logger.info("comparing %s %s with %s (%s)", by, period_label(plan.a), period_label(plan.b), how)
    for line in plan.notes():
        logger.warning(line)
    return plan


def _align_periods(
    tm: TopicMap, corpus: pd.DataFrame, by: str, periods: tuple[Any, Any], kwargs: dict[str, Any], min_docs: int
) -> tuple[TopicAlignment | None, str | None]:
    """Fit each of the two ``periods`` on its own and align their topics, or say why not (too few papers)."""

    docs, (a, b) = tm.tables_.documents, periods
    ok = modelled_mask(docs)
    many = (list, tuple, range)  # a pooled period (a list is no dict key: its label is)
    sizes = {period_label(p): int((ok & docs[by].isin(p if isinstance(p, many) else [p])).sum()) for p in (a, b)}
    if min(sizes.values()) < min_docs:
        note = (
            f"Topic alignment was skipped: fitting a period on its own needs at least {min_docs} papers "
            f"(papers per period: {', '.join(f'{k}: {v}' for k, v in sizes.items())})."
        )
        logger.info(note)
        return None, note
    params = {**tm.get_params(deep=False), **kwargs}
    if params.get("precision") == "auto" and getattr(tm, "embedding_path_", None):
        params["precision"] = tm.embedding_path_  # each period on the whole fit's path, whatever its size
    models = []
    for period in (a, b):
        logger.info("fitting %s %s on its own for topic alignment", by, period, extra={STAGE: True})
        values = period if isinstance(period, (list, tuple, range)) else [period]
        models.append(TopicMap(**params).fit(corpus[corpus[by].isin(values)].reset_index(drop=True)))

    return align_models(models[0], models[1], keyword_embedder=Embedder(FitConfig.from_params(params))), None


def write_comparison(
    result: ComparisonResult,
    by: str,
    out: str | os.PathLike,
    *,
    title: str | None = None,
    alignment_note: str | None = None,
    inputs: Any = None,
    csv_safe: bool = True,
) -> dict[str, Path]:
    """Write what ``compare`` computed (``result``): the report and every table behind it into folder ``out``, each table once:
    documents / topics / themes (as ``icml-topics fit`` writes them), theme shares, the theme x ``by``
    table (``theme_table.csv``: one column per ``by`` value, headed e.g. ``year 2024``), movers, alignment,
    and the topic-level tables (``topic_trends.csv``: one row per node and period, ``topic_status.csv``:
    one row per node, ``topic_wording.csv``, ``novelty.csv``, ``acceptance_by_theme.csv``,
    ``acceptance_by_topic.csv``, ``theme_areas.csv``); ``csv_safe`` as :func:`icml_topics.store.csv_files.write_csv`.
    Every table of a change (movers, alignment, topic trends and status, novelty) names its ``baseline``
    in a column; the report says which periods were left out (``result.plan``)."""
    from icml_topics.report.compare_report import build_compare_report  # heavy: plotly

    folder, tm = Path(out), result.model
    fitted = tm.tables_  # the report reads the fit's tables, never the estimator

    def comparison_files() -> dict[str, str]:  # written while the map and the model are drawn and saved
        names = _write_theme_tables(result, by, staging, csv_safe)
        names.update(_write_topic_tables(result.topics, result.trends, staging, csv_safe))
        report: Report = build_compare_report(
            fitted.documents,
            fitted.topics,
            fitted.themes,
            shares=result.shares,
            movers=result.movers,
            table=result.table,  # computed once, by compare
            alignment=result.alignment,
            by=by,
            periods=result.periods,
            title=title or f"Research themes by {by}",
            alignment_note=alignment_note,
            csv_dir=None,  # every table is written above, once
            topic_tables=result.topics,
            plan=result.plan,
        )
        report.set_provenance(run_record(tm)).write(staging / "report.html", tables=False)
        return {**names, "report": "report.html"}

    # swapped into place as a whole, with a manifest
    with output_folder(folder, inputs=inputs, record=run_record(tm)) as staging:
        names = write_outputs_into(tm, staging, save_model=True, report=False, csv_safe=csv_safe, also=comparison_files)
    return {key: folder / name for key, name in names.items()}


def _write_theme_tables(result: ComparisonResult, by: str, folder: Path, csv_safe: bool) -> dict[str, str]:
    """``theme_shares.csv``, ``theme_table.csv``, ``movers.csv`` and (when aligned) ``alignment.csv``."""
    alignment, periods = result.alignment, result.periods
    names = {"theme_shares": write_csv(result.shares, folder / "theme_shares.csv", csv_safe=csv_safe).name}
    # file names come from a fixed list: `by` (a column name from the data) labels the columns, never a path
    wide = result.table.set_axis([f"{by} {value}" for value in result.table.columns], axis=1)
    names["theme_table"] = write_csv(
        wide.reset_index(names="theme"), folder / "theme_table.csv", csv_safe=csv_safe
    ).name
    names["movers"] = write_csv(result.movers, folder / "movers.csv", csv_safe=csv_safe).name
    if alignment is not None:
        crosswalk = alignment.to_frame().assign(
            baseline=baseline_label(periods[0]), compared=baseline_label(periods[1])
        )
        names["alignment"] = write_csv(crosswalk, folder / "alignment.csv", csv_safe=csv_safe).name
    return names


def _write_topic_tables(
    tables: TopicTables | None, trends: pd.DataFrame | None, folder: Path, csv_safe: bool
) -> dict[str, str]:
    if tables is None:
        return {}
    frames = {  # topic_tree.csv: written with documents.csv by write_outputs_into
        "topic_trends": trends,
        "topic_status": tables.status,
        "topic_wording": tables.wording,
        "novelty": tables.novelty,
        "acceptance_by_theme": tables.acceptance,
        "acceptance_by_topic": tables.node_acceptance,
        "theme_areas": tables.areas,
    }
    return {
        key: write_csv(frame, folder / f"{key}.csv", csv_safe=csv_safe).name
        for key, frame in frames.items()
        if frame is not None
    }
