"""Everything the package keeps on disk, below every other module: folders, manifests, swaps, CSVs, caches.

The store imports nothing of icml_topics but the leaf modules (``_io``, ``errors``, ``schema``), so any
module (the fit, plotting, the report, the outputs) may use it without an import cycle. Its modules:

- ``ownership``: the proof that a folder is ours (``manifest.json``), ``is_ours``, ``ownership_problem``;
- ``swap``: the staged swap of a folder as a whole and the clean-up after a killed run;
- ``folders``: output folders for ``fit --out``, ``compare --out`` and ``TopicMap.save`` (checked, staged,
  verified, recovered);
- ``csv_files``: ``write_csv``, the one spreadsheet-safe CSV writer;
- ``cache``: checksummed caches of stage results and drawn outputs.

Examples:
    >>> from icml_topics.store.folders import output_folder
    >>> from icml_topics.store.csv_files import write_csv
    >>> with output_folder("out/") as staging:
    ...     write_csv(table, staging / "table.csv")
"""

__all__: list[str] = []  # internal: import from the modules above (the public API writes through them)
