"""The play page: ``GET /play``, a person's seat at a game in the browser.

The page is static files (``static/``: HTML, CSS and JavaScript modules, no build step, nothing
fetched from elsewhere) that call only the public HTTP API, exactly as any other frontend would.
``routes`` serves them."""
