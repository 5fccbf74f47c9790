"""Stop words for term statistics: English plus the boilerplate of ML abstracts.

Words such as "propose", "paper", "method", "results" occur in most abstracts and say nothing about
the topic; c-TF-IDF would otherwise rank them high in every topic. Field words such as "learning",
"model" or "large" stay: they are parts of keyphrases ("reinforcement learning", "large language
models"), and c-TF-IDF's frequent-word reduction already damps them on their own.
"""

from __future__ import annotations

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = ["ACADEMIC_STOP_WORDS", "stop_words"]

ACADEMIC_STOP_WORDS = frozenset(
    """
    abstract paper papers work works propose proposes proposed proposing present presents presented
    introduce introduces introduced introducing show shows shown showing demonstrate demonstrates
    demonstrated demonstrating study studies studied approach approaches method methods methodology
    technique techniques result results experiment experiments experimental empirical empirically
    evaluate evaluated evaluation extensive novel new existing previous prior recent recently state
    art sota outperform outperforms outperforming outperformed baseline baselines benchmark
    benchmarks performance performances improve improves improved improving improvement improvements
    significant significantly achieve achieves achieved achieving effective effectively efficient
    efficiently framework frameworks based using use uses used problem problems task tasks setting
    settings paradigm key main important challenge challenges challenging address addresses
    addressing provide provides provided providing able allow allows enable enables enabling leverage
    leverages leveraging lead leads furthermore moreover additionally particular particularly
    specifically various variety wide range number numbers simple generally existing prove proves
    proved provably finally code available github com http https www et al ie eg fig figure table
    """.split()
)


def stop_words(extra: frozenset[str] | set[str] | None = None) -> list[str]:
    """English + academic stop words (+ ``extra``), sorted for a deterministic vectorizer."""
    words = set(ENGLISH_STOP_WORDS) | ACADEMIC_STOP_WORDS | set(extra or ())
    return sorted(words)
