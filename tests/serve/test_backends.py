"""What the service calls its model, and the install line it gives without the serve extra."""

from __future__ import annotations

from parasent.support.extras import install_line


def test_a_model_directory_inside_a_run_or_an_index_is_named_after_it(tmp_path):
    from parasent.serve.backends import model_name  # no serve extra needed for the name

    (tmp_path / "my-index" / "model").mkdir(parents=True)
    (tmp_path / "plain").mkdir()
    assert model_name(str(tmp_path / "my-index" / "model")) == "my-index"
    assert model_name(str(tmp_path / "plain")) == "plain"


def test_the_install_line_works_from_a_checkout():
    assert install_line("serve").startswith("pip install '.[serve]'")
