"""Execute the notebooks in place so that they are committed with their outputs.

    python notebooks/execute.py                   # every notebook in this folder
    python notebooks/execute.py quickstart.ipynb  # one of them

Each runs top to bottom in a fresh ``python3`` kernel of this interpreter (install ipykernel), in this
folder, offline (``HF_HUB_OFFLINE=1``), on the shared corpora (``ICML_TOPICS_SHARED_DATA``, else
``shared/data`` next to the repository). The notebooks fix their seeds and samples, so a re-run gives
the same tables and figures (timings aside). Files they write go to a temporary folder.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
WIDGET = "application/vnd.jupyter.widget-view+json"


def execute(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(nb, kernel_name="python3", timeout=900, resources={"metadata": {"path": str(HERE)}}).execute()
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.metadata.pop("execution", None)  # nbclient's timestamps: noise in every diff
            # progress bars are widgets: state GitHub cannot render, and "0%" forever in a saved notebook
            cell.outputs = [o for o in cell.outputs if WIDGET not in o.get("data", {})]
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    print(f"{path.name}: executed in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    names = sys.argv[1:] or sorted(p.name for p in HERE.glob("*.ipynb"))
    for name in names:
        execute(HERE / name)
