"""``python -m icml_topics`` runs the ``icml-topics`` command."""

from icml_topics.cli import main

main()
