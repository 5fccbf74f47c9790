"""Research themes: the taxonomy of machine-learning areas that documents and topics are assigned to.

Examples:
    >>> from icml_topics.themes import load_taxonomy
    >>> len(load_taxonomy()) >= 20
    True
"""

from icml_topics.themes.taxonomy import Taxonomy, TaxonomyLike, Theme, load_taxonomy

__all__ = ["Taxonomy", "TaxonomyLike", "Theme", "load_taxonomy"]
