"""``parasent serve``: an HTTP embedding service over a model (and optionally an index)."""

from __future__ import annotations

import argparse
import os

from parasent.commands.common import MODEL_ENV


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "serve",
        help="serve a model over HTTP (OpenAI-style /v1/embeddings; needs parasent[serve])",
        description="POST /v1/embeddings (OpenAI-compatible), /v1/similarity, /v1/search (with --index); "
        "GET /health, /metrics. Binds 127.0.0.1 unless --host says otherwise.",
    )
    parser.add_argument(
        "--model",
        help=f"model directory (default: ${MODEL_ENV}, the index's model, else the shipped default)",
    )
    parser.add_argument("--index", help="index directory (built by parasent index) for /v1/search")
    parser.add_argument("--backend", default="parasent", choices=["parasent", "sentence-transformers"])
    parser.add_argument("--name", help="model name reported in responses")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--max-inputs", type=int, default=2048, help="texts per request (413 above)")
    parser.add_argument("--max-chars", type=int, default=20000, help="characters per text (413 above)")
    parser.add_argument("--max-body-bytes", type=int, default=8 << 20, help="request body size (413 above)")
    parser.add_argument("--max-batch", type=int, default=512, help="texts encoded together across requests")
    parser.add_argument("--log-level", default="warning")


def resolve_model(args: argparse.Namespace) -> str | None:
    """--model, $PARASENT_MODEL, the index's own model, or None: the shipped default model
    (``parasent.load()`` without an argument, where this parasent ships one)."""
    if args.model:
        return args.model
    if os.environ.get(MODEL_ENV):
        return os.environ[MODEL_ENV]
    if args.index:
        from parasent.index import MODEL_DIR

        return os.path.join(args.index, MODEL_DIR)
    import inspect

    import parasent

    parameters = list(inspect.signature(parasent.load).parameters.values())
    if args.backend != "parasent" or (parameters and parameters[0].default is inspect.Parameter.empty):
        raise ValueError("no model given: pass --model DIR (or set $PARASENT_MODEL)")
    return None


def run(args: argparse.Namespace) -> int:
    for name in ("workers", "max_inputs", "max_chars", "max_body_bytes", "max_batch"):
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    try:
        import uvicorn
    except ImportError:
        raise SystemExit(
            "parasent: error: serving needs uvicorn and starlette: pip install 'parasent[serve]'"
        ) from None
    from parasent.serve.config import CONFIG_ENV, ServeConfig

    config = ServeConfig(
        model=resolve_model(args),
        backend=args.backend,
        index=args.index,
        name=args.name,
        max_inputs=args.max_inputs,
        max_chars=args.max_chars,
        max_body_bytes=args.max_body_bytes,
        max_batch=args.max_batch,
    )
    if args.workers == 1:  # load here, so a bad model is reported before the port is taken
        from parasent.serve.app import create_app

        app = create_app(config)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
        return 0
    from parasent.serve.app import Service

    Service(config)  # each worker loads its own copy: report a bad model or index here, once
    os.environ[CONFIG_ENV] = config.to_env()
    uvicorn.run(
        "parasent.serve.app:app_from_env",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
    )
    return 0
