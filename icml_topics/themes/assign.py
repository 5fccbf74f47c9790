"""The theme rule: every document gets a probability over themes from its own evidence.

One rule for ``fit``, ``transform`` and ``set_taxonomy``. A document's theme logits add up

1. **prototypes**: its cosine similarity to the closest of each theme's prototypes (the description and
   every seed phrase, embedded separately, not averaged into one vector);
2. **terms**: the theme's phrases (seeds, aliases, keywords, with spelling variants) found in its
   title (strong) and abstract, weighted by how specific they are in the corpus (``themes.lexical``);
3. **neighbours**: the own-evidence probabilities (1 + 2) of its nearest documents in embedding space;
4. **corpus centroids**: its similarity to each theme's centroid among the documents confidently placed
   by 1-3 (with few papers it falls back to the taxonomy's vector);
5. **self-training**: the log-probability of a logistic regression on the embeddings, trained on the
   documents that 1-4 place confidently and whose prototypes and phrases agree (stored in the rule, so
   ``transform`` reproduces it).

With the built-in taxonomy and the default embedding model, a **supervised head** (``themes.head``)
weighs this evidence per theme, adding classifiers on embeddings and words trained on hand-labelled
papers; otherwise the global weights of [`ThemeSettings`][icml_topics.ThemeSettings] add it up.

``theme_score`` is the softmax probability of the chosen theme; ``theme_2`` / ``theme_2_score`` the
runner-up. The weights were fitted (maximum likelihood) on the *tune* half of the hand labels
(``icml_topics/data/theme_labels.csv``); ``benchmarks/themes.py`` reports the held-out half.
A topic's theme is the probability-weighted majority of its documents, with its purity
(``themes.topics``): a cluster never overrides its documents.

    >>> rule = ThemeRule.fit(doc_emb, titles, abstracts, prototypes, names)
    >>> rule.assign(new_emb, new_titles, new_abstracts, reference=doc_emb)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np

from icml_topics.themes import evidence as ev
from icml_topics.themes import lexical as lx
from icml_topics.themes.head import ThemeHead

__all__ = [
    "DocumentThemes",
    "ThemeRule",
    "ThemeSettings",
    "embed_prototypes",
    "settings_logits",
]


@dataclass(frozen=True)
class ThemeSettings:
    """Weights and thresholds of the theme rule (all-MiniLM-L6-v2 cosine space).

    Args:
        prototype_weight: logit per unit of cosine similarity to a theme's closest prototypes.
        top_prototypes: how many of a theme's closest prototypes are averaged.
        lexical_weight: logit per unit of lexical evidence (a title hit is ``title_weight`` units).
        title_weight: a phrase in the title counts this many abstract occurrences (before the log).
        neighbour_weight: weight of the log of the neighbours' vote.
        n_neighbors: neighbours that vote.
        neighbour_floor: neighbours less similar than this cosine do not vote.
        neighbour_prior: pseudo-votes for a uniform theme distribution.
        centroid_weight: logit per unit of cosine similarity to a theme's corpus centroid.
        centroid_confidence: probability above which a document shapes its theme's centroid.
        centroid_prior: pseudo-documents of the taxonomy vector inside each centroid.
        self_train_weight: weight of the self-trained classifier's log-probability (0: not trained).
        self_train_confidence: probability above which a document (whose evidence agrees) trains it.
        self_train_C: inverse L2 strength of the self-trained logistic regression.
        doc_threshold: a document with no phrase of any theme and prototype similarity below this to
            every theme gets no theme.
        weak_similarity: a document whose prototype similarity to every theme is below this gets no theme,
            whatever phrases it holds: its evidence is too weak for any theme. 0.27 is the lowest similarity
            among 1,140 real ICML abstracts (none falls below it); emoji strings reach at most 0.18, random
            English word salad 0.30 (98% below 0.27), random letter strings 0.35 (80% below). 0: off.
        min_function_words: an abstract of 20 words or more whose share of English function words ("we",
            "the", "of") is below this is a list of words, not prose, and gets no theme, whatever its
            similarity or phrases (word salad that names "quantum" or "graph"). Among the 5,630 ICML
            abstracts of 2013-2024 the lowest share is 0.23; word salad has none. 0: off.
        supervised_head: weigh the evidence with the built-in supervised head where it applies (the
            built-in taxonomy embedded with all-MiniLM-L6-v2); False: always the weights above.

    Examples:
        >>> ThemeSettings(doc_threshold=0.3).doc_threshold
        0.3
    """

    prototype_weight: float = 15.0
    top_prototypes: int = 3
    lexical_weight: float = 0.5
    title_weight: float = 5.0
    neighbour_weight: float = 0.5
    n_neighbors: int = 15
    neighbour_floor: float = 0.3
    neighbour_prior: float = 1.0
    centroid_weight: float = 5.0
    centroid_confidence: float = 0.5
    centroid_prior: float = 5.0
    self_train_weight: float = 2.0
    self_train_confidence: float = 0.5
    self_train_C: float = 0.3
    doc_threshold: float = 0.12
    weak_similarity: float = 0.27
    min_function_words: float = 0.10
    supervised_head: bool = True

    @classmethod
    def from_dict(cls, values: Mapping[str, object]) -> ThemeSettings:
        """Settings from a dict, ignoring keys of older versions.

        Args:
            values: setting name -> value (as ``dataclasses.asdict`` writes them).
        """
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})


def embed_prototypes(
    theme_texts: Sequence[Sequence[str]], embed_fn: Callable[[list[str]], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Embed every theme text (description and seeds) once: ``(prototype vectors, theme index of each)``."""
    flat = [t for texts in theme_texts for t in texts]
    owner = np.array([i for i, texts in enumerate(theme_texts) for _ in texts], dtype=np.int64)
    return ev.normalize(embed_fn(flat)), owner


