"""onnxruntime's DirectML serialized graphs: the FlatBuffers reader and the
``DmlGraphDesc`` schema read into a :class:`dmljax.GraphDesc`."""
