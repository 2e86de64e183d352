"""Secret redaction for every byte edgar makes durable (design §3 invariant 6).

Public surface: `redact(text)`, `Redactor` (binds exact values from the environment and the
config), `looks_secret_name`, `secret_values`, `MARK`, `FAMILIES`. Everything else in this
package is private to it. The guarantees are stated in `edgar.redact.core`.
"""

from edgar.redact.core import (
    FAMILIES,
    MARK,
    Redactor,
    looks_secret_name,
    redact,
    secret_values,
)

__all__ = ["FAMILIES", "MARK", "Redactor", "looks_secret_name", "redact", "secret_values"]
