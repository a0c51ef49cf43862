"""MkDocs hook: render the Sphinx roles of the docstrings (``:func:`x```, ``:mod:`x``` …).

The library's docstrings cross-reference with Sphinx roles; mkdocstrings renders the backticked name
as code and would leave the role itself as literal text. This hook drops the role prefix, so
``:func:`beta_star``` reads as ``beta_star`` in code font.
"""

import re

_ROLE = re.compile(r":(?:py:)?(?:func|mod|class|data|attr|meth|obj|exc|const):(?=<code>)")


def on_page_content(html, **kwargs):
    return _ROLE.sub("", html)
