"""The one environment every program edgar starts may see: shell, verify, hooks, stdio MCP
servers and edgar's own git all take theirs from here.

Guarantees:
- ``command_env(environ, passed)`` is built, never inherited: the variables a build needs
  (``ALLOWED``, plus every ``LC_*``) and the names the person passes with
  ``[sandbox] env = [...]`` (``passed``) — nothing else of edgar's environment.
- Of the allowed names, none reaches a command whose name ``looks_secret_name`` flags
  (``GH_PAT``, ``MYSQL_PWD``, ``PGPASSWORD``, ``NPM_AUTH``, ``CREDENTIALS`` …) or whose value
  carries a password in a URL (``https://user:pw@host``, a proxy), nor a bash exported
  function (``BASH_FUNC_…``, a value starting with ``()``).
- A name the person passes explicitly is passed as it is: that is the person's decision
  (the project's own ``[sandbox] env`` waits for ``edgar trust`` like every widening key).
- ``is_passable`` is pure; ``command_env`` reads only the mapping it is given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

# What builds, test runners and package managers read: where programs, libraries, caches
# and certificates are, the locale, the terminal. No variable here holds a credential by
# design; the checks below still drop one whose value turns out to carry a password.
ALLOWED = frozenset("""
    PATH HOME USER LOGNAME SHELL TERM COLORTERM NO_COLOR FORCE_COLOR CLICOLOR
    LANG LANGUAGE TZ TMPDIR TEMP TMP
    XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
    PYTHONPATH PYTHONHOME VIRTUAL_ENV CONDA_PREFIX CONDA_DEFAULT_ENV PYENV_ROOT PYENV_VERSION
    UV_CACHE_DIR PIP_CACHE_DIR POETRY_HOME PIPX_HOME
    GOPATH GOROOT GOCACHE GOMODCACHE GOFLAGS GOPROXY GOPRIVATE GONOSUMDB GOTOOLCHAIN
    CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN RUSTFLAGS CARGO_TARGET_DIR
    JAVA_HOME MAVEN_HOME M2_HOME GRADLE_HOME GRADLE_USER_HOME
    NODE_PATH NVM_DIR NPM_CONFIG_CACHE NPM_CONFIG_PREFIX YARN_CACHE_FOLDER PNPM_HOME BUN_INSTALL
    GEM_HOME GEM_PATH RBENV_ROOT BUNDLE_PATH
    CC CXX CPP LD AR AS NM RANLIB CFLAGS CXXFLAGS CPPFLAGS LDFLAGS LDLIBS MAKEFLAGS
    PKG_CONFIG_PATH LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH
    CMAKE_PREFIX_PATH CMAKE_GENERATOR CCACHE_DIR
    SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE NODE_EXTRA_CA_CERTS
    HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy
    CI SOURCE_DATE_EPOCH
""".split())

# scheme://user:password@host — the password is what must not travel
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")


def _secret_name(name: str) -> bool:
    from edgar.redact.names import looks_secret_name  # loaded at the first command only

    return looks_secret_name(name)


def is_passable(name: str, value: str) -> bool:
    """Whether an allowed variable may reach a command: not secret by name or by value."""
    if value.startswith("()") or name.startswith("BASH_FUNC_"):
        return False
    if _URL_PASSWORD.search(value):
        return False
    return not _secret_name(name)


def allowed_name(name: str) -> bool:
    return name in ALLOWED or name.startswith("LC_")


def passed(names: Iterable[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables the person passes by name (``[sandbox] env``), those that are set."""
    source = os.environ if environ is None else environ
    return {name: source[name] for name in names if name in source}


def command_env(environ: Mapping[str, str] | None = None,
                passed: Iterable[str] = ()) -> dict[str, str]:
    """The environment of a command edgar starts: the allow-list, checked, plus ``passed``."""
    source = os.environ if environ is None else environ
    env = {k: v for k, v in source.items() if allowed_name(k) and is_passable(k, v)}
    env.update({name: source[name] for name in passed if name in source})
    return env
