"""Settings are split by environment: base (shared), dev (embedded defaults), test, production."""
