"""Words of English text, in one place: tokens, stop words, spelling variants, word forms and acronyms.

Every stage that reads words uses these (representation, naming, keyphrases, lexical theme evidence,
the word classifier, evaluation, alignment), so two stages never disagree about what a word is.

- **Tokens.** ``words`` (lower-case ASCII letter/digit runs: term matching, naming),
  ``phrase_tokens`` (words with inner hyphens and apostrophes, optionally with their parentheses:
  keyphrases, names), ``letter_runs`` (letters of any script: evaluation, alignment) and
  ``VECTORIZER_TOKEN_PATTERN`` (the c-TF-IDF vectorizer's words).
- **Stop words.** ``stop_words``: English plus the boilerplate of ML abstracts.
- **Spelling.** ``american`` writes one word in American spelling and always returns a real word
  ("optimisation" -> "optimization", "behaviour" -> "behavior"; "noise", "denoising", "supervised",
  "promising", "pairwise" stay as they are). ``term_key`` is the matching key of a word (one spelling
  per -ise/-ize and -ll-/-l- variant, no plural): keys are compared, never shown.
- **Word forms.** ``stem`` puts a word's forms together (learn / learns / learning).
- **Acronyms.** ``acronym_letters``, ``display_acronym``, ``initials``.

Examples:
    >>> words("Non-convex Optimisation of GNNs")
    ['non', 'convex', 'optimisation', 'of', 'gnns']
    >>> [american(w) for w in ("optimisation", "denoising", "behaviour", "noise")]
    ['optimization', 'denoising', 'behavior', 'noise']
    >>> term_keys("Denoising noises, optimised GNNs")
    ['denoising', 'noise', 'optimized', 'gnn']
"""

from __future__ import annotations

import re
from functools import lru_cache

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = [
    "ACADEMIC_STOP_WORDS",
    "ENGLISH_STOP_WORDS",
    "KNOWN_ACRONYMS",
    "NOT_ACRONYMS",
    "VECTORIZER_TOKEN_PATTERN",
    "acronym_letters",
    "american",
    "display_acronym",
    "english_stop_keys",
    "function_word_share",
    "first_sentence",
    "initials",
    "letter_runs",
    "marked_tokens",
    "phrase_tokens",
    "stem",
    "stop_words",
    "term_key",
    "term_keys",
    "words",
]

# --- tokens ------------------------------------------------------------------------------------------
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
_WORD = re.compile(r"[a-z0-9]+")
_PHRASE_TOKEN = re.compile(r"\(?[a-z0-9][a-z0-9\-']*\)?")
_LETTER_RUN = re.compile(r"[^\W_]+")
#: scikit-learn ``token_pattern`` of the c-TF-IDF vectorizer: words of two or more characters that start
#: with a letter, inner hyphens kept ("self-supervised", "gpt-4"; not "2024").
VECTORIZER_TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z0-9\-]*[a-zA-Z0-9]\b"


def words(text: str) -> list[str]:
    """Lower-cased runs of ASCII letters and digits; hyphens and punctuation separate words.

    >>> words("Self-Supervised GNNs (2024)")
    ['self', 'supervised', 'gnns', '2024']
    """
    return _WORD.findall(text.lower())


def function_word_share(text: str | None) -> tuple[float, int]:
    """The share of ``text``'s words that are English function words (scikit-learn's stop words: "we", "the",
    "of", ...), and its number of words. Prose is full of them; a list of words is not.

    >>> function_word_share("We bound the regret of bandits.")
    (0.5, 6)
    """
    found = words(text or "")
    return (sum(w in ENGLISH_STOP_WORDS for w in found) / len(found) if found else 0.0), len(found)


def phrase_tokens(text: str, *, parens: bool = False) -> list[str]:
    """Lower-cased words with their inner hyphens and apostrophes; ``parens=True`` keeps the parentheses
    around a word (to tell "federated learning (FL)" from "federated learning fl").

    >>> phrase_tokens("Self-supervised learning (SSL)"), phrase_tokens("learning (SSL)", parens=True)
    (['self-supervised', 'learning', 'ssl'], ['learning', '(ssl)'])
    """
    tokens = _PHRASE_TOKEN.findall(text.lower())
    return tokens if parens else [t.strip("()") for t in tokens]


_MARKED_TOKEN = re.compile(r"[^\W_][\w\-']*|[^\w\s]")


def marked_tokens(text: str) -> list[str]:
    """Words (any script, case kept, inner hyphens and apostrophes kept) and punctuation marks, in order,
    so that a phrase never runs across a colon or a comma (sibling names, word roles).

    >>> marked_tokens("KV-Cache: Nyström, LLMs")
    ['KV-Cache', ':', 'Nyström', ',', 'LLMs']
    """
    return _MARKED_TOKEN.findall(text)


