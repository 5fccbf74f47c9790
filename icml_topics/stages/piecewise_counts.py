"""Word n-gram counts of very long documents in bounded memory (the large-corpus c-TF-IDF).

BERTopic's c-TF-IDF joins all documents of a topic into one string and counts its n-grams with the
vectorizer; scikit-learn's analyzer first builds the list of *every* n-gram of that string. For a topic of
300,000 abstracts that list alone is tens of GB. ``PiecewiseCountVectorizer`` counts the same
n-grams piece by piece: the text is cut at spaces (no token contains one), each piece is tokenised
on its own, and the last ``max_n - 1`` tokens of a piece open the next, so n-grams across a cut are
still counted. The count matrix is identical to ``CountVectorizer``'s.

``SampleVocabularyCounts`` is what a large fit uses: the same counts over a sample's vocabulary, from each
paper's tokens analysed once for all the tree's levels (``ngram_counts``' token cache), a chunk of papers at a
time (3 levels of 20,000 abstracts: 11 s CPU against 29 s, ``benchmarks/results/sample_counts.md``).

    >>> v = PiecewiseCountVectorizer(ngram_range=(1, 2), vocabulary=["graph", "graph neural"], piece=8)
    >>> v.fit_transform(["graph neural nets on a graph"]).toarray().tolist()
    [[2, 1]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

from icml_topics.stages.ngram_counts import NgramCountVectorizer

__all__ = ["PiecewiseCountVectorizer", "SampleVocabularyCounts"]


class PiecewiseCountVectorizer(CountVectorizer):
    """``CountVectorizer`` (word analyzer) whose analyzer yields n-grams piece by piece (``piece``
    characters at a time) instead of returning one list; any other analyzer is left as it is."""

    def __init__(self, *, piece: int = 1 << 20, **kwargs) -> None:
        super().__init__(**kwargs)
        self.piece = piece

    def build_analyzer(self) -> Callable[[str], Iterator[str]]:
        if self.analyzer != "word":
            return super().build_analyzer()
        preprocess, tokenize = self.build_preprocessor(), self.build_tokenizer()
        stop = set(self.get_stop_words() or ())
        min_n, max_n = self.ngram_range

        def analyze(doc) -> Iterator[str]:
            doc = self.decode(doc)
            tail: list[str] = []
            start = 0
            while start < len(doc):
                end = start + self.piece
                if end < len(doc):
                    cut = doc.rfind(" ", start, end)
                    end = cut if cut > start else doc.find(" ", end)
                    end = len(doc) if end == -1 else end
                tokens = [t for t in tokenize(preprocess(doc[start:end])) if t not in stop]
                seq, known = tail + tokens, len(tail)
                for n in range(min_n, max_n + 1):
                    for i in range(max(0, known - n + 1), len(seq) - n + 1):  # n-grams ending in this piece
                        yield seq[i] if n == 1 else " ".join(seq[i : i + n])
                tail = seq[-(max_n - 1) :] if max_n > 1 else []
                start = end

        return analyze


class SampleVocabularyCounts(NgramCountVectorizer):
    """``NgramCountVectorizer`` fitted once on a sample (``of``): BERTopic's ``fit_transform`` counts over that
    sample's vocabulary instead of fitting its own, the same counts as ``PiecewiseCountVectorizer`` with that
    vocabulary, but each document tokenised once for every level of a tree (the token cache, and the joined
    topics named by ``expect_joined``), ``chunk_docs`` documents' n-grams at a time (bounded memory)."""

    chunk_docs = 20_000

    @classmethod
    def of(cls, fitted: NgramCountVectorizer) -> SampleVocabularyCounts | None:
        """A counter over ``fitted``'s vocabulary; None when ``fitted`` did not take the numpy path."""
        state = getattr(fitted, "_fitted", None)
        if state is None or getattr(fitted, "vocabulary_", None) is not state.vocabulary:
            return None
        out = cls(**fitted.get_params())
        out.vocabulary_, out.fixed_vocabulary_, out._fitted = fitted.vocabulary_, False, state
        return out

    def fit(self, raw_documents, y=None) -> SampleVocabularyCounts:
        return self  # the sample's vocabulary stays

    def fit_transform(self, raw_documents, y=None):
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        if isinstance(raw_documents, str):
            return super().transform(raw_documents)
        docs, joins = list(raw_documents), getattr(self, "_joins", {})
        chunks: list[list[str]] = [[]]
        size = 0
        for doc in docs:
            pieces = len((self.joined_pieces(doc) if joins else None) or (doc,))
            if chunks[-1] and size + pieces > self.chunk_docs:
                chunks.append([])
                size = 0
            chunks[-1].append(doc)
            size += pieces
        if len(chunks) == 1:
            return super().transform(docs)
        return sparse.vstack([super(SampleVocabularyCounts, self).transform(c) for c in chunks], format="csr")
