from parasent.support.tables import format_rows, markdown_table


def test_markdown_rows_right_align_numbers_and_escape_pipes():
    text = format_rows(["name", "score"], [["a|b", 1.5], ["c", None]], title="T", footer=["f"], markdown=True)
    assert text == "T\n\n| name | score |\n|---|---:|\n| a\\|b | 1.50 |\n| c | - |\n\nf"


def test_a_markdown_table_of_text_cells_right_aligns_the_columns_asked():
    table = markdown_table(["model", "r"], [["a|b", "71.20"]], [False, True])
    assert table == "| model | r |\n|---|---:|\n| a\\|b | 71.20 |"
