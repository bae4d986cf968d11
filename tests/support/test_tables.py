from parasent.support.tables import format_rows


def test_markdown_rows_right_align_numbers_and_escape_pipes():
    text = format_rows(["name", "score"], [["a|b", 1.5], ["c", None]], title="T", footer=["f"], markdown=True)
    assert text == "T\n\n| name | score |\n|---|---:|\n| a\\|b | 1.50 |\n| c | - |\n\nf"
