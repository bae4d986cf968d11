"""``parasent serve``: an HTTP embedding service over a model (and optionally an index)."""

from __future__ import annotations

import argparse
import os
import socket
import sys

from parasent.commands.common import MODEL_ENV


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "serve",
        help="serve a model over HTTP (OpenAI-style /v1/embeddings; needs parasent[serve])",
        description="POST /v1/embeddings (OpenAI-compatible), /v1/similarity, /v1/search (with --index); "
        "GET /v1/models, /health, /metrics, /openapi.json and the /docs page. Binds 127.0.0.1 unless --host says otherwise.",
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
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=20.0,
        help="seconds to receive a request's headers (the connection is closed after) and its body (408 after)",
    )
    parser.add_argument(
        "--api-key",
        action="append",
        metavar="KEY",
        help="let in only requests with 'Authorization: Bearer KEY' (repeatable; 16 characters or more; "
        "other users of this machine see it in the process list: prefer --api-key-file or $PARASENT_API_KEY, "
        "comma-separated); /health, /openapi.json and /docs stay open",
    )
    parser.add_argument(
        "--api-key-file",
        metavar="FILE",
        help="keys let in, one a line ('#' comments); read again when the file changes or on SIGHUP",
    )
    parser.add_argument("--ssl-certfile", metavar="FILE", help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--ssl-keyfile", metavar="FILE", help="the certificate's private key (PEM)")
    parser.add_argument("--log-level", default="warning")


def resolve_model(args: argparse.Namespace) -> str | None:
    """--model, $PARASENT_MODEL, the index's own model, or None: the shipped default model
    (``parasent.load()`` without an argument, where this parasent ships one)."""
    if args.model:
        return args.model
    if os.environ.get(MODEL_ENV):
        return os.environ[MODEL_ENV]
    if args.index:
        from parasent.corpus.index import MODEL_DIR

        return os.path.join(args.index, MODEL_DIR)
    import inspect

    import parasent

    parameters = list(inspect.signature(parasent.load).parameters.values())
    if args.backend != "parasent" or (parameters and parameters[0].default is inspect.Parameter.empty):
        raise ValueError("no model given: pass --model DIR (or set $PARASENT_MODEL)")
    return None


GRACE_S = 2  # on SIGTERM, requests still running after this are cancelled (a stuck encode too)


def run(args: argparse.Namespace) -> int:
    for name in ("workers", "max_inputs", "max_chars", "max_body_bytes", "max_batch", "body_timeout"):
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0-65535 (0: any free port), got {args.port}")
    try:
        import prometheus_client  # noqa: F401
        import uvicorn
    except ImportError:
        from parasent.support.extras import install_line

        raise SystemExit(
            f"parasent: error: serving needs uvicorn, starlette and prometheus_client: {install_line('serve')}"
        ) from None
    from parasent.serve.keys import command_line_digests
    from parasent.serve.settings import CONFIG_ENV, ServeConfig

    tls = tls_files(args)
    config = ServeConfig(
        model=resolve_model(args),
        backend=args.backend,
        index=args.index,
        name=args.name,
        max_inputs=args.max_inputs,
        max_chars=args.max_chars,
        max_body_bytes=args.max_body_bytes,
        max_batch=args.max_batch,
        body_timeout=args.body_timeout,
        api_key_digests=command_line_digests(args.api_key),
        api_key_file=args.api_key_file,
    )
    from parasent.serve.gate import log_config
    from parasent.serve.protocol import HeaderDeadlineProtocol

    HeaderDeadlineProtocol.seconds = config.body_timeout
    options = {
        "log_level": args.log_level,
        "timeout_graceful_shutdown": GRACE_S,
        "http": HeaderDeadlineProtocol,
        "log_config": log_config(args.log_level),
        **tls,
    }
    scheme = "https" if tls else "http"
    if args.workers == 1:  # load here, so a bad model is reported before the port is taken
        from parasent.serve.app import create_app

        app = create_app(config)
        sock = listen(args.host, args.port)
        warn_if_open(args.host, app.state.service.keys.required, bool(tls))
        announce(app.state.service.backend, args.host, sock.getsockname()[1], scheme=scheme)
        uvicorn.Server(uvicorn.Config(app, **options)).run(sockets=[sock])
        return 0
    from parasent.serve.app import Service
    from parasent.serve.metrics import shared_directory

    with shared_directory():  # the workers' metrics, added up by a scrape of any of them
        service = Service(config)  # each worker loads its own copy: report a bad model or index here, once
        os.environ[CONFIG_ENV] = config.to_env()
        warn_if_open(args.host, service.keys.required, bool(tls))
        announce(service.backend, args.host, args.port, f", {args.workers} workers", scheme=scheme)
        uvicorn.run(
            "parasent.serve.app:app_from_env",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            **options,
        )
    return 0


def listen(host: str, port: int) -> socket.socket:
    """The listening socket (taken before uvicorn starts, so a busy port is one line)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # no Nagle: a small response must not wait ~40 ms for a delayed ACK (asyncio sets TCP_NODELAY
    # on connections only when the socket's proto says TCP; accepted connections inherit it here)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    return sock


def tls_files(args: argparse.Namespace) -> dict[str, str]:
    """uvicorn's TLS options, once the certificate and key are known to load together (a bad
    pair is one line here, not a traceback once the model is loaded)."""
    if not args.ssl_certfile and not args.ssl_keyfile:
        return {}
    if not (args.ssl_certfile and args.ssl_keyfile):
        raise ValueError("--ssl-certfile and --ssl-keyfile go together")
    import ssl

    try:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.ssl_certfile, args.ssl_keyfile, password=lambda: b"")  # never a prompt
    except (OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc.__class__.__name__
        raise ValueError(
            f"{args.ssl_certfile}, {args.ssl_keyfile}: cannot load the certificate and key: {reason}"
        ) from None
    return {"ssl_certfile": args.ssl_certfile, "ssl_keyfile": args.ssl_keyfile}


def warn_if_open(host: str, keys_required: bool, tls: bool = False) -> None:
    """One line when the service answers beyond this machine and lets anyone in, or takes keys
    over plain HTTP (a bearer key then crosses the network in clear)."""
    import ipaddress

    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback or (keys_required and tls):
        return
    warning = (
        f"listening on {host} with API keys over plain HTTP: keys cross the network in clear (--ssl-certfile)"
        if keys_required
        else f"listening on {host} without an API key: anyone who reaches this port can use the service "
        "(--api-key-file or $PARASENT_API_KEY)"
    )
    print(f"parasent serve: warning: {warning}", file=sys.stderr, flush=True)


def announce(backend, host: str, port: int, extra: str = "", *, scheme: str = "http") -> None:
    """The one line a user sees without --log-level info: what is served, and where."""
    where = f"[{host}]" if ":" in host else host
    print(
        f"parasent serve: model {backend.name} ({backend.dim} d) on {scheme}://{where}:{port}{extra}",
        file=sys.stderr,
        flush=True,
    )
