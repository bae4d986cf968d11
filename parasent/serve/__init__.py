"""``parasent serve``: an HTTP embedding service (Starlette on uvicorn, ``pip install parasent[serve]``).

OpenAI-compatible ``POST /v1/embeddings``, ``POST /v1/similarity``, ``POST /v1/search`` over a
saved index, ``GET /health`` and Prometheus ``GET /metrics``. Concurrent requests are encoded
together (:mod:`parasent.serve.batching`); every bad request gets a JSON 4xx
(:mod:`parasent.serve.requests`).
"""
