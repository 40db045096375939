"""The benchmark suite behind ``python -m dmljax bench``, and its HLO tools."""
