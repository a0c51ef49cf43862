"""Look at the documentation site the way a reader without internet sees it: build it, serve it on
127.0.0.1, open a page with formulas in headless Chromium that may reach nothing else, and write a
screenshot and a verdict.

Usage, from the repository root (Chromium: ``apt-get install chromium`` on Debian):

    python tools/docs_screenshot.py [--page design-engine/] [--out docs-screenshot.png]

The verdict counts, in the page as Chromium rendered it (``--dump-dom``), the formulas MathJax
typeset (``mjx-container`` elements) and the formulas left as raw TeX (``\\(`` still in the text
of an ``arithmatex`` element), and lists every request Chromium tried that was not to the local
server (none may succeed: every other host resolves to nothing). Exit status 0 when at least one
formula was typeset, none was left raw and nothing outside was asked for. Look at the PNG too.
CI cannot be assumed to have Chromium, so ``tests/test_docs.py`` checks what it can without a
browser (no CDN address in the built site, the renderer's files in it); this is the check by eye.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no Chromium found: apt-get install chromium")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, int]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def browse(url: str, out: Path, *, width: int = 1280, height: int = 2000, wait_ms: int = 20000) -> str:
    """Screenshot ``url`` to ``out`` and return the rendered DOM; every host but 127.0.0.1 is unreachable."""
    common = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        f"--virtual-time-budget={wait_ms}", f"--window-size={width},{height}",
    ]  # fmt: skip
    subprocess.run([*common, f"--screenshot={out}", url], check=True, capture_output=True, timeout=300)
    dom = subprocess.run([*common, "--dump-dom", url], check=True, capture_output=True, text=True, timeout=300)
    return dom.stdout


def verdict(dom: str) -> dict:
    typeset = len(re.findall(r"<mjx-container\b", dom))
    raw = 0
    for m in re.finditer(r'<(span|div) class="arithmatex">(.*?)</\1>', dom, re.S):
        if "\\(" in m.group(2) or "\\[" in m.group(2):
            raw += 1
    outside = sorted(set(re.findall(r"""(?:src|href)=["'](https?://(?!127\.0\.0\.1)[^"']+\.(?:js|css|woff2?))""", dom)))
    return {"typeset": typeset, "raw": raw, "outside": outside}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="design-engine/", help="page to open, relative to the site root")
    parser.add_argument("--out", default="docs-screenshot.png", help="where to write the screenshot")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="site-") as site:
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site], cwd=ROOT,
                       check=True, capture_output=True)  # fmt: skip
        server, port = serve(Path(site))
        try:
            dom = browse(f"http://127.0.0.1:{port}/{args.page}", Path(args.out).resolve())
        finally:
            server.shutdown()
    v = verdict(dom)
    ok = v["typeset"] > 0 and v["raw"] == 0 and not v["outside"]
    print(f"{args.page}: {v['typeset']} formulas typeset by MathJax, {v['raw']} left as raw TeX, "
          f"{len(v['outside'])} resources outside the site {v['outside']}; screenshot: {args.out}")  # fmt: skip
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
