"""``python -m service.openapi``: print the OpenAPI document the app serves (``make openapi``
writes it to ``openapi/openapi.json``)."""

from __future__ import annotations

import sys

from service.openapi.export import document, render

if __name__ == "__main__":
    sys.stdout.write(render(document()))
