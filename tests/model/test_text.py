"""The one text module: tokens, stop words, spelling variants, word forms, acronyms (icml_topics/text.py)."""

from __future__ import annotations

import pytest

from icml_topics.stages.keyphrases import clean_keyphrases
from icml_topics.stages.naming import name_topics
from icml_topics.text import (
    acronym_letters,
    american,
    initials,
    letter_runs,
    phrase_tokens,
    stem,
    stop_words,
    term_key,
    term_keys,
    words,
)

#: words whose -is- belongs to the root: American spelling leaves them as they are
ROOT_IS = (
    "noise noises noisy denoise denoised denoiser denoising supervised unsupervised self-supervised supervision "
    "promise promising unpromising precise imprecise concise exercise expertise compromise raise raising arise "
    "arising rise rising otherwise pairwise pointwise layerwise piecewise comprise comprising surprise surprising "
    "devise advise revised advertising enterprise disguise franchise premise improvisation ising"
).split()


@pytest.mark.parametrize("word", ROOT_IS)
def test_american_spelling_never_misspells_a_word_whose_root_holds_is(word):
    assert american(word) == word
    assert "iz" not in term_key(word)


@pytest.mark.parametrize(
    ("british", "us"),
    [
        ("optimisation", "optimization"),
        ("normalised", "normalized"),
        ("tokenisers", "tokenizers"),
        ("regularising", "regularizing"),
        ("generalisation", "generalization"),
        ("behaviour", "behavior"),
        ("modelling", "modeling"),
        ("analyse", "analyze"),
        ("colour", "color"),
        ("hypothesise", "hypothesize"),
    ],
)
def test_british_spellings_become_american_words(british, us):
    assert american(british) == us


def test_term_keys_merge_spelling_and_number_but_keep_different_words_apart():
    assert term_keys("Optimisation of graphs") == term_keys("optimization of graph")
    assert term_key("noises") == term_key("noise") == "noise"
    assert term_key("modelling") == term_key("modeling")
    assert term_key("denoising") != term_key("noising")
    assert term_key("prize") != term_key("prise")


def test_tokens_of_each_kind():
    assert words("Self-Supervised GNNs, 2024!") == ["self", "supervised", "gnns", "2024"]
    assert phrase_tokens("Self-supervised (SSL) models'") == ["self-supervised", "ssl", "models'"]
    assert phrase_tokens("learning (SSL)", parens=True) == ["learning", "(ssl)"]
    assert letter_runs("Rényi_divergence") == ["rényi", "divergence"]


def test_stop_words_word_forms_and_acronyms():
    stop = set(stop_words({"icml"}))
    assert {"the", "propose", "paper", "icml"} <= stop and not {"learning", "model", "large"} & stop
    assert stem("learning") == stem("learns") == stem("learned")
    assert acronym_letters("GNNs") == "gnn" and acronym_letters("graph") is None
    assert initials(["self-supervised", "learning"]) == "ssl"


def test_a_denoising_topic_is_named_in_real_words():
    keyphrases = ["denoising diffusion models", "diffusion models", "denoising", "score matching", "noise"]
    assert clean_keyphrases(keyphrases)[0] == "denoising diffusion models"
    texts = ["Denoising diffusion models add noise and learn to remove it."] * 3
    name = name_topics({0: keyphrases}, texts={0: texts})[0]
    assert name.startswith("denoising diffusion models") and "noiz" not in name
