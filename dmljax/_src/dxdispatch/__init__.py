"""DxDispatch's JSON models run by dmljax: :func:`load_dxdispatch` and the
:class:`DxDispatchModel` it returns. ``json_model`` reads the JSON, ``resources`` the
buffers, ``dispatchables`` the operators and graphs, ``model`` runs the commands."""

from dmljax._src.dxdispatch.model import DxDispatchModel, load_dxdispatch

__all__ = ["DxDispatchModel", "load_dxdispatch"]
