"""Sends errors to the DSN in SENTRY_DSN as an application would, with the official Python SDK."""
import logging
import sys

import sentry_sdk
from sentry_sdk.integrations.logging import LoggingIntegration

sentry_sdk.init(
    dsn=sys.argv[1],
    release="shop@3.0.1",
    environment="test",
    default_integrations=False,
    integrations=[LoggingIntegration(level=None, event_level=logging.WARNING)],
)

log = logging.getLogger("shop.orders")


def divide(total, parts):
    return total / parts


def checkout(cart_id):
    try:
        divide(cart_id, 0)
    except ZeroDivisionError:
        sentry_sdk.capture_exception()


checkout(17)
checkout(99)
log.error("Order %s failed for %s", "A-1", "bob@example.com")
log.error("Order %s failed for %s", "Z-9", "eve@example.org")
log.warning("Order %s failed for %s", "Q-5", "amy@example.net")
sentry_sdk.capture_message("Inventory sync finished with 3 warnings", level="info")
sentry_sdk.flush(timeout=10)
