"""Word n-gram counts with numpy: scikit-learn's ``CountVectorizer`` results, exactly, several times faster.

scikit-learn counts every n-gram of every document in a Python loop (a dict update per n-gram, then a
Python sort of the whole vocabulary). ``NgramCountVectorizer`` returns the same matrix (same data, indices
and indptr, in the same order), ``vocabulary_`` (same keys, values and order) and feature names, counted
with arrays:

- **Each document is analysed once per process.** Its tokens (lower-cased, the token pattern, stop words
  dropped) are kept as ids in a cache shared by every vectorizer with the same analyser settings: the
  tree's two levels, KeyBERT's per-topic transforms and the per-period wording count the same abstracts.
  The cache stops taking documents at ``CACHE_TOKENS`` tokens (``clear_token_cache`` empties it).
- **An n-gram is one int64**: its token ids, 21 bits each. ``np.unique`` counts them; document
  frequencies, ``min_df``/``max_df`` and the alphabetical column order follow scikit-learn's rules.
- **Joined documents.** BERTopic's c-TF-IDF counts each topic's documents joined with ``" "`` into one
  string. ``expect_joined`` names the pieces of such strings: a known joined string's tokens are its
  pieces' tokens one after another (no token holds a space, and a space ends a token as the end of a text
  does), so its n-grams across a join are counted as in the string. Any other string is analysed itself.

Only settings whose tokens cannot hold a space take this path (scikit-learn's default token pattern and
ours, no custom analyzer, tokenizer or preprocessor, no fixed ``vocabulary``, at most trigrams); anything
else is scikit-learn's own code, as is a transform with a ``vocabulary_`` this class did not fit.

    >>> v = NgramCountVectorizer(ngram_range=(1, 2))
    >>> v.fit_transform(["graph neural nets", "graph nets"]).toarray().tolist()
    [[1, 0, 1, 1, 1, 1], [1, 1, 0, 1, 0, 0]]
    >>> v.get_feature_names_out().tolist()
    ['graph', 'graph nets', 'graph neural', 'nets', 'neural', 'neural nets']
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn import get_config
from sklearn.feature_extraction.text import CountVectorizer

from icml_topics.text import VECTORIZER_TOKEN_PATTERN

__all__ = ["CACHE_TOKENS", "NgramCountVectorizer", "clear_token_cache"]

BITS = 21  # bits per token in an n-gram key: three tokens fill an int64
MAX_N = 3
MAX_TOKEN_IDS = (1 << BITS) - 2  # ids are stored + 1 (0 = no token), so a key's digits fit 21 bits
CACHE_TOKENS = 25_000_000  # tokens kept (100 MB of ids, about 200k abstracts); later documents are analysed each time
LONG_DOCUMENT = 100_000  # longer texts (e.g. an unannounced joined topic) are analysed, not kept
# token patterns whose tokens are non-empty, hold no whitespace and contain only characters after " ", and
# that match nothing across a space: a join by " " then splits tokens as the ends of two texts do
SAFE_PATTERNS = frozenset({r"(?u)\b\w\w+\b", VECTORIZER_TOKEN_PATTERN})


@dataclass
class _TokenCache:
    """Token ids of analysed documents, for one analyser setup (lower-casing, token pattern, stop words)."""

    ids: dict[str, int] = field(default_factory=dict)
    docs: dict[str, np.ndarray] = field(default_factory=dict)
    size: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def tokens(self, doc: str, analyse: Callable[[str], list[str]]) -> np.ndarray:
        found = self.docs.get(doc)
        if found is None:
            ids = self.ids
            words = analyse(doc)
            found = np.fromiter([ids.setdefault(w, len(ids)) for w in words], np.int32, len(words))
            if len(doc) <= LONG_DOCUMENT and self.size < CACHE_TOKENS:
                self.docs[doc] = found
                self.size += len(found)
        return found


_CACHES: dict[tuple, _TokenCache] = {}
_CACHES_LOCK = threading.Lock()


def clear_token_cache() -> None:
    """Forget every analysed document (vectorizers fitted before keep what they use)."""
    with _CACHES_LOCK:
        _CACHES.clear()


def _cache_for(setup: tuple) -> _TokenCache:
    with _CACHES_LOCK:
        cache = _CACHES.get(setup)
        if cache is None or len(cache.ids) > MAX_TOKEN_IDS:
            cache = _CACHES[setup] = _TokenCache()
        return cache


@dataclass(frozen=True)
class _Fitted:
    """What a fast fit leaves for its transforms: the vocabulary's keys (sorted), columns and names."""

    vocabulary: dict[str, int]
    setup: tuple
    cache: _TokenCache
    keys: np.ndarray
    columns: np.ndarray
    names: np.ndarray  # feature names, column order (object array, as get_feature_names_out)


