"""pytest runs the ``>>>`` examples of every page here (``--doctest-glob='*.md'``).

The Sphinx configuration and extension are not test modules: they need Sphinx,
which only the ``docs`` extra installs.
"""

collect_ignore = ["conf.py", "_ext"]
collect_ignore_glob = ["_build/*"]
