"""``python -m service``: serve the app with uvicorn on $HOST:$PORT."""

from __future__ import annotations

import os

import uvicorn
from litestar import Litestar, get


@get("/healthz", operation_id="healthz", summary="The process is up")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def main() -> None:
    app = Litestar(route_handlers=[healthz])
    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8000")))


if __name__ == "__main__":
    main()