def _is_join(doc: str, pieces: Sequence[str]) -> bool:
    """Whether ``doc == " ".join(pieces)``, read in place (no joined copy)."""
    at = 0
    for i, piece in enumerate(pieces):
        if i:
            if not doc.startswith(" ", at):
                return False
            at += 1
        if not doc.startswith(piece, at):
            return False
        at += len(piece)
    return at == len(doc)


class _Unsupported(Exception):
    """Raised inside the numpy path for input it does not reproduce exactly; scikit-learn then counts."""


class NgramCountVectorizer(CountVectorizer):
    """``CountVectorizer`` whose word n-grams are counted with numpy (see the module); same results."""

    def expect_joined(self, pieces: Iterable[Sequence[str]]) -> NgramCountVectorizer:
        """Announce documents that are ``" ".join(p)`` for each ``p`` in ``pieces``: their pieces are analysed
        (and cached) one by one. A string that is not announced is analysed as it is. The joined strings are
        not kept (a second copy of every text): each is known by its hash and length, and checked against its
        pieces where met (``joined_pieces``)."""
        joins: dict[tuple[int, int], list[tuple[str, ...]]] = {}
        for p in pieces:
            p = tuple(p)
            joined = " ".join(p)
            joins.setdefault((hash(joined), len(joined)), []).append(p)
        self._joins = joins
        return self

    def joined_pieces(self, doc: str) -> tuple[str, ...] | None:
        """The pieces of ``doc`` when it is an announced joined document (``expect_joined``), else None."""
        for pieces in getattr(self, "_joins", {}).get((hash(doc), len(doc)), ()):
            if _is_join(doc, pieces):
                return pieces
        return None

    def fit_transform(self, raw_documents, y=None):
        if isinstance(raw_documents, str) or not self._fast_settings(fit=True):
            return super().fit_transform(raw_documents, y)
        docs = list(raw_documents)
        validate = getattr(self, "_validate_params", None)
        if validate is not None:  # scikit-learn's own checks of every parameter, as its fit runs them
            validate()
        self.build_analyzer()  # scikit-learn's stop-word consistency check (and its warning)
        cache = _cache_for(self._setup())
        try:
            with cache.lock:
                counted = _fit_counts(self._tokens(docs, cache), self.ngram_range)
                low, high = self._doc_count_limits(len(docs))
                matrix, fitted = _limit_and_sort(counted, low, high, self, cache)
        except _Unsupported:
            return super().fit_transform(docs, y)
        self.fixed_vocabulary_ = False
        self.vocabulary_ = fitted.vocabulary
        self._fitted = fitted
        return matrix

    def transform(self, raw_documents):
        fitted = getattr(self, "_fitted", None)
        if isinstance(raw_documents, str) or not self._fast_settings(fit=False) or not self._fitted_here(fitted):
            return super().transform(raw_documents)
        docs = list(raw_documents)
        try:
            with fitted.cache.lock:
                keys, rows = _ngram_keys(self._tokens(docs, fitted.cache), self.ngram_range, ordered=False)
            return _transform_matrix(keys, rows, len(docs), fitted, self)
        except _Unsupported:
            return super().transform(docs)

    def get_feature_names_out(self, input_features=None):
        if input_features is None and self._fitted_here(getattr(self, "_fitted", None)):
            return self._fitted.names.copy()
        return super().get_feature_names_out(input_features)

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        return {k: v for k, v in state.items() if k not in ("_fitted", "_joins")}  # caches and locks stay here

    def _fitted_here(self, fitted: _Fitted | None) -> bool:
        """Whether ``vocabulary_`` is the one this class fitted, with the same analyser settings."""
        if fitted is None or getattr(self, "vocabulary_", None) is not fitted.vocabulary:
            return False
        return fitted.setup == self._setup()

    def _fast_settings(self, *, fit: bool) -> bool:
        """Whether these settings are ones the numpy path reproduces exactly (else scikit-learn runs)."""
        n, stop = self.ngram_range, self.stop_words
        return (
            self.analyzer == "word"
            and self.input == "content"
            and self.tokenizer is None
            and self.preprocessor is None
            and self.strip_accents is None
            and isinstance(self.token_pattern, str)
            and self.token_pattern in SAFE_PATTERNS
            and type(self.lowercase) is bool
            and type(self.binary) is bool
            and (stop is None or (isinstance(stop, str) and stop == "english") or _strings(stop))
            and isinstance(n, tuple)
            and len(n) == 2
            and all(type(v) is int for v in n)
            and 1 <= n[0] <= n[1] <= MAX_N
            and _numeric(self.dtype)
            and get_config().get("sparse_interface", "spmatrix") == "spmatrix"
            and (not fit or (self.vocabulary is None and self.max_features is None and self._valid_df()))
        )

    def _valid_df(self) -> bool:
        def valid(v) -> bool:
            return (type(v) is int and v >= 1) or (type(v) is float and 0.0 <= v <= 1.0)

        return valid(self.min_df) and valid(self.max_df)

    def _doc_count_limits(self, n_docs: int) -> tuple[float, float]:
        """scikit-learn's document-count bounds of ``min_df`` and ``max_df`` (ints are counts, floats shares)."""
        high = self.max_df if type(self.max_df) is int else self.max_df * n_docs
        low = self.min_df if type(self.min_df) is int else self.min_df * n_docs
        return low, high

    def _setup(self) -> tuple:
        return (self.lowercase, self.token_pattern, frozenset(self.get_stop_words() or ()))

    def _tokens(self, docs: list, cache: _TokenCache) -> list[list[np.ndarray]]:
        """Each document's token ids, as the token ids of its pieces."""
        preprocess, tokenize = self.build_preprocessor(), self.build_tokenizer()
        stop = frozenset(self.get_stop_words() or ())

        def analyse(doc: str) -> list[str]:
            return [w for w in tokenize(preprocess(doc)) if w not in stop]

        joins = getattr(self, "_joins", {})
        out = []
        for doc in docs:
            if not isinstance(doc, str):  # bytes, files, NaN: scikit-learn's decoding and errors
                raise _Unsupported
            pieces = self.joined_pieces(doc) if joins and doc not in cache.docs else None
            out.append([cache.tokens(p, analyse) for p in pieces] if pieces else [cache.tokens(doc, analyse)])
        if len(cache.ids) > MAX_TOKEN_IDS:  # too many distinct tokens for 21-bit ids (a new cache starts next time)
            raise _Unsupported
        return out