def first_sentence(text: object, max_chars: int = 160) -> str:
    """The first sentence of ``text`` (up to ``.``, ``!`` or ``?`` before a capital letter, so "e.g. a" does
    not end it), cut at a word boundary with "…" when longer than ``max_chars``; "" for a missing text.

    Examples:
        >>> first_sentence("We study e.g. graphs. Then we prove a bound.")
        'We study e.g. graphs.'
    """
    if not isinstance(text, str):
        return ""
    text = " ".join(text.split())
    end = _SENTENCE_END.search(text)
    sentence = text[: end.start()] if end else text
    if len(sentence) <= max_chars:
        return sentence
    cut = sentence[: max_chars - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut}…"


def letter_runs(text: str) -> list[str]:
    """Lower-cased runs of letters and digits of any script.

    >>> letter_runs("Rényi-divergence, 2024")
    ['rényi', 'divergence', '2024']
    """
    return _LETTER_RUN.findall(text.lower())


# --- stop words --------------------------------------------------------------------------------------
# Words such as "propose", "paper", "method", "results" occur in most abstracts and say nothing about the
# topic; c-TF-IDF would otherwise rank them high in every topic. Field words such as "learning", "model"
# or "large" stay: they are parts of keyphrases ("reinforcement learning", "large language models"), and
# c-TF-IDF's frequent-word reduction already damps them on their own.
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
    return sorted(set(ENGLISH_STOP_WORDS) | ACADEMIC_STOP_WORDS | set(extra or ()))


# --- spelling ----------------------------------------------------------------------------------------
# British -> American spellings seen in ML abstracts (the -ise/-isation family is handled by rule)
_SPELLING = {
    "behaviour": "behavior", "behaviours": "behaviors", "modelling": "modeling", "modelled": "modeled",
    "labelling": "labeling", "labelled": "labeled", "travelling": "traveling", "centre": "center",
    "centres": "centers", "generalisation": "generalization", "colour": "color", "colours": "colors",
    "neighbour": "neighbor", "neighbours": "neighbors", "neighbourhood": "neighborhood", "favour": "favor",
    "analyse": "analyze", "analysed": "analyzed", "analysing": "analyzing", "signalling": "signaling",
    "programme": "program", "catalogue": "catalog", "defence": "defense", "licence": "license",
}  # fmt: skip
# British -ise (optimise, normalisation, tokeniser) is American -ize; at least three letters before it
_ISE = re.compile(r"^(.{3,})is(e|es|ed|ing|ation|ations|er|ers)$")
# ... except words whose -is- belongs to the root: noise / denoising, supervised, promising, pairwise, ...
_ISE_ROOTS = (
    "ois", "wis", "rais", "prais", "promis", "premis", "exercis", "precis", "concis", "expertis", "compromis",
    "advis", "revis", "supervis", "televis", "improvis", "devis", "guis", "surpris", "compris", "enterpris",
    "repris", "appris", "franchis", "merchandis", "paradis", "excis", "incis", "despis", "treatis", "demis",
    "chemis", "bruis", "cruis", "surmis", "chastis", "advertis", "exorcis",
)  # fmt: skip


def _ize(word: str) -> str:
    """British -ise / -isation as American -ize / -ization, where the -is- is the suffix, not the root."""
    m = _ISE.match(word)
    if m and not f"{m.group(1)}is".endswith(_ISE_ROOTS):
        return f"{m.group(1)}iz{m.group(2)}"
    return word


def american(word: str) -> str:
    """American spelling of one lower-case word; always a word ("optimisation" -> "optimization",
    "behaviour" -> "behavior", "denoising" and "noise" unchanged).

    >>> american("tokenisers"), american("self-supervised"), american("promising")
    ('tokenizers', 'self-supervised', 'promising')
    """
    return _ize(_SPELLING.get(word, word))


@lru_cache(maxsize=200_000)
def term_key(token: str) -> str:
    """The matching key of one lower-case token: -ise as -ize (as ``american``), a British double -ll-
    before -ing/-ed/-er single, no plural -s. Not always a word ("biases" -> "biase"): compare keys, show
    the text. Whole-word variants ("behaviour") keep their own key: the built-in theme head's vocabulary
    was learnt with them apart.

    >>> [term_key(t) for t in ("optimisations", "modelling", "graphs", "noises", "studies")]
    ['optimization', 'modeling', 'graph', 'noise', 'study']
    """
    t = _ize(token)
    if len(t) > 4:
        t = re.sub(r"ll(ing|ed|er|ers)$", r"l\1", t)
    if len(t) > 4 and t.endswith("ies"):
        return t[:-3] + "y"
    if len(t) > 4 and re.search(r"(ss|sh|ch|x)es$", t):
        return t[:-2]
    if len(t) > 3 and t.endswith("s") and not re.search(r"(ss|us|is)$", t):
        return t[:-1]
    return t