def _theme_vectors(prototypes: np.ndarray, owner: np.ndarray, n_themes: int) -> np.ndarray:
    return ev.normalize(np.vstack([prototypes[owner == t].mean(axis=0) for t in range(n_themes)]))


@dataclass
class DocumentThemes:
    """Per document: theme, score, runner-up, reason and the full probability matrix."""

    theme: list[str]
    score: np.ndarray
    theme_2: list[str]
    score_2: np.ndarray
    reason: list[str]
    proba: np.ndarray  # (n_docs, n_columns): one column per taxonomy theme of the fit (ThemeRule.names)


@dataclass
class ThemeRule:
    """The fitted theme rule: what it needs to place any document, new or from the fitted corpus.

    ``names`` are the displayed theme names of the probability columns (several columns may share one
    name after ``TopicMap.merge_themes``; their probabilities are then added).
    """

    names: list[str]
    prototypes: np.ndarray
    prototype_theme: np.ndarray
    theme_phrases: list[list[str]]
    term_weights: np.ndarray
    centroids: np.ndarray
    reference_own: np.ndarray  # own-evidence probabilities of the fitted documents (neighbour votes)
    settings: ThemeSettings = field(default_factory=ThemeSettings)
    classifier_coef: np.ndarray | None = None  # self-trained classifier (None: not trained)
    classifier_intercept: np.ndarray | None = None
    head: ThemeHead | None = None  # learnt weighing of the evidence (None: the settings' weights)
    lexicon: lx.Lexicon = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.lexicon = lx.build_lexicon(self.theme_phrases)

    _ARRAYS = ("prototypes", "prototype_theme", "term_weights", "centroids", "reference_own")

    def to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """``(JSON-able metadata, named arrays)`` for saving; ``from_state`` reads them back."""
        meta = {
            "names": list(self.names),
            "theme_phrases": [list(p) for p in self.theme_phrases],
            "settings": asdict(self.settings),
        }
        arrays = {name: np.asarray(getattr(self, name)) for name in self._ARRAYS}
        if self.classifier_coef is not None:
            arrays["classifier_coef"], arrays["classifier_intercept"] = self.classifier_coef, self.classifier_intercept
        if self.head is not None:
            arrays.update({f"head_{k}": v for k, v in self.head.to_arrays().items()})
        return meta, arrays

    @classmethod
    def from_state(cls, meta: Mapping, arrays: Mapping[str, np.ndarray]) -> ThemeRule:
        """The rule saved by ``to_state``."""
        return cls(
            list(meta["names"]),
            arrays["prototypes"],
            arrays["prototype_theme"],
            [list(p) for p in meta["theme_phrases"]],
            arrays["term_weights"],
            arrays["centroids"],
            arrays["reference_own"],
            ThemeSettings.from_dict(meta["settings"]),
            arrays.get("classifier_coef"),
            arrays.get("classifier_intercept"),
            ThemeHead.from_arrays({k[5:]: v for k, v in arrays.items() if k.startswith("head_")})
            if "head_meta" in arrays
            else None,
        )

    @classmethod
    def fit(
        cls,
        doc_embeddings: np.ndarray,
        titles: Sequence[str | None],
        abstracts: Sequence[str | None],
        prototypes: tuple[np.ndarray, np.ndarray],
        names: Sequence[str],
        theme_phrases: Sequence[Sequence[str]],
        settings: ThemeSettings = ThemeSettings(),
        *,
        neighbours: tuple[np.ndarray, np.ndarray] | None = None,
        max_train_docs: int | None = None,
        head: ThemeHead | None = None,
    ) -> tuple[ThemeRule, DocumentThemes]:
        """Fit the rule on a corpus and place its documents (neighbours: each other, never themselves).

        ``neighbours``: precomputed ``(indices, cosine similarities)`` of each document's
        ``settings.n_neighbors`` nearest other documents (large corpora: the approximate graph of
        ``stages.large.theme_neighbours``); ``None`` computes them exactly. ``max_train_docs``: the
        self-trained classifier learns from at most this many confident documents (``None``: all).
        ``head``: the supervised head that weighs the evidence (``None``: the settings' weights)."""
        emb = ev.normalize(doc_embeddings)
        protos, owner = prototypes
        theme_phrases = [list(p) for p in theme_phrases]
        lexicon = lx.build_lexicon(theme_phrases)
        tc, ac = lx.count_terms(lexicon, titles), lx.count_terms(lexicon, abstracts)
        weights = lx.term_weights(tc + ac)
        s = settings
        own_logits, sims, lex_title, lex_abstract = _own_logits(
            emb, tc, ac, protos, owner, lexicon, weights, len(names), s
        )
        lexical = lex_title + lex_abstract
        own = ev.softmax(own_logits)
        if neighbours is None:
            neighbours = ev.neighbours_among(emb, emb, s.n_neighbors, skip_self=True)
        nn_idx, nn_sim = neighbours
        votes = ev.neighbour_votes(nn_idx, nn_sim, own, floor=s.neighbour_floor, prior=s.neighbour_prior)
        first = ev.softmax(own_logits + s.neighbour_weight * np.log(votes))
        centroids = ev.theme_centroids(
            emb,
            first,
            _theme_vectors(protos, owner, len(names)),
            confidence=s.centroid_confidence,
            prior=s.centroid_prior,
        )
        del first, own_logits  # (n_docs, n_themes) each: freed before the next ones are built
        rule = cls(list(names), protos, owner, theme_phrases, weights, centroids, own.astype(np.float32, copy=False), s)
        if s.self_train_weight > 0:
            before = ev.softmax(rule._logits(rule._evidence(sims, lex_title, lex_abstract, votes, emb), emb))
            best = before.argmax(axis=1)
            agree = (sims.argmax(axis=1) == best) & ((lexical.sum(axis=1) == 0) | (lexical.argmax(axis=1) == best))
            trained = ev.self_trained_classifier(
                emb, before, agree, confidence=s.self_train_confidence, C=s.self_train_C, max_docs=max_train_docs
            )
            del before, best, agree
            if trained is not None:
                rule.classifier_coef, rule.classifier_intercept = trained
        del lexical
        rule.head = head
        evidence = rule._evidence(sims, lex_title, lex_abstract, votes, emb)
        return rule, rule._decide(evidence, emb, tc, ac, titles, abstracts)

    def assign(
        self,
        doc_embeddings: np.ndarray,
        titles: Sequence[str | None],
        abstracts: Sequence[str | None],
        *,
        reference: np.ndarray,
    ) -> DocumentThemes:
        """Place documents with the fitted rule; ``reference`` = the fitted documents' embeddings (in
        the order of the fit). A document of the fitted corpus gets exactly the theme the fit gave it."""
        evidence, emb, tc, ac = self._document_evidence(doc_embeddings, titles, abstracts, reference)
        return self._decide(evidence, emb, tc, ac, titles, abstracts)

    def evidence(
        self,
        doc_embeddings: np.ndarray,
        titles: Sequence[str | None],
        abstracts: Sequence[str | None],
        *,
        reference: np.ndarray,
    ) -> dict[str, np.ndarray]:
        """Each kind of evidence (``themes.head.COMPONENTS``) for documents, as ``assign`` weighs it:
        what a supervised head learns from (``benchmarks/train_theme_head.py``)."""
        return self._document_evidence(doc_embeddings, titles, abstracts, reference)[0]

    def _document_evidence(self, doc_embeddings, titles, abstracts, reference):
        emb = ev.normalize(doc_embeddings)
        s = self.settings
        tc, ac = lx.count_terms(self.lexicon, titles), lx.count_terms(self.lexicon, abstracts)
        _, sims, lex_title, lex_abstract = _own_logits(
            emb, tc, ac, self.prototypes, self.prototype_theme, self.lexicon, self.term_weights, self.n_columns, s
        )
        nn_idx, nn_sim = ev.neighbours_among(reference, emb, s.n_neighbors, skip_self=True)
        votes = ev.neighbour_votes(nn_idx, nn_sim, self.reference_own, floor=s.neighbour_floor, prior=s.neighbour_prior)
        return self._evidence(sims, lex_title, lex_abstract, votes, emb), emb, tc, ac

    @property
    def n_columns(self) -> int:
        return self.centroids.shape[0]

    def renamed(self, mapping: Mapping[str, str]) -> ThemeRule:
        """The same rule with displayed names mapped (rename, or merge when several map to one)."""
        return replace(self, names=[mapping.get(n, n) for n in self.names])

    def theme_vectors(self) -> np.ndarray:
        """One vector per displayed theme name (mean of its prototypes), rows in ``unique_names`` order."""
        vecs = _theme_vectors(self.prototypes, self.prototype_theme, self.n_columns)
        return ev.normalize(
            np.vstack([vecs[[i for i, n in enumerate(self.names) if n == u]].mean(axis=0) for u in self.unique_names])
        )

    @property
    def unique_names(self) -> list[str]:
        return list(dict.fromkeys(self.names))

    def _evidence(self, sims, lex_title, lex_abstract, votes, emb) -> dict[str, np.ndarray]:
        """The kinds of evidence by name (``themes.head.COMPONENTS``), each ``(n_docs, n_columns)``."""
        trained = self.classifier_coef is not None and self.settings.self_train_weight > 0
        return {
            "prototypes": sims,
            "title_terms": lex_title,
            "abstract_terms": lex_abstract,
            "neighbours": np.log(votes),
            "centroids": ev.centroid_evidence(emb, self.centroids),
            "self_trained": ev.classifier_log_proba(emb, self.classifier_coef, self.classifier_intercept)
            if trained
            else np.zeros_like(sims),
        }

    def _logits(self, evidence: dict[str, np.ndarray], emb: np.ndarray, titles=None, abstracts=None) -> np.ndarray:
        if self.head is None:
            return settings_logits(evidence, self.settings)
        return self.head.logits(evidence, emb, titles, abstracts)

    def _decide(self, evidence: dict[str, np.ndarray], emb, tc, ac, titles, abstracts) -> DocumentThemes:
        s = self.settings
        sims, votes = evidence["prototypes"], np.exp(evidence["neighbours"])
        lexical = evidence["title_terms"] + evidence["abstract_terms"]
        proba_cols = ev.softmax(self._logits(evidence, emb, titles, abstracts))
        names = self.unique_names
        proba = self.grouped(proba_cols)
        order = two_best(proba)
        rows = np.arange(len(proba))
        score = proba[rows, order[:, 0]]
        score_2 = proba[rows, order[:, 1]] if proba.shape[1] > 1 else np.zeros(len(proba), np.float32)
        best_col = np.argmax(proba_cols, axis=1)
        best_sim = sims.max(axis=1, initial=-1.0)
        no_phrase = (best_sim < s.doc_threshold) & (lexical.sum(axis=1) == 0)
        weak = best_sim < s.weak_similarity
        not_prose = ev.not_prose(abstracts, len(proba), s.min_function_words)
        no_evidence = no_phrase | weak | not_prose
        theme, theme_2, reason = [], [], []
        for i in range(len(proba)):
            if no_evidence[i]:
                theme.append("")
                theme_2.append("")
                reason.append(_no_theme_reason(self, i, sims, bool(no_phrase[i]), bool(weak[i])))
                continue
            theme.append(names[order[i, 0]])
            theme_2.append(names[order[i, 1]] if proba.shape[1] > 1 else "")
            reason.append(_reason(self, i, int(best_col[i]), sims, lexical, votes, tc, ac))
        score = np.where(no_evidence, np.nan, score).astype(np.float32)
        score_2 = np.where(no_evidence, np.nan, score_2).astype(np.float32)
        return DocumentThemes(theme, score, theme_2, score_2, reason, proba_cols.astype(np.float32))

    def grouped(self, proba: np.ndarray) -> np.ndarray:
        """Column probabilities added up per displayed name (``unique_names`` order)."""
        names = self.unique_names
        group = np.zeros((self.n_columns, len(names)), dtype=np.float32)
        for i, n in enumerate(self.names):
            group[i, names.index(n)] = 1.0
        return proba @ group


