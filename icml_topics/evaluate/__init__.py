"""Evaluation built in: topic coherence, diversity, outlier share and agreement with reference labels.

Examples:
    >>> from icml_topics.evaluate import npmi_coherence, topic_diversity, label_agreement
    >>> npmi_coherence([["a", "b"]], ["a b", "c"])[0]
    1.0
    >>> topic_diversity([["a", "b"], ["a", "c"]])
    0.75
    >>> label_agreement(["x", "y"], ["y", "x"])["nmi"]
    1.0
"""

from icml_topics.evaluate.agreement import label_agreement, outlier_share, unassigned_share
from icml_topics.evaluate.coherence import default_tokenizer, npmi_coherence, topic_diversity
from icml_topics.evaluate.dev_labels import load_dev_labels, load_theme_labels
from icml_topics.evaluate.summary import evaluate_model

__all__ = [
    "default_tokenizer",
    "evaluate_model",
    "label_agreement",
    "load_dev_labels",
    "load_theme_labels",
    "npmi_coherence",
    "outlier_share",
    "topic_diversity",
    "unassigned_share",
]
