"""``parasent serve``: an HTTP embedding service (Starlette on uvicorn, ``pip install parasent[serve]``).

OpenAI-compatible ``POST /v1/embeddings``, ``POST /v1/similarity``, ``POST /v1/search`` over a
saved index, ``GET /v1/models``, ``GET /health``, Prometheus ``GET /metrics``, and the service's
own description: ``GET /openapi.json`` and the ``GET /docs`` page (:mod:`parasent.serve.openapi`).
Requests and responses are declared once (:mod:`parasent.serve.schemas`); concurrent requests are
encoded together (:mod:`parasent.serve.batching`); every bad request gets a JSON 4xx
(:mod:`parasent.serve.requests`).
"""
