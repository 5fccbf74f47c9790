"""A real JupyterLab server on 127.0.0.1 and a headless Chromium page driving it, for widget tests.

The server runs this Python (so the kernel imports this checkout through PYTHONPATH) in a temporary
root folder with its own config and runtime folders; the page is Debian's Chromium via Playwright
(as ``browser.py``), with every request that does not go to the server aborted and recorded. The
JupyterLab application is exposed in the page (``window.jupyterapp``), so cells are added and run
through its commands. Typical use::

    with lab_server(root) as server, lab_page(server, "explore.ipynb") as lab:
        lab.run_all()
        lab.run_cell("print(1)")
"""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from browser import CHROMIUM_ARGS, chromium_executable

REPO = Path(__file__).resolve().parents[1]


@dataclass
class LabServer:
    root: Path
    port: int
    token: str
    process: subprocess.Popen
    log: Path

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}?token={self.token}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(port: int, token: str) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", f"/api/status?token={token}")
        return conn.getresponse().status == 200
    except OSError:
        return False


@contextlib.contextmanager
def lab_server(root: Path, *, timeout_s: float = 120.0) -> Iterator[LabServer]:
    """``jupyter lab`` serving ``root`` on a free local port, with a random token; stopped on exit."""
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        "JUPYTER_CONFIG_DIR": str(root / ".jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(root / ".jupyter-runtime"),
        "IPYTHONDIR": str(root / ".ipython"),
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    log = root / ".jupyter-lab.log"
    args = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        "--allow-root",
        "--ServerApp.terminals_enabled=False",
        "--LabApp.extension_manager=readonly",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.port_retries=0",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.workspaces_dir={root / '.jupyter-workspaces'}",
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(args, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout_s
        while not _ready(port, token):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"jupyter lab did not start: {log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield LabServer(root, port, token, process, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class LabPage:
    page: object
    server: LabServer
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)

    def command(self, name: str) -> None:
        self.page.evaluate("name => window.jupyterapp.commands.execute(name)", name)

    def run_all(self) -> None:
        """Run every cell of the open notebook."""
        self.command("notebook:run-all-cells")

    def run_cell(self, code: str, *, wait_for: Path | None = None, timeout_s: float = 120.0) -> None:
        """Append a cell with ``code`` and run it; with ``wait_for``, wait until that file exists."""
        if wait_for is not None:
            wait_for.unlink(missing_ok=True)
        self.page.evaluate(
            """async code => {
                 const app = window.jupyterapp, nb = app.shell.currentWidget.content;
                 nb.activeCellIndex = nb.widgets.length - 1;
                 await app.commands.execute('notebook:insert-cell-below');
                 nb.activeCell.model.sharedModel.setSource(code);
                 await app.commands.execute('notebook:run-cell');
               }""",
            code,
        )
        if wait_for is not None:
            wait_file(wait_for, timeout_s)


def wait_file(path: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path.name} was not written within {timeout_s:.0f} s")
        time.sleep(0.2)
    time.sleep(0.1)  # written by one write_text call; let it close


@contextlib.contextmanager
def lab_page(server: LabServer, notebook: str, *, width: int = 1400, height: int = 1000) -> Iterator[LabPage]:
    """Open ``notebook`` (relative to the server root) in JupyterLab in headless Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_executable(), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            lab = LabPage(page, server)
            page.on("console", lambda msg: msg.type == "error" and lab.console_errors.append(msg.text))
            page.on("pageerror", lambda exc: lab.page_errors.append(str(exc)))
            local = (f"http://127.0.0.1:{server.port}/", f"ws://127.0.0.1:{server.port}/", "data:", "blob:")

            def route(r) -> None:
                if r.request.url.startswith(local):
                    r.continue_()
                else:
                    lab.external_requests.append(r.request.url)
                    r.abort()

            context.route("**/*", route)
            page.goto(server.url(f"lab/tree/{notebook}"), wait_until="load")
            page.wait_for_function(
                "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                " && window.jupyterapp.shell.currentWidget.sessionContext"
                " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
                " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.connectionStatus === 'connected'",
                timeout=120_000,
            )
            yield lab
        finally:
            browser.close()
