"""What the package knows of the providers' APIs, below every application: API keys and
their redaction (:mod:`snapshot.providers.keys`), the live SDK call
(:mod:`snapshot.providers.live`) and each provider's "too large" rejection
(:mod:`snapshot.providers.overflow`).

Every layer above may use it; it imports nothing of the package but the foundation
(:mod:`snapshot.errors`)::

    >>> from snapshot.providers.keys import redact
    >>> redact("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 leaked")
    'key [REDACTED] leaked'
"""