def term_keys(text: str) -> list[str]:
    """The ``term_key`` of every word of ``text`` (``words``)."""
    return [term_key(t) for t in words(text)]


@lru_cache(maxsize=1)
def english_stop_keys() -> frozenset[str]:
    """The term keys of the English stop words (left out of the word classifier's terms)."""
    return frozenset(t for w in ENGLISH_STOP_WORDS for t in term_keys(w))


# --- word forms --------------------------------------------------------------------------------------
_SUFFIXES = (
    ("ically", "ic"), ("ally", "al"), ("ily", "y"), ("izations", "ize"), ("ization", "ize"), ("izing", "ize"),
    ("ations", "ate"), ("ation", "ate"), ("ings", ""), ("ing", ""), ("ies", "y"), ("ied", "y"), ("sses", "ss"),
    ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("ses", "s"), ("ed", ""), ("ly", ""), ("s", ""),
)  # fmt: skip


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A crude stem that puts a word's forms together (learn/learns/learning/learned,
    forecast/forecasting, privacy/private, quantization/quantizing, adversarial/adversarially).

    >>> stem("quantizing") == stem("quantization"), stem("privacy") == stem("private")
    (True, True)
    """
    w = american(word.lower())
    if len(w) <= 3 or not w.isalpha():
        return w[:-1] if w.endswith("s") and len(w) > 2 and w[:-1].isalpha() and w not in ("gas",) else w
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "s" and w.endswith(("ss", "us", "is", "as")):
                break
            w = w[: len(w) - len(suffix)] + repl
            break
    if w.endswith("cy") and len(w) > 4:
        w = w[:-2] + "t"  # privacy/private, accuracy/accurate
    while len(w) > 4 and w[-1] in "ey":
        w = w[:-1]
    return w


# --- acronyms ----------------------------------------------------------------------------------------
#: Acronyms that do not look like acronyms (they have vowels) but are written as such in ML.
KNOWN_ACRONYMS = frozenset(
    "gan gans vae vaes nas ode odes pde pdes llm llms rl sgd gnn gnns cnn cnns rnn rnns mlp mlps lstm lstms "
    "mdp mdps pomdp pomdps nlp ptq qat lora vit vits ood iid mcmc svm svms dp fl cl ssl kl hmm hmms gp gps "
    "bo nerf nerfs ai ml ner qa vqa asr tts icl rlhf dpo ppo sac dqn maml ntk ntks".split()
)
#: short words that are never acronyms
NOT_ACRONYMS = frozenset("and or of for in on to the via with by as at is an be we it its".split())
_VOWELS = set("aeiou")


def acronym_letters(token: str, context: frozenset[str] | set[str] = frozenset()) -> str | None:
    """The letters of ``token`` if it reads as an acronym ("gnns" -> "gnn", "rl" -> "rl"), else None.
    ``context``: initials of the phrases around it ("pca" is an acronym next to "principal component analysis").

    >>> acronym_letters("GNNs"), acronym_letters("pca", {"pca"}), acronym_letters("graph")
    ('gnn', 'pca', None)
    """
    t = token.lower().strip("()")
    if not t.isalpha() or not 2 <= len(t) <= 6 or t in NOT_ACRONYMS:
        return None
    base = t[:-1] if t.endswith("s") and len(t) > 2 else t
    if t in KNOWN_ACRONYMS or base in KNOWN_ACRONYMS or base in context or t in context:
        return base if base in KNOWN_ACRONYMS or base in context else t
    if not (set(base) & _VOWELS) and "y" not in base:
        return base
    return None


def initials(words: list[str] | tuple[str, ...]) -> str:
    """The first letters of ``words``, hyphenated parts each counting ("self-supervised learning" -> "ssl")."""
    return "".join(p[0] for w in words for p in w.split("-") if p)


def display_acronym(token: str) -> str:
    """Upper-case an acronym token, keeping a plural ``s`` lower-case: ``gnns`` -> ``GNNs``."""
    t = token.lower()
    base = acronym_letters(t) or t
    return base.upper() + ("s" if t.endswith("s") and len(t) > len(base) else "")
