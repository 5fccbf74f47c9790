"""The package version, in a leaf module: modules below ``TopicMap`` read it without importing the package root.

Examples:
    >>> from icml_topics._version import __version__
    >>> __version__
    '0.1.0'
"""

__version__ = "0.1.0"
