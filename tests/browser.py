"""Open generated HTML in a real headless Chromium (Debian's, via Playwright) for tests.

Every request that is not ``file://``, ``data:`` or ``blob:`` is aborted and recorded, which
proves a page is self-contained. Typical use in a test::

    from browser import chromium_available, render_in_browser

    if not chromium_available():
        pytest.skip(CHROMIUM_MISSING)
    result = render_in_browser(tmp_path / "report.html", tmp_path / "shot.png")
    assert result.errors == [] and result.rendered_plot_count == result.plot_count

``open_page`` keeps one browser open for several checks (render, then search).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "CHROMIUM_MISSING",
    "BrowserResult",
    "PageSession",
    "chromium_available",
    "match_count",
    "open_page",
    "render_in_browser",
    "search_in_browser",
]

CHROMIUM_MISSING = "Debian chromium not installed: apt-get install -y chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
_LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")

_COUNT_JS = """() => {
  const plots = Array.from(document.querySelectorAll('.plotly-graph-div'));
  const rendered = plots.filter(d => d.classList.contains('js-plotly-plot') && d.querySelector('svg.main-svg'));
  return [plots.length, rendered.length];
}"""


@dataclass
class BrowserResult:
    """What the page did: errors it logged, how many plotly plots exist and rendered, its title."""

    console_errors: list[str]
    page_errors: list[str]
    plot_count: int
    rendered_plot_count: int
    title: str
    external_requests: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and attempted network requests, together."""
        return [*self.console_errors, *self.page_errors, *(f"external request: {u}" for u in self.external_requests)]


def chromium_executable() -> str | None:
    """Path of the system Chromium (``$CHROMIUM`` overrides), or None."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def chromium_available() -> bool:
    """True when both the playwright package and a system Chromium are present."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return chromium_executable() is not None


class PageSession:
    """One open page; collects console errors, page errors and blocked requests as they happen."""

    def __init__(self, page) -> None:
        self.page = page
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.external_requests: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and self.console_errors.append(msg.text))
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

    def _route(self, route) -> None:
        url = route.request.url
        if url.startswith(_LOCAL_SCHEMES):
            route.continue_()
        else:
            self.external_requests.append(url)
            route.abort()

    def wait_for_plots(self, timeout_ms: int = 30_000) -> None:
        """Wait until every plotly div has drawn its SVG (returns quietly on timeout; counts tell)."""
        with contextlib.suppress(Exception):
            self.page.wait_for_function(
                f"() => {{ const [n, r] = ({_COUNT_JS})(); return n > 0 && n === r; }}", timeout=timeout_ms
            )

    def result(self, screenshot_path: str | os.PathLike[str] | None = None) -> BrowserResult:
        """Counts and errors so far; optionally a full-page screenshot."""
        plot_count, rendered = self.page.evaluate(_COUNT_JS)
        if screenshot_path is not None:
            Path(screenshot_path).parent.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(screenshot_path), full_page=True)
        return BrowserResult(
            console_errors=list(self.console_errors),
            page_errors=list(self.page_errors),
            plot_count=plot_count,
            rendered_plot_count=rendered,
            title=self.page.title(),
            external_requests=list(self.external_requests),
        )

    def search(self, query: str, timeout_ms: int = 15_000) -> str:
        """Type ``query`` into the report's search box; return the status text ("N papers match")."""
        box = self.page.locator("input[type=search]")
        box.fill("")
        box.type(query)
        box.press("Enter")
        expected = query.strip().lower()
        self.page.wait_for_function(
            "q => document.getElementById('search-status').dataset.done === q", arg=expected, timeout=timeout_ms
        )
        return self.page.inner_text("#search-status")

    def highlighted_ids(self) -> list[str]:
        """Document ids drawn in the search-highlight trace of every searchable figure."""
        return self.page.evaluate(
            """() => Array.from(document.querySelectorAll('figure[data-searchable] .js-plotly-plot'))
                 .flatMap(gd => gd.data.filter(t => t.meta === 'icml-search-highlight').flatMap(t => t.hovertext))"""
        )


@contextlib.contextmanager
def open_page(html_path: str | os.PathLike[str], *, width: int = 1280, height: int = 900) -> Iterator[PageSession]:
    """Open ``html_path`` from ``file://`` in headless Chromium with the network blocked."""
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    if executable is None:
        raise RuntimeError(CHROMIUM_MISSING)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            session = PageSession(page)
            context.route("**/*", session._route)
            page.goto(Path(html_path).resolve().as_uri(), wait_until="load")
            session.wait_for_plots()
            yield session
        finally:
            browser.close()


def render_in_browser(html_path: str | os.PathLike[str], screenshot_path: str | os.PathLike[str]) -> BrowserResult:
    """Open the page, wait for the plots, take a full-page screenshot, report what happened."""
    with open_page(html_path) as session:
        return session.result(screenshot_path)


def search_in_browser(html_path: str | os.PathLike[str], query: str) -> str:
    """Open the page and type ``query`` into its search box; returns the "N papers match" text."""
    with open_page(html_path) as session:
        return session.search(query)


def match_count(status_text: str) -> int:
    """The N of "N papers match" / "1 paper matches" (raises ValueError when absent)."""
    found = re.search(r"([\d,]+) papers? match", status_text)
    if not found:
        raise ValueError(f"no match count in {status_text!r}")
    return int(found.group(1).replace(",", ""))
