import numpy as np

from parasent import load
from parasent.core.model import SentenceModel
from parasent.core.model_card import read_front_matter, render_card
from parasent.text.word_vectors import WordVectors


def model(metadata):
    table = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    return SentenceModel.from_vectors(WordVectors(["a", "b", "c"], table), metadata=metadata)


def test_every_saved_model_carries_a_card_with_front_matter(tmp_path):
    path = model({"teacher": "sentence-transformers/all-MiniLM-L6-v2"}).save(tmp_path / "m")
    text = (path / "README.md").read_text()
    front = read_front_matter(text)
    assert front["library_name"] == "parasent" and front["pipeline_tag"] == "sentence-similarity"
    assert front["base_model"] == '"sentence-transformers/all-MiniLM-L6-v2"'
    assert "- paraphrastic" in text and "Transfer" not in text  # no table when none is known
    assert load(path).metadata["teacher"].endswith("MiniLM-L6-v2")


def test_the_transfer_table_when_the_metadata_records_it():
    text = render_card(model({"transfer": {"STS12": 0.5812, "SICK": 0.7}, "license": "apache-2.0"}))
    assert "| STS12 | 58.1 |" in text and "| SICK | 70.0 |" in text
    assert read_front_matter(text)["license"] == '"apache-2.0"'
    assert "model-index:" in text and "value: 0.5812" in text
    assert "base_model" not in read_front_matter(text)


def test_a_model_record_names_a_shipped_model_and_a_directory_without_its_absolute_path(
    tmp_path, monkeypatch
):
    from parasent.core.model import SHIPPED_DIR, load, model_record
    from parasent.core.model_card import KEPT_OUT_KEY, domain_tests_kept_out, model_digest

    shipped = model_record("default")
    kept = domain_tests_kept_out(load("default").metadata)  # carried to what continues it
    assert shipped == {"name": "default", "digest": model_digest(SHIPPED_DIR / "default"), KEPT_OUT_KEY: kept}
    assert shipped["digest"].startswith("sha256:") and len(shipped["digest"]) == 7 + 64
    load("default").save(tmp_path / "runs" / "mine" / "model")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    record = model_record(tmp_path / "runs" / "mine")  # a run directory: its best model
    assert record["name"] == "mine" and record["digest"] == model_digest(tmp_path / "runs" / "mine" / "model")
    monkeypatch.chdir(tmp_path)
    assert model_record(tmp_path / "runs" / "mine")["name"] == "runs/mine"
