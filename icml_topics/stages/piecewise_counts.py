"""Word n-gram counts of very long documents in bounded memory (the large-corpus c-TF-IDF).

BERTopic's c-TF-IDF joins all documents of a topic into one string and counts its n-grams with the
vectorizer; scikit-learn's analyzer first builds the list of *every* n-gram of that string. For a topic of
300,000 abstracts that list alone is tens of GB. ``PiecewiseCountVectorizer`` counts the same
n-grams piece by piece: the text is cut at spaces (no token contains one), each piece is tokenised
on its own, and the last ``max_n - 1`` tokens of a piece open the next, so n-grams across a cut are
still counted. The count matrix is identical to ``CountVectorizer``'s.

    >>> v = PiecewiseCountVectorizer(ngram_range=(1, 2), vocabulary=["graph", "graph neural"], piece=8)
    >>> v.fit_transform(["graph neural nets on a graph"]).toarray().tolist()
    [[2, 1]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sklearn.feature_extraction.text import CountVectorizer

__all__ = ["PiecewiseCountVectorizer"]


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
