"""MkDocs hook: the docstrings' Sphinx roles and citations, rendered for the site.

* Sphinx roles (``:func:`x```, ``:mod:`x``` …): mkdocstrings renders the backticked name as code
  and would leave the role as literal text; the role prefix is dropped.
* Citations ``[key, eq. (n)]`` with a key of ``references.md`` become links to that reference.
  Where a citation follows a bracketed expression (``P_Y[E] [empirical-pml, eq. (59)]``), Markdown
  reads the pair as a reference-style link; such links are turned back into the text and a
  citation link instead of an unresolved cross-reference.
* ``<!-- config.yaml: SECTION -->`` in a page becomes that section of ``config.yaml``, as it is in
  the file (comments included), in a collapsible block: the pages show the defaults without
  keeping a copy of them (config.yaml is their one home). Without the file the build stops at once
  with an error that names it and says how to get it back (no traceback).
* MathJax ships with the site, so that formulas render without the internet: the files of the
  pinned package ``django-static-mathjax`` (MathJax 3's browser build; nothing of Django is used)
  that the TeX-to-HTML renderer loads are added to the site under ``javascripts/mathjax/``.
"""

import html as _html
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

_ROLE = re.compile(r":(?:py:)?(?:func|mod|class|data|attr|meth|obj|exc|const):(?=<code>)")
_KEYS = set(re.findall(r"\{ #([a-z0-9-]+) \}", (Path(__file__).parent / "references.md").read_text()))
_AUTOREF = re.compile(r"<autoref\b[^>]*\bidentifier=\"([^\"]*)\"[^>]*>(.*?)</autoref>", re.S)
_CITATION = re.compile(r"\[([a-z][a-z0-9-]*)((?:, [^\]<>\[]*)?)\]")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


#: Where the site serves MathJax (mkdocs.yml's extra_javascript loads its tex-mml-chtml.js).
MATHJAX_URL = "javascripts/mathjax"
#: The renderer and what it loads on demand: TeX extensions, the CHTML fonts, the menu and the
#: accessibility tools (the other renderers' bundles and the SVG output are left out).
MATHJAX_FILES = ("tex-mml-chtml.js", "input/", "output/chtml/", "ui/", "a11y/", "sre/", "adaptors/")


def mathjax_dir() -> Path:
    """MathJax 3's browser build (``es5``) in the installed ``django-static-mathjax``."""
    import mathjax  # the package django-static-mathjax

    return Path(mathjax.__file__).resolve().parent / "static" / "mathjax" / "es5"


def on_files(files, config, **kwargs):
    root = mathjax_dir()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel.startswith(MATHJAX_FILES) and not rel.endswith(".map"):
            files.append(File.generated(config, f"{MATHJAX_URL}/{rel}", abs_src_path=str(path)))
    return files


def _key(identifier: str):
    key = identifier.split(",", 1)[0].strip()
    return key if key in _KEYS else None


_CONFIG_MARK = re.compile(r"^<!-- config\.yaml: ([A-Za-z0-9_-]+) -->$", re.M)
CONFIG = Path(__file__).resolve().parents[1] / "config.yaml"


def check_config(path: Path = CONFIG) -> None:
    """Stop the build with a clear error when config.yaml, which the pages quote, is missing."""
    if not path.is_file():
        raise PluginError(
            f"{path} is missing. The documentation quotes its sections (the defaults of every "
            "parameter), so it cannot be built without it. Build from the root of a complete checkout "
            "of the repository, or restore the file with `git checkout -- config.yaml`."
        )


def on_config(config, **kwargs):
    check_config()
    return config


def config_section(name: str, path: Path = CONFIG) -> str:
    """The lines of top-level section ``name`` of config.yaml, its key line included, up to the next
    top-level key or comment (trailing blank lines dropped)."""
    check_config(path)
    lines = path.read_text().splitlines()
    try:
        start = lines.index(f"{name}:")
    except ValueError:
        raise ValueError(f"config.yaml has no top-level section {name!r}") from None
    end = start + 1
    while end < len(lines) and (not lines[end] or lines[end][0] in " \t"):
        end += 1
    return "\n".join(lines[start:end]).rstrip()


def on_page_markdown(markdown, page, **kwargs):
    def block(m):
        body = "\n".join("    " + line if line else "" for line in config_section(m.group(1)).splitlines())
        return (f'??? note "`config.yaml`, section `{m.group(1)}`: the parameters and their defaults"\n'
                f"    ```yaml\n{body}\n    ```")  # fmt: skip

    return _CONFIG_MARK.sub(block, markdown)


def on_page_content(html, page, **kwargs):
    refs = get_relative_url("references/", page.url)

    def link(key: str, text: str) -> str:
        return f'<a href="{refs}#{key}">{text}</a>'

    def autoref(m):
        identifier = _html.unescape(m.group(1))
        key = _key(identifier)
        if key is None:
            return m.group(0)
        return f"[{m.group(2)}] [{link(key, _html.escape(identifier))}]"

    def citation(m):
        key = m.group(1)
        return f"[{link(key, key + m.group(2))}]" if key in _KEYS else m.group(0)

    html = _ROLE.sub("", html)
    html = _AUTOREF.sub(autoref, html)
    parts = _PRE.split(html)
    return "".join(p if p.startswith("<pre") else _CITATION.sub(citation, p) for p in parts)