def settings_logits(evidence: Mapping[str, np.ndarray], s: ThemeSettings) -> np.ndarray:
    """Theme logits without a head: the evidence (``ThemeRule.evidence``) added with the settings' weights."""
    return (
        s.prototype_weight * evidence["prototypes"]
        + s.lexical_weight * (evidence["title_terms"] + evidence["abstract_terms"])
        + s.neighbour_weight * evidence["neighbours"]
        + s.centroid_weight * evidence["centroids"]
        + s.self_train_weight * evidence["self_trained"]
    )


def two_best(proba: np.ndarray) -> np.ndarray:
    """``(n_docs, 2)``: each row's two most probable columns (stable order), ranked ``ev.ROW_CHUNK`` rows at a
    time so no ``(n_docs, n_columns)`` ranking is held."""
    parts = np.split(proba, range(ev.ROW_CHUNK, len(proba), ev.ROW_CHUNK))
    return np.vstack([np.argsort(-part, axis=1, kind="stable")[:, :2].copy() for part in parts])  # copy: no view


def _own_logits(emb, tc, ac, protos, owner, lexicon, weights, n_themes, s: ThemeSettings):
    """A document's own evidence: ``(logits, prototype similarities, title terms, abstract terms)``."""
    sims = ev.prototype_evidence(emb, protos, owner, n_themes, top=s.top_prototypes)
    lex_title, lex_abstract = lx.lexical_parts(lexicon, tc, ac, weights, title_weight=s.title_weight)
    return s.prototype_weight * sims + s.lexical_weight * (lex_title + lex_abstract), sims, lex_title, lex_abstract


