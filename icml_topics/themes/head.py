"""The supervised head: how the theme rule's evidence is weighed, learnt from hand-labelled papers.

Without a head the rule adds its evidence with the few global weights of [`ThemeSettings`][icml_topics.ThemeSettings]. The
head replaces that sum with one learnt from labelled papers: a weight per theme and per kind of evidence
(prototypes, title terms, abstract terms, neighbours, corpus centroids, self-trained classifier), a bias
per theme, and two more kinds of evidence learnt from the labelled papers: a logistic regression on their
embeddings and one on their words (TF-IDF unigrams and bigrams of title and abstract, ``themes.words``).
The weights are fitted by maximum likelihood on out-of-fold classifier evidence, so its probabilities are
calibrated for papers it has not seen.

A head belongs to one taxonomy (its theme names, texts and phrases: ``taxonomy_digest``) and one
embedding model: the built-in head
(``icml_topics/data/theme_head.npz``, trained by ``benchmarks/train_theme_head.py`` on the *tune* part
of ``theme_labels.csv``) applies to the built-in taxonomy embedded with all-MiniLM-L6-v2 and is left
out otherwise.

    >>> from icml_topics.themes import Taxonomy
    >>> head = builtin_head()
    >>> head is None or head.fits(Taxonomy.default(), 384)
    True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import numpy as np

from icml_topics.errors import InvalidValueError
from icml_topics.themes import evidence as ev
from icml_topics.themes.words import WordFeatures

__all__ = ["COMPONENTS", "HEAD_FILE", "ThemeHead", "builtin_head", "taxonomy_digest", "train_head"]

COMPONENTS = ("prototypes", "title_terms", "abstract_terms", "neighbours", "centroids", "self_trained")
"""The rule's kinds of evidence, each ``(n_docs, n_themes)`` (see ``ThemeRule.evidence``)."""
HEAD_FILE = "theme_head.npz"
WORD_CHUNK = 20_000  # papers whose evidence, word features and logits are built at once


