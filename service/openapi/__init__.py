"""``python -m service.openapi``: the OpenAPI document exactly as the app serves it (the
finishing touches are the composition root's, ``service.app.document``)."""
