"""The supervised head: how the theme rule's evidence is weighed, learnt from hand-labelled papers.

Without a head the rule adds its evidence with the few global weights of :class:`ThemeSettings`. The
head replaces that sum with one learnt from labelled papers: a weight per theme and per kind of evidence
(prototypes, title terms, abstract terms, neighbours, corpus centroids, self-trained classifier), a bias
per theme, and one more kind of evidence, a logistic regression on the embeddings of the labelled papers.
It is fitted by maximum likelihood, so its probabilities are calibrated on the papers it learnt from.

A head belongs to one taxonomy (its theme names, texts and phrases: :func:`taxonomy_digest`) and one
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
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from icml_topics.themes import evidence as ev

__all__ = ["COMPONENTS", "HEAD_FILE", "ThemeHead", "builtin_head", "taxonomy_digest", "train_head"]

COMPONENTS = ("prototypes", "title_terms", "abstract_terms", "neighbours", "centroids", "self_trained")
"""The rule's kinds of evidence, each ``(n_docs, n_themes)`` (see ``ThemeRule.evidence``)."""
HEAD_FILE = "theme_head.npz"


@dataclass(frozen=True)
class ThemeHead:
    """Learnt weights of the theme rule's evidence for one taxonomy and one embedding model.

    Attributes:
        names: theme names of the taxonomy it was trained for, in column order.
        taxonomy: :func:`taxonomy_digest` of that taxonomy (names, descriptions, seeds, phrases).
        model: name of the embedding model whose vectors it reads (``all-MiniLM-L6-v2``).
        weights: ``(n_themes, len(COMPONENTS) + 1)`` weight of each kind of evidence per theme (the last
            column weighs the labelled-paper classifier).
        bias: ``(n_themes,)`` logit offset per theme.
        coef, intercept: the labelled-paper classifier (multinomial logistic regression on the embeddings;
            a theme without a labelled paper has a NaN intercept).
        n_labels: how many labelled papers it learnt from.
    """

    names: tuple[str, ...]
    taxonomy: str
    model: str
    weights: np.ndarray
    bias: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    n_labels: int

    def fits(self, taxonomy, dim: int) -> bool:
        """Whether it applies to ``taxonomy`` (the one it was trained for, unedited) and embeddings of
        length ``dim``."""
        return taxonomy_digest(taxonomy) == self.taxonomy and self.coef.shape[1] == dim

    def logits(self, evidence: Mapping[str, np.ndarray], emb: np.ndarray) -> np.ndarray:
        """``(n_docs, n_themes)`` theme logits from the rule's ``evidence`` and the documents' embeddings."""
        stack = np.stack([np.asarray(evidence[c], dtype=np.float64) for c in COMPONENTS], axis=-1)
        labelled = ev.classifier_log_proba(ev.normalize(emb), self.coef, self.intercept)
        stack = np.concatenate([stack, labelled[..., None]], axis=-1)
        return np.einsum("ntk,tk->nt", stack, self.weights) + self.bias

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Named arrays (the metadata as a JSON string array) for ``np.savez``; :meth:`from_arrays` reads them."""
        meta = {
            "names": list(self.names),
            "taxonomy": self.taxonomy,
            "model": self.model,
            "n_labels": self.n_labels,
            "components": COMPONENTS,
        }
        return {
            "meta": np.array(json.dumps(meta)),
            "weights": self.weights.astype(np.float32),
            "bias": self.bias.astype(np.float32),
            "coef": self.coef.astype(np.float32),
            "intercept": self.intercept.astype(np.float32),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ThemeHead:
        meta = json.loads(str(arrays["meta"]))
        if tuple(meta["components"]) != COMPONENTS:
            raise ValueError(
                f"this theme head weighs evidence {meta['components']}, this version computes {list(COMPONENTS)}; "
                "retrain it with benchmarks/train_theme_head.py"
            )
        return cls(
            tuple(meta["names"]),
            meta["taxonomy"],
            meta["model"],
            np.asarray(arrays["weights"], dtype=np.float64),
            np.asarray(arrays["bias"], dtype=np.float64),
            np.asarray(arrays["coef"], dtype=np.float32),
            np.asarray(arrays["intercept"], dtype=np.float32),
            int(meta["n_labels"]),
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
    second_labels: np.ndarray | None = None,
    second_weight: float = 0.0,
    C: float = 4.0,
    per_theme: bool = True,
    strength: float = 10.0,
    folds: int = 5,
    random_state: int = 0,
) -> ThemeHead:
    """Learn a head for ``taxonomy`` from labelled papers: ``evidence`` of the rule for them
    (:data:`COMPONENTS`), their embeddings and ``labels`` (theme column index of each paper's primary theme).

    The labelled-paper classifier's evidence for the weighting is out-of-fold (``folds`` folds), so the
    weights do not trust it more than it deserves on unseen papers; it is then refitted on every paper.
    ``per_theme``: a weight per theme and kind of evidence (shrunk towards one shared weight by
    ``strength``), else one weight per kind. ``second_labels`` (theme column of each paper's secondary
    theme, -1 for none) with ``second_weight`` w: the weighing learns the target ``1 - w`` on the primary
    and ``w`` on the secondary theme, so the runner-up of a paper between two areas is the other area.
    Deterministic (lbfgs, folds from ``random_state``)."""
    from scipy.optimize import minimize

    emb = ev.normalize(emb)
    labels = np.asarray(labels, dtype=np.int64)
    names = list(taxonomy.names)
    n_themes = len(names)
    order = np.random.RandomState(random_state).permutation(len(labels)) % folds
    labelled = np.zeros((len(labels), n_themes))
    for k in range(folds):
        coef, intercept = _classifier(emb[order != k], labels[order != k], n_themes, C)
        labelled[order == k] = ev.classifier_log_proba(emb[order == k], coef, intercept)
    stack = np.stack([np.asarray(evidence[c], dtype=np.float64) for c in COMPONENTS] + [labelled], axis=-1)
    n_kinds = stack.shape[-1]
    target = np.zeros((len(labels), n_themes))
    target[np.arange(len(labels)), labels] = 1.0
    if second_labels is not None and second_weight > 0:
        has = np.flatnonzero(np.asarray(second_labels) >= 0)
        target[has] *= 1.0 - second_weight
        target[has, np.asarray(second_labels)[has]] += second_weight

    def unpack(w):
        shared, bias = w[:n_kinds], w[n_kinds : n_kinds + n_themes]
        delta = w[n_kinds + n_themes :].reshape(n_themes, n_kinds) if per_theme else 0.0
        return shared[None, :] + delta, bias

    def loss(w):
        weights, bias = unpack(w)
        z = np.einsum("ntk,tk->nt", stack, weights) + bias
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -(target * log_p).sum() + strength * (w[n_kinds:] ** 2).sum() + 0.01 * (w[:n_kinds] ** 2).sum()

    start = np.zeros(n_kinds + n_themes + (n_themes * n_kinds if per_theme else 0))
    start[:n_kinds] = 1.0
    weights, bias = unpack(minimize(loss, start, method="L-BFGS-B", options={"maxiter": 1000}).x)
    coef, intercept = _classifier(emb, labels, n_themes, C)
    return ThemeHead(tuple(names), taxonomy_digest(taxonomy), model, weights, bias, coef, intercept, int(len(labels)))


def _classifier(emb: np.ndarray, labels: np.ndarray, n_themes: int, C: float) -> tuple[np.ndarray, np.ndarray]:
    """The labelled-paper classifier: a multinomial logistic regression (lbfgs, L2 strength ``1 / C``)."""
    from sklearn.linear_model import LogisticRegression

    return ev.classifier_columns(LogisticRegression(C=C, max_iter=2000).fit(emb, labels), n_themes)