@dataclass(frozen=True)
class ThemeHead:
    """Learnt weights of the theme rule's evidence for one taxonomy and one embedding model.

    Attributes:
        names: theme names of the taxonomy it was trained for, in column order.
        taxonomy: ``taxonomy_digest`` of that taxonomy (names, descriptions, seeds, phrases).
        model: name of the embedding model whose vectors it reads (``all-MiniLM-L6-v2``).
        weights: ``(n_themes, len(COMPONENTS) + 1 [+ 1])`` weight of each kind of evidence per theme (then
            the labelled-paper classifier on embeddings, then, with ``words``, the one on words).
        bias: ``(n_themes,)`` logit offset per theme.
        coef, intercept: the labelled-paper classifier (multinomial logistic regression on the embeddings;
            a theme without a labelled paper has a NaN intercept).
        n_labels: how many labelled papers it learnt from.
        words, word_coef, word_intercept: the labelled-paper classifier on the papers' words (TF-IDF of
            ``themes.words``; None: the head reads no words).
    """

    names: tuple[str, ...]
    taxonomy: str
    model: str
    weights: np.ndarray
    bias: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    n_labels: int
    words: WordFeatures | None = None
    word_coef: np.ndarray | None = None
    word_intercept: np.ndarray | None = None

    def fits(self, taxonomy, dim: int) -> bool:
        """Whether it applies to ``taxonomy`` (the one it was trained for, unedited) and embeddings of
        length ``dim``."""
        return taxonomy_digest(taxonomy) == self.taxonomy and self.coef.shape[1] == dim

    def logits(
        self,
        evidence: Mapping[str, np.ndarray],
        emb: np.ndarray,
        titles: Sequence[str | None] | None = None,
        abstracts: Sequence[str | None] | None = None,
    ) -> np.ndarray:
        """``(n_docs, n_themes)`` theme logits from the rule's ``evidence``, the documents' embeddings and
        (for a head with ``words``) their titles and abstracts; ``WORD_CHUNK`` papers at a time, so the
        stacked evidence, the normalised embeddings and the word features never exist for every paper at once."""
        if self.words is not None and (titles is None or abstracts is None):
            raise InvalidValueError("this theme head reads the papers' words: pass their titles and abstracts")
        n, themes = len(emb), np.shape(evidence[COMPONENTS[0]])[1]
        out = np.zeros((n, themes), dtype=np.result_type(np.float64, self.weights, self.bias))
        for start in range(0, n, WORD_CHUNK):
            rows = slice(start, start + WORD_CHUNK)
            columns = [np.asarray(evidence[c][rows], dtype=np.float64) for c in COMPONENTS]
            columns.append(ev.classifier_log_proba(ev.normalize(emb[rows]), self.coef, self.intercept))
            if self.words is not None:
                columns.append(self._word_log_proba(titles[rows], abstracts[rows]))
            out[rows] = np.einsum("ntk,tk->nt", np.stack(columns, axis=-1), self.weights) + self.bias
        return out

    def _word_log_proba(self, titles, abstracts) -> np.ndarray:
        """The word classifier's log-probabilities of these papers (``logits`` gives them a chunk at a time)."""
        coef, intercept = np.asarray(self.word_coef, np.float32), np.asarray(self.word_intercept, np.float32)
        return ev.classifier_log_proba(self.words.transform(titles, abstracts), coef, intercept)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Named arrays (the metadata as a JSON string array) for ``np.savez``; ``from_arrays`` reads them."""
        meta = {
            "names": list(self.names),
            "taxonomy": self.taxonomy,
            "model": self.model,
            "n_labels": self.n_labels,
            "components": COMPONENTS,
        }
        arrays = {
            "meta": np.array(json.dumps(meta)),
            "weights": self.weights.astype(np.float32),
            "bias": self.bias.astype(np.float32),
            "coef": self.coef.astype(np.float32),
            "intercept": self.intercept.astype(np.float32),
        }
        if self.words is not None:
            arrays.update(self.words.to_arrays("words_"))
            arrays["word_coef"] = np.asarray(self.word_coef).astype(np.float16)  # halves the shipped file
            arrays["word_intercept"] = np.asarray(self.word_intercept).astype(np.float32)
        return arrays

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ThemeHead:
        meta = json.loads(str(arrays["meta"]))
        if tuple(meta["components"]) != COMPONENTS:
            raise InvalidValueError(
                f"this theme head weighs evidence {meta['components']}, this version computes {list(COMPONENTS)}; "
                "retrain it with benchmarks/train_theme_head.py"
            )
        has_words = "word_coef" in arrays
        return cls(
            tuple(meta["names"]),
            meta["taxonomy"],
            meta["model"],
            np.asarray(arrays["weights"], dtype=np.float64),
            np.asarray(arrays["bias"], dtype=np.float64),
            np.asarray(arrays["coef"], dtype=np.float32),
            np.asarray(arrays["intercept"], dtype=np.float32),
            int(meta["n_labels"]),
            WordFeatures.from_arrays(arrays, "words_") if has_words else None,
            np.asarray(arrays["word_coef"], dtype=np.float32) if has_words else None,
            np.asarray(arrays["word_intercept"], dtype=np.float32) if has_words else None,
        )

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, **self.to_arrays())


def taxonomy_digest(taxonomy) -> str:
    """A fingerprint of what a head depends on in a taxonomy: its names, theme texts and phrases, in order."""
    content = [
        list(taxonomy.names),
        [list(t) for t in taxonomy.theme_texts()],
        [list(p) for p in taxonomy.theme_phrases()],
    ]
    return hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def builtin_head() -> ThemeHead | None:
    """The head shipped for the built-in taxonomy, or None when the package has none."""
    resource = resources.files("icml_topics").joinpath("data", HEAD_FILE)
    if not resource.is_file():
        return None
    with resources.as_file(resource) as path, np.load(path, allow_pickle=False) as arrays:
        return ThemeHead.from_arrays(dict(arrays))


def train_head(
    evidence: Mapping[str, np.ndarray],
    emb: np.ndarray,
    labels: np.ndarray,
    taxonomy,
    model: str,
    *,
    titles: Sequence[str | None] | None = None,
    abstracts: Sequence[str | None] | None = None,
    word_C: float | None = None,
    second_labels: np.ndarray | None = None,
    second_weight: float = 0.0,
    C: float = 4.0,
    per_theme: bool = True,
    strength: float = 10.0,
    folds: int = 5,
    random_state: int = 0,
) -> ThemeHead:
    """Learn a head for ``taxonomy`` from labelled papers: ``evidence`` of the rule for them
    (``COMPONENTS``), their embeddings and ``labels`` (theme column index of each paper's primary theme).

    The labelled-paper classifiers' evidence for the weighting is out-of-fold (``folds`` folds), so the
    weights do not trust it more than it deserves on unseen papers; they are then refitted on every paper.
    ``word_C``: also learn a classifier on the papers' words (``titles``, ``abstracts``; vocabulary and IDF
    from these papers, L2 strength ``1 / word_C``); None: embeddings only.
    ``per_theme``: a weight per theme and kind of evidence (shrunk towards one shared weight by
    ``strength``), else one weight per kind. ``second_labels`` (theme column of each paper's secondary
    theme, -1 for none) with ``second_weight`` w: the weighing learns the target ``1 - w`` on the primary
    and ``w`` on the secondary theme, so the runner-up of a paper between two areas is the other area.
    Deterministic (lbfgs, folds from ``random_state``)."""
    emb = ev.normalize(emb)
    labels = np.asarray(labels, dtype=np.int64)
    names = list(taxonomy.names)
    n_themes = len(names)
    order = np.random.RandomState(random_state).permutation(len(labels)) % folds
    views = [(emb, C)]
    if word_C is not None:
        if titles is None or abstracts is None:
            raise InvalidValueError("word_C needs the labelled papers' titles and abstracts")
        words = WordFeatures.fit(titles, abstracts)
        views.append((words.transform(titles, abstracts), word_C))
    out_of_fold = []
    for x, strength_c in views:
        labelled = np.zeros((len(labels), n_themes))
        for k in range(folds):
            coef, intercept = _classifier(x[order != k], labels[order != k], n_themes, strength_c)
            labelled[order == k] = ev.classifier_log_proba(x[order == k], coef, intercept)
        out_of_fold.append(labelled)
    stack = np.stack([np.asarray(evidence[c], dtype=np.float64) for c in COMPONENTS] + out_of_fold, axis=-1)
    weights, bias = _weigh(stack, _target(labels, n_themes, second_labels, second_weight), per_theme, strength)
    coef, intercept = _classifier(emb, labels, n_themes, C)
    head = ThemeHead(tuple(names), taxonomy_digest(taxonomy), model, weights, bias, coef, intercept, int(len(labels)))
    if word_C is None:
        return head
    word_coef, word_intercept = _classifier(views[1][0], labels, n_themes, word_C)
    return replace(head, words=words, word_coef=word_coef, word_intercept=word_intercept)


def _target(labels: np.ndarray, n_themes: int, second_labels: np.ndarray | None, second_weight: float) -> np.ndarray:
    target = np.zeros((len(labels), n_themes))
    target[np.arange(len(labels)), labels] = 1.0
    if second_labels is not None and second_weight > 0:
        has = np.flatnonzero(np.asarray(second_labels) >= 0)
        target[has] *= 1.0 - second_weight
        target[has, np.asarray(second_labels)[has]] += second_weight
    return target


def _weigh(stack: np.ndarray, target: np.ndarray, per_theme: bool, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(n_themes, n_kinds)`` and bias of the evidence ``stack`` by maximum likelihood (L-BFGS)."""
    from scipy.optimize import minimize

    n_themes, n_kinds = stack.shape[1], stack.shape[2]

    def unpack(w):
        shared, bias = w[:n_kinds], w[n_kinds : n_kinds + n_themes]
        delta = w[n_kinds + n_themes :].reshape(n_themes, n_kinds) if per_theme else 0.0
        return shared[None, :] + delta, bias

    def loss_and_grad(w):
        weights, bias = unpack(w)
        z = np.einsum("ntk,tk->nt", stack, weights) + bias
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        loss = -(target * log_p).sum() + strength * (w[n_kinds:] ** 2).sum() + 0.01 * (w[:n_kinds] ** 2).sum()
        g_z = np.exp(log_p) * target.sum(axis=1, keepdims=True) - target  # d loss / d logits
        g_weights = np.einsum("nt,ntk->tk", g_z, stack)
        grad = np.concatenate([g_weights.sum(axis=0), g_z.sum(axis=0)] + ([g_weights.ravel()] if per_theme else []))
        grad[:n_kinds] += 0.02 * w[:n_kinds]
        grad[n_kinds:] += 2.0 * strength * w[n_kinds:]
        return loss, grad

    start = np.zeros(n_kinds + n_themes + (n_themes * n_kinds if per_theme else 0))
    start[:n_kinds] = 1.0
    return unpack(minimize(loss_and_grad, start, jac=True, method="L-BFGS-B", options={"maxiter": 1000}).x)


def _classifier(x, labels: np.ndarray, n_themes: int, C: float) -> tuple[np.ndarray, np.ndarray]:
    """A labelled-paper classifier: a multinomial logistic regression (lbfgs, L2 strength ``1 / C``) on
    embeddings or word features."""
    from sklearn.linear_model import LogisticRegression

    return ev.classifier_columns(LogisticRegression(C=C, max_iter=2000).fit(x, labels), n_themes)
