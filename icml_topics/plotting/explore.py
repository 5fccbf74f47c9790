"""``TopicMap.explore()``: select papers on the map in Jupyter and get them back as a table.

An anywidget (JupyterLab, Notebook 7, VS Code, Colab) with its own small ES module (``explore.js``):
the papers on a canvas coloured by theme, lasso and box selection, a click on a theme or topic name
selects its papers, a search box (titles, abstracts, authors), a year filter and a side list of the
selected titles. Names follow the zoom as in the report (``labels.js``): themes zoomed out, the topic
tree's coarser then finer topics zoomed in. ``explorer.selection`` is always the DataFrame of the
selected papers (rows of ``documents_``); ``explorer.on_select(fn)`` calls ``fn`` with it on every change.

Examples:
    >>> explorer = tm.explore()
    >>> explorer  # the last line of a cell shows the map
    >>> explorer.selection[["title", "year", "topic_label"]]
    >>> explorer.on_select(lambda papers: print(len(papers), "papers selected"))
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable, Iterable, Mapping

import anywidget
import numpy as np
import pandas as pd
import traitlets

from icml_topics._validation import require_documents
from icml_topics.errors import InvalidTypeError, InvalidValueError

from ._style import NO_THEME_LABEL, OUTLIER_COLOR, fade, theme_colors
from .labels import label_layers, labels_js, layers_json
from .topic_map import drawable_positions

__all__ = ["MapExplorer", "explore", "in_notebook"]

_SEARCH_COLUMNS = ("title", "abstract", "authors")
_MIN_QUERY = 2

NOT_IN_NOTEBOOK = (
    "explore() draws an interactive widget and needs a running Jupyter kernel (JupyterLab, Notebook 7, "
    "VS Code or Colab); this Python has none. Outside a notebook use tm.plot_map() (a plotly figure: "
    "fig.write_html('map.html') or fig.show()), tm.report('report.html') for the searchable report, or "
    "select papers as a table: tm.documents_.query(\"theme == 'Reinforcement learning'\")."
)


def _asset(name: str) -> str:
    return importlib.resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where a widget can be shown), False in a script or a terminal IPython.

    Examples:
        >>> in_notebook()
        False
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _text_column(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame.columns:
        return pd.Series("", index=frame.index, dtype="string")
    return frame[name].astype("string").fillna("")


class MapExplorer(anywidget.AnyWidget):
    """The interactive map of ``documents`` (``TopicMap.documents_``); see the module docstring.

    Args:
        documents: the ``documents_`` table (``x``, ``y``, ``theme``, ``topic``, ``title``, ``year`` ...);
            rows that are not modelled or have no coordinates are not drawn and cannot be selected.
        topic_tree: ``TopicMap.topic_tree_``: one label layer per level (else the ``topic`` column).
        height: the map's height in pixels.
        colors: theme -> colour (default [`theme_colors`][icml_topics.plotting.theme_colors], as in the report).

    Examples:
        >>> explorer = MapExplorer(tm.documents_, topic_tree=tm.topic_tree_)
        >>> explorer.select(tm.documents_.query("year == 2024")["id"])
    """

    _esm = labels_js() + "\n" + _asset("explore.js")
    _css = _asset("explore.css")

    data = traitlets.Dict().tag(sync=True)
    layers = traitlets.List().tag(sync=True)
    years = traitlets.List().tag(sync=True)
    selected = traitlets.List(traitlets.Int()).tag(sync=True)
    year = traitlets.Int(None, allow_none=True).tag(sync=True)
    query = traitlets.Unicode("").tag(sync=True)
    hits = traitlets.List(traitlets.Int()).tag(sync=True)
    view = traitlets.List(traitlets.Float()).tag(sync=True)
    mode = traitlets.Unicode("lasso").tag(sync=True)
    height = traitlets.Int(560).tag(sync=True)

    def __init__(
        self,
        documents: pd.DataFrame,
        *,
        topic_tree: pd.DataFrame | None = None,
        height: int = 560,
        colors: Mapping[str, str] | None = None,
    ) -> None:
        require_documents(documents)
        if not isinstance(height, int) or height < 200:
            raise InvalidValueError(f"height must be an integer of at least 200 (pixels), got {height!r}.")
        self._documents = documents
        self._positions = drawable_positions(documents, caller="explore")
        frame = documents.iloc[self._positions].reset_index(drop=True)
        frame["x"] = pd.to_numeric(frame["x"], errors="coerce").astype("float64")
        frame["y"] = pd.to_numeric(frame["y"], errors="coerce").astype("float64")
        self._callbacks: list[Callable[[pd.DataFrame], object]] = []
        self._haystack = (
            pd.concat([_text_column(frame, c) for c in _SEARCH_COLUMNS], axis=1).agg("\n".join, axis=1).str.lower()
            if len(frame)
            else pd.Series([], dtype="string")
        )
        theme = _text_column(frame, "theme").str.strip()
        colors = {**theme_colors(theme), **(colors or {})}
        outlier = (
            (pd.to_numeric(frame["topic"], errors="coerce") == -1).to_numpy()
            if "topic" in frame
            else np.zeros(len(frame), bool)
        )
        point_colors = [
            fade(colors.get(t, OUTLIER_COLOR), 0.45) if out else colors.get(t or NO_THEME_LABEL, OUTLIER_COLOR)
            for t, out in zip(theme, outlier)
        ]
        palette, codes = np.unique(np.asarray(point_colors, dtype=object).astype(str), return_inverse=True)
        years = pd.to_numeric(frame["year"], errors="coerce") if "year" in frame else pd.Series(np.nan, frame.index)
        year_list = [None if pd.isna(y) else int(y) for y in years]
        super().__init__(
            data={
                "x": frame["x"].tolist(),
                "y": frame["y"].tolist(),
                "year": year_list,
                "c": codes.astype(int).tolist(),
                "palette": palette.tolist(),
                "title": _text_column(frame, "title").tolist(),
                "topic": _text_column(frame, "topic_label").tolist(),
            },
            layers=layers_json(label_layers(frame, topic_tree), colors, groups=True),
            years=sorted({y for y in year_list if y is not None}),
            height=height,
        )
        self.observe(self._selected_changed, names="selected")
        self.observe(self._query_changed, names="query")
        self.observe(self._year_changed, names="year")

    # --------------------------------------------------------------- Python side
    @property
    def selection(self) -> pd.DataFrame:
        """The selected papers: rows of ``documents_`` (all its columns), in its order; empty if none."""
        chosen = np.unique(np.asarray(self.selected, dtype=np.int64))
        chosen = chosen[(chosen >= 0) & (chosen < len(self._positions))]
        return self._documents.iloc[self._positions[chosen]]

    def on_select(self, fn: Callable[[pd.DataFrame], object]) -> Callable[[pd.DataFrame], object]:
        """Call ``fn(selection)`` whenever the selection changes (also usable as a decorator).

        Args:
            fn: called with the selected rows of ``documents_`` (a DataFrame) after each change.

        Examples:
            >>> @explorer.on_select
            ... def show(papers):
            ...     print(papers["title"].head())
        """
        if not callable(fn):
            raise InvalidTypeError(
                f"on_select needs a function taking the selection DataFrame, got {type(fn).__name__}."
            )
        self._callbacks.append(fn)
        return fn

    def select(self, papers: Iterable[object]) -> MapExplorer:
        """Select papers by ``id`` (or a boolean mask / index of ``documents_``), as if chosen on the map.

        A boolean mask may be a numpy ``bool`` array, a pandas ``boolean`` array (a missing value reads as
        False) or a boolean Series, which is aligned by index as ``documents_[mask]`` would be; an array mask
        must have one value per row of ``documents_``.

        Args:
            papers: paper ids, or a boolean mask or index labels of ``documents_``.

        Examples:
            >>> explorer.select(tm.documents_["year"] == 2024)
        """
        docs = self._documents
        if isinstance(papers, pd.Index) and not _is_mask(papers):
            wanted = docs.index.isin(papers)
        elif _is_mask(papers):
            wanted = _mask_rows(papers, docs)
        else:
            values = [str(p) for p in papers]
            if "id" not in docs.columns:
                raise InvalidValueError(
                    "select() by id needs an 'id' column in documents; pass a boolean mask instead."
                )
            wanted = docs["id"].astype(str).isin(values).to_numpy()
        self.selected = np.flatnonzero(wanted[self._positions]).tolist()
        return self

    def _selected_changed(self, change: dict) -> None:
        papers = self.selection
        for fn in list(self._callbacks):
            fn(papers)

    def _year_changed(self, change: dict) -> None:
        """A year filter keeps only that year's papers in the selection (as the map shows only them)."""
        if change["new"] is not None:
            years = self.data["year"]
            kept = [i for i in self.selected if 0 <= i < len(years) and years[i] == change["new"]]
            if kept != list(self.selected):
                self.selected = kept

    def _query_changed(self, change: dict) -> None:
        query = str(change["new"]).strip().lower()
        if len(query) < _MIN_QUERY:
            self.hits = []
            return
        self.hits = np.flatnonzero(self._haystack.str.contains(query, regex=False).to_numpy(dtype=bool)).tolist()


