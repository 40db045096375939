"""What checks and measures dmljax, apart from what runs it: loaded on use only.

The NumPy reference (:mod:`.reference`), the selftest's random draws
(:mod:`.sweeps`), DirectML's worked examples (:mod:`.doc_examples`), the
selftest (:mod:`.selftest`) and each operator's companion (:mod:`.operators`)
live here. ``import dmljax`` loads none of it; the runtime never imports it.
"""