def _no_theme_reason(rule: ThemeRule, i: int, sims: np.ndarray, no_phrase: bool, weak: bool) -> str:
    s = rule.settings
    closest = int(np.argmax(sims[i]))
    if no_phrase:
        return (
            f"no theme: no theme phrase found and similarity {sims[i, closest]:.2f} to the closest "
            f"({rule.names[closest]}) is below {s.doc_threshold:.2f}"
        )
    if weak:
        return (
            f"no theme: weak evidence: similarity {sims[i, closest]:.2f} to the closest theme "
            f"({rule.names[closest]}) is below {s.weak_similarity:.2f} (real abstracts are above it)"
        )
    return (
        f"no theme: no research evidence: the abstract is a list of words, not prose (fewer than "
        f"{s.min_function_words:.0%} of its words are English function words such as 'we', 'the', 'of'; "
        "none of 33,538 real ICML, NeurIPS and ICLR abstracts is below it)"
    )


def _reason(rule: ThemeRule, i: int, col: int, sims, lexical, votes, tc, ac) -> str:
    parts = []
    if lexical[i, col] > 0:
        found = lx.matched_phrases(rule.lexicon, tc, ac, i, col)[:3]
        parts.append("terms " + ", ".join(f"'{p}'" for p in found))
    parts.append(f"similarity {sims[i, col]:.2f}")
    if votes[i, col] > 2.0 / votes.shape[1]:
        parts.append(f"neighbours {votes[i, col]:.0%}")
    return "own evidence: " + "; ".join(parts)
