"""hark-server: the typed REST client of a Hark workspace (httpx, sync and async) and webhook
verification, for Python back ends. Types come from spec/openapi.json (models.py)."""

from . import models
from ._retry import RetryInfo
from .async_client import AsyncHarkServer
from .client import HarkServer
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    HarkAPIError,
    HarkConnectionError,
    HarkError,
    NotFoundError,
    RateLimitError,
    ServerError,
    WebhookVerificationError,
)
from .webhooks import WebhookVerifier, verify_webhook

__all__ = [
    "AsyncHarkServer",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "HarkAPIError",
    "HarkConnectionError",
    "HarkError",
    "HarkServer",
    "NotFoundError",
    "RateLimitError",
    "RetryInfo",
    "ServerError",
    "WebhookVerificationError",
    "WebhookVerifier",
    "models",
    "verify_webhook",
]