def _is_mask(papers: object) -> bool:
    """Whether ``papers`` is a boolean mask (numpy bool, pandas ``boolean``, or bools with missing values)."""
    if isinstance(papers, (str, bytes)) or not hasattr(papers, "__len__"):
        return False
    dtype = getattr(papers, "dtype", None)
    if dtype is not None and pd.api.types.is_bool_dtype(dtype):
        return True
    if dtype is not None and not pd.api.types.is_object_dtype(dtype):
        return False
    values = list(papers)  # type: ignore[call-overload]
    return bool(values) and pd.api.types.infer_dtype(values, skipna=True) == "boolean"


def _mask_rows(mask: object, docs: pd.DataFrame) -> np.ndarray:
    """A boolean mask as one numpy bool per row of ``docs``: a Series aligned by index (labels it lacks are
    False), anything else by position; a missing value is False."""
    if isinstance(mask, pd.Series):
        if len(docs) and not docs.index.isin(mask.index).any():
            raise InvalidValueError(
                f"select() got a boolean Series whose index shares no label with documents_' index "
                f"(e.g. {mask.index[:3].tolist()} against {docs.index[:3].tolist()}); build the mask from "
                "tm.documents_ (e.g. tm.documents_['year'] == 2024) or pass mask.to_numpy()."
            )
        mask = mask[~mask.index.duplicated()].reindex(docs.index)
    values = pd.array(list(mask) if not hasattr(mask, "dtype") else mask, dtype="boolean")  # type: ignore[arg-type]
    if len(values) != len(docs):
        raise InvalidValueError(
            f"select() got a boolean mask of {len(values)} values for {len(docs)} papers; a mask needs one "
            "value per row of documents_ (build it from tm.documents_, e.g. tm.documents_['year'] == 2024)."
        )
    return values.fillna(False).to_numpy(dtype=bool)


def explore(
    documents: pd.DataFrame, *, topic_tree: pd.DataFrame | None = None, height: int = 560, **kwargs: object
) -> MapExplorer:
    """The interactive map widget of ``documents``; in a script (no Jupyter kernel) a clear error that
    names what to use instead (``plot_map()``, ``report()``).

    Examples:
        >>> explore(tm.documents_, topic_tree=tm.topic_tree_)
    """
    if not in_notebook():
        raise RuntimeError(NOT_IN_NOTEBOOK)
    return MapExplorer(documents, topic_tree=topic_tree, height=height, **kwargs)
