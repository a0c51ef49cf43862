"""MkDocs hook: the docstrings' Sphinx roles and citations, rendered for the site.

* Sphinx roles (``:func:`x```, ``:mod:`x``` …): mkdocstrings renders the backticked name as code
  and would leave the role as literal text; the role prefix is dropped.
* Citations ``[key, eq. (n)]`` with a key of ``references.md`` become links to that reference.
  Where a citation follows a bracketed expression (``P_Y[E] [empirical-pml, eq. (59)]``), Markdown
  reads the pair as a reference-style link; such links are turned back into the text and a
  citation link instead of an unresolved cross-reference.
"""

import html as _html
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

_ROLE = re.compile(r":(?:py:)?(?:func|mod|class|data|attr|meth|obj|exc|const):(?=<code>)")
_KEYS = set(re.findall(r"\{ #([a-z0-9-]+) \}", (Path(__file__).parent / "references.md").read_text()))
_AUTOREF = re.compile(r"<autoref\b[^>]*\bidentifier=\"([^\"]*)\"[^>]*>(.*?)</autoref>", re.S)
_CITATION = re.compile(r"\[([a-z][a-z0-9-]*)((?:, [^\]<>\[]*)?)\]")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def _key(identifier: str):
    key = identifier.split(",", 1)[0].strip()
    return key if key in _KEYS else None


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