def _ngram_keys(
    tokens: list[list[np.ndarray]], ngram_range: tuple[int, int], *, ordered: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Every n-gram's key and row (document). ``ordered``: in scikit-learn's analyser order (document by
    document; in each, the unigrams, then the bigrams, then the trigrams, each by position)."""
    min_n, max_n = ngram_range
    parts = [p for doc in tokens for p in doc]
    flat = np.concatenate(parts).astype(np.int64) + 1 if parts else np.zeros(0, np.int64)
    lengths = np.array([sum(len(p) for p in doc) for doc in tokens], dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    doc_end = np.repeat(starts + lengths, lengths)
    sizes = [np.maximum(lengths - n + 1, 0) for n in range(min_n, max_n + 1)]
    per_doc = np.sum(sizes, axis=0, dtype=np.int64)
    block_start = np.cumsum(per_doc) - per_doc - starts  # stream start of each document, less its token offset
    keys, where = [], []
    for n, size in zip(range(min_n, max_n + 1), sizes):
        at = np.flatnonzero(np.arange(len(flat)) + n <= doc_end)  # n-grams that end inside their document
        key = flat[at]
        for j in range(1, n):
            key = (key << BITS) | flat[at + j]
        keys.append(key)
        where.append(np.repeat(block_start, size) + at)
        block_start = block_start + size
    rows = np.repeat(np.arange(len(tokens), dtype=np.int64), per_doc)
    if not ordered:  # any order will do: a transform sorts its entries by column
        return np.concatenate(keys), rows[np.concatenate(where)]
    stream = np.empty(len(rows), dtype=np.int64)
    stream[np.concatenate(where)] = np.concatenate(keys)
    return stream, rows


@dataclass(frozen=True)
class _Counted:
    """All n-grams of a fit: distinct keys (sorted), first position in the stream, and (row, n-gram, count)."""

    n_docs: int
    keys: np.ndarray
    first: np.ndarray
    rows: np.ndarray
    grams: np.ndarray
    counts: np.ndarray


def _fit_counts(tokens: list[list[np.ndarray]], ngram_range: tuple[int, int]) -> _Counted:
    stream, rows = _ngram_keys(tokens, ngram_range, ordered=True)
    keys, inverse = np.unique(stream, return_inverse=True)
    if not len(keys):
        raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
    inverse = inverse.ravel()
    first = np.full(len(keys), len(stream), dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(len(stream)))  # where each n-gram is first seen
    pairs, counts = np.unique(rows * len(keys) + inverse, return_counts=True)
    pair_rows, grams = np.divmod(pairs, len(keys))
    return _Counted(len(tokens), keys, first, pair_rows, grams, counts)


def _limit_and_sort(
    counted: _Counted, low: float, high: float, vectorizer: NgramCountVectorizer, cache: _TokenCache
) -> tuple[sparse.csr_matrix, _Fitted]:
    """scikit-learn's ``_limit_features`` then ``_sort_features``: n-grams in ``[low, high]`` documents, columns
    in alphabetical order, each row's entries in the order its n-grams first appeared in the corpus."""
    if high < low:
        raise ValueError("max_df corresponds to < documents than min_df")
    df = np.bincount(counted.grams, minlength=len(counted.keys))
    kept = np.flatnonzero((df <= high) & (df >= low))
    if not len(kept):
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    words = list(cache.ids)
    digits = _digits(counted.keys[kept])
    alphabetical = _alphabetical(digits, words)
    column = np.empty(len(counted.keys), dtype=np.int64)
    column[kept[alphabetical]] = np.arange(len(kept))
    appearance = np.argsort(counted.first[kept], kind="stable")  # first seen first: scikit-learn's dict order
    rank = np.full(len(counted.keys), -1, dtype=np.int64)
    rank[kept[appearance]] = np.arange(len(kept))
    names = _names(digits, words)
    vocabulary = {names[i]: c for i, c in zip(appearance.tolist(), column[kept[appearance]].tolist())}
    use = rank[counted.grams] >= 0
    rows, grams, counts = counted.rows[use], counted.grams[use], counted.counts[use]
    order = np.argsort(rows * len(kept) + rank[grams])
    data = np.ones(len(order), dtype=np.int64) if vectorizer.binary else counts[order]
    matrix = _csr(data, column[grams[order]], rows[order], (counted.n_docs, len(kept)), vectorizer.dtype)
    feature_names = np.asarray([names[i] for i in alphabetical.tolist()], dtype=object)
    fitted = _Fitted(vocabulary, vectorizer._setup(), cache, counted.keys[kept], column[kept], feature_names)
    return matrix, fitted


def _transform_matrix(
    keys: np.ndarray, rows: np.ndarray, n_docs: int, fitted: _Fitted, vectorizer: CountVectorizer
) -> sparse.csr_matrix:
    """scikit-learn's transform: counts of the fitted vocabulary's n-grams, each row's columns sorted."""
    n_columns = len(fitted.vocabulary)
    at = np.minimum(np.searchsorted(fitted.keys, keys), len(fitted.keys) - 1)
    hit = fitted.keys[at] == keys
    pairs, counts = np.unique(rows[hit] * n_columns + fitted.columns[at[hit]], return_counts=True)
    pair_rows, columns = np.divmod(pairs, n_columns)
    data = np.ones(len(counts), dtype=np.int64) if vectorizer.binary else counts
    return _csr(data, columns, pair_rows, (n_docs, n_columns), vectorizer.dtype)


def _csr(data, columns, rows, shape, dtype) -> sparse.csr_matrix:
    """A CSR matrix of entries already in row order, with scikit-learn's dtypes (int32 indices)."""
    if len(data) > np.iinfo(np.int32).max:  # scikit-learn's int64 indices: left to it
        raise _Unsupported
    indptr = np.zeros(shape[0] + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=indptr[1:])
    return sparse.csr_matrix((np.asarray(data, dtype=dtype), columns.astype(np.int32), indptr), shape=shape)


def _strings(values) -> bool:
    return isinstance(values, list) and all(isinstance(v, str) for v in values)


def _numeric(dtype) -> bool:
    try:
        return np.dtype(dtype).kind in "iuf"
    except TypeError:
        return False


def _digits(keys: np.ndarray) -> np.ndarray:
    """Each key's token ids + 1, first token first, 0 after its last: shape ``(len(keys), 3)``."""
    mask = (1 << BITS) - 1
    hi, mid, lo = keys >> (2 * BITS), (keys >> BITS) & mask, keys & mask
    n = 1 + (keys > mask).astype(np.int64) + (keys >> (2 * BITS) > 0)
    zero = np.zeros_like(keys)
    first = np.select([n == 3, n == 2], [hi, mid], lo)
    second = np.select([n == 3, n == 2], [mid, lo], zero)
    third = np.where(n == 3, lo, zero)
    return np.stack([first, second, third], axis=1)


def _alphabetical(digits: np.ndarray, words: list[str]) -> np.ndarray:
    """The order of the n-grams' strings. Every token character sorts after " ", so the strings sort as
    their token tuples do, a tuple before its extensions: by each token's rank, no token first."""
    rank = np.empty(len(words) + 1, dtype=np.int64)
    rank[0] = -1
    rank[1 + np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)] = np.arange(len(words))
    return np.lexsort((rank[digits[:, 2]], rank[digits[:, 1]], rank[digits[:, 0]]))


def _names(digits: np.ndarray, words: list[str]) -> list[str]:
    """The n-grams as scikit-learn writes them: tokens joined by one space."""
    w = ["", *words]
    first, second, third = (digits[:, i].tolist() for i in range(3))
    return [
        w[a] if not b else (w[a] + " " + w[b] if not c else w[a] + " " + w[b] + " " + w[c])
        for a, b, c in zip(first, second, third)
    ]
