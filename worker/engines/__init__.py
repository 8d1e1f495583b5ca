"""Model engines used by the Celery worker: IndicTrans2 translation and sentence embeddings.

Plain Python (no Django). Heavy libraries (ctranslate2, torch, sentence-transformers) load only
when the corresponding submodule is imported, so importing this package stays cheap.
"""

from worker.engines.errors import README_ANCHOR, ModelConfigurationError

__all__ = ["README_ANCHOR", "ModelConfigurationError"]
