"""The service describes itself: /openapi.json is valid OpenAPI 3.1 and matches what the service
does (its examples are accepted, real responses fit its schemas); /docs works offline;
/v1/models; the startup line."""

import os
import re
import subprocess
import sys

import pytest

from parasent.serve import schemas
from tests.serve.server import model_dir_fixture, post, server_fixture  # noqa: F401 - fixtures

ROUTES = {
    "/v1/embeddings": "post",
    "/v1/similarity": "post",
    "/v1/search": "post",
    "/v1/models": "get",
    "/v1/models/{model}": "get",
    "/health": "get",
    "/metrics": "get",
}


def get(url, path):
    import httpx

    return httpx.get(f"{url}{path}", timeout=30)


def test_the_document_is_valid_openapi_3_1_with_every_route_and_the_error_shape(server):
    validator = pytest.importorskip(
        "openapi_spec_validator", reason="the test extra has openapi-spec-validator"
    )
    document = get(server, "/openapi.json").json()
    validator.validate(document, cls=validator.OpenAPIV31SpecValidator)
    assert document["openapi"] == "3.1.0"
    assert {path: next(iter(ops)) for path, ops in document["paths"].items()} == ROUTES
    components = document["components"]["schemas"]
    assert {"EmbeddingsRequest", "EmbeddingsResponse", "ErrorResponse", "ModelList", "Health"} <= set(
        components
    )
    error_ref = {"$ref": "#/components/schemas/ErrorResponse"}
    embeddings = document["paths"]["/v1/embeddings"]["post"]
    for status in ("400", "408", "413", "500", "503"):
        assert embeddings["responses"][status]["content"]["application/json"]["schema"] == error_ref
    assert (
        document["paths"]["/v1/search"]["post"]["responses"]["404"]["content"]["application/json"]["schema"]
        == error_ref
    )
    assert set(components["EmbeddingsRequest"]["properties"]) == set(schemas.EmbeddingsRequest.model_fields)
    assert components["EmbeddingsRequest"]["additionalProperties"] is False
    assert document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]["text/plain"]


def test_every_request_example_of_the_document_is_accepted(server):
    document = get(server, "/openapi.json").json()
    examples = 0
    for path, operations in document["paths"].items():
        for operation in operations.values():
            if "requestBody" in operation:
                example = operation["requestBody"]["content"]["application/json"]["example"]
                reply = post(server, path, example)
                assert reply.status_code == 200, (path, reply.text)
                examples += 1
    assert examples == 3


def test_real_responses_fit_the_declared_models(server, model_dir):
    checks = [
        (post(server, "/v1/embeddings", {"input": ["a man", "the cat"]}), schemas.EmbeddingsResponse),
        (
            post(server, "/v1/embeddings", {"input": "a", "encoding_format": "base64"}),
            schemas.EmbeddingsResponse,
        ),
        (post(server, "/v1/similarity", {"pairs": [["a man", "the cat"]]}), schemas.SimilarityScores),
        (
            post(server, "/v1/similarity", {"sentences1": "a", "sentences2": ["b", "c"]}),
            schemas.SimilarityMatrix,
        ),
        (post(server, "/v1/search", {"query": ["a man", "a cat"], "top_k": 2}), schemas.SearchResponse),
        (get(server, "/v1/models"), schemas.ModelList),
        (get(server, f"/v1/models/{model_dir.name}"), schemas.ModelInfo),
        (get(server, "/v1/models/nothing"), schemas.ErrorResponse),
        (get(server, "/health"), schemas.Health),
        (post(server, "/v1/embeddings", {"input": 1}), schemas.ErrorResponse),
        (post(server, "/v1/nowhere", {}), schemas.ErrorResponse),
    ]
    for reply, model in checks:
        model.model_validate(reply.json())  # raises on a missing or mistyped field
        assert set(reply.json()) == set(model.model_fields)  # and nothing undeclared


def test_models_is_openai_shaped(server, model_dir):
    body = get(server, "/v1/models").json()
    assert body["object"] == "list" and len(body["data"]) == 1
    card = body["data"][0]
    # the model of a run or an index (a directory named model/) is named after its folder
    assert card["id"] == model_dir.name and card["object"] == "model" and card["owned_by"] == "parasent"
    assert isinstance(card["created"], int) and card["created"] > 1_600_000_000
    assert get(server, f"/v1/models/{model_dir.name}").json() == card
    missing = get(server, "/v1/models/gpt-4")
    assert missing.status_code == 404 and "does not exist" in missing.json()["error"]["message"]


def test_an_embeddings_request_names_its_model_as_an_alias(server, model_dir):
    """The documented rule (docs/serving.md): any `model` is answered by the service's one
    model, which the response names; only the lookup of another id is a 404."""
    from tests.serve.server import post

    reply = post(server, "/v1/embeddings", {"input": "a man", "model": "text-embedding-ada-002"})
    assert reply.status_code == 200 and reply.json()["model"] == model_dir.name


def test_the_openai_client_retrieves_the_model(server, model_dir):
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=f"{server}/v1", api_key="unused")
    assert client.models.retrieve(model_dir.name).id == model_dir.name
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gpt-4")


def test_the_docs_page_loads_its_assets_from_the_service(server):
    pytest.importorskip("swagger_ui", reason="the serve extra has swagger-ui-py")
    page = get(server, "/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(not s.startswith(("http:", "https:", "//")) for s in sources)  # no CDN
    for source in sources:
        asset = get(server, f"/{source}")
        assert asset.status_code == 200 and len(asset.content) > 10_000, source
    assert "SwaggerUIBundle" in get(server, "/docs/swagger-ui-bundle.js").text
    assert get(server, "/docs/index.html").status_code == 404  # only the two assets


def test_the_startup_line_says_what_is_served_and_where(model_dir, tmp_path):
    from tests.serve.server import start_server, stop_server

    process, url = start_server(["--model", str(model_dir / "model")], tmp_path)
    stop_server(process)
    lines = process.log_path.read_text().splitlines()
    assert f"parasent serve: model {model_dir.name} (8 d) on {url}" in lines


def test_a_busy_port_is_one_line(model_dir, tmp_path):
    from tests.serve.server import REPO, start_server, stop_server

    process, url = start_server(["--model", str(model_dir / "model")], tmp_path)
    try:
        port = url.rsplit(":", 1)[1]
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "parasent.cli",
                "serve",
                "--model",
                str(model_dir / "model"),
                "--port",
                port,
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            timeout=120,
        )
    finally:
        stop_server(process)
    assert second.returncode == 2 and second.stderr.strip().count("\n") == 0, second.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in second.stderr
