"""Nested unknown addresses such as /blocks/extra. Streamlit answers any unknown path with its index.html, whose
script paths are relative (./static/...): under /blocks/ they resolve to /blocks/static/..., which is index.html
again, so the browser shows a blank page. `install()` (once per server process, from app.py) wraps the static-file
handler of this process so that a nested path that names no file is redirected to /not-found?path=<it>, where
flashviz.ui.not_found says, in the session's language, that there is no such page and lists the lessons.

Streamlit offers no hook for this under `streamlit run`: the handler is found among the process's objects by its
class name. Where it is not found (bare mode, tests, another Streamlit), nothing changes and install() says so.
"""
from __future__ import annotations

import gc
import logging
from urllib.parse import quote

log = logging.getLogger("flashviz.ui")
HANDLER_CLASS = "_StreamlitStaticFiles"          # streamlit/web/server/starlette/starlette_static_routes.py
SERVED_PREFIXES = ("static/", "_stcore/", "component/", "media/", "app/")
MARK = "_flashviz_nested_redirect"


def nested_target(path: str, query: str = "", root: str = "") -> str | None:
    """Where a request for the static path `path` goes instead, or None to serve it as Streamlit does: a path of
    two or more segments whose last one has no file extension and that touches none of Streamlit's own routes."""
    rel = path.replace("\\", "/").strip("/")
    parts = rel.split("/")
    if (len(parts) < 2 or rel.startswith(SERVED_PREFIXES) or "." in parts[-1]
            or any(p.startswith("_st") or p in ("static", "media", "component") for p in parts)):
        return None                # the frontend probes <page>/_stcore/health for a base path: never redirect it
    return f"{root}/not-found?path={quote(rel, safe='/')}" + (f"&{query}" if query else "")


def _handlers() -> list:
    return [o for o in gc.get_objects() if type(o).__name__ == HANDLER_CLASS]


def install() -> bool:
    """Wrap every static-file handler of this process once; True if one was wrapped now."""
    done = False
    for h in _handlers():
        if getattr(h, MARK, False):
            continue
        original = h.get_response

        async def get_response(path, scope, _original=original):
            target = nested_target(path, scope.get("query_string", b"").decode("latin-1"), scope.get("root_path", ""))
            if target is not None and scope.get("method") in ("GET", "HEAD"):
                from starlette.responses import RedirectResponse
                return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-cache"})
            return await _original(path, scope)

        h.get_response = get_response
        setattr(h, MARK, True)
        done = True
    if not done:
        log.info("nested-path redirect not installed (no Streamlit static handler found in this process)")
    return done
