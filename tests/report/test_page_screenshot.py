"""The page's picture in the docs (`copy_tasks.report.page_screenshot`): its numbers read off the
page as the page holds them, and the picture made in Chromium with them beside it."""

from __future__ import annotations

import json
import shutil

import pytest
from leaderboard_fixtures import write_results

from copy_tasks.report.build import build_leaderboard
from copy_tasks.report.page_screenshot import CHROMIUM_NAMES, page_numbers, screenshot


def built(tmp_path):
    write_results(tmp_path / "in", "alpha", {"random_copy_10": {"exact_match": 1.0},
                                             "random_copy_20": {"exact_match": 0.4}})
    build_leaderboard([tmp_path / "in"], tmp_path / "out")
    return tmp_path / "out"


def test_the_numbers_are_the_main_tables_cells_as_shown(tmp_path):
    """alpha's random_copy, generated, our rule and the authors': 1.0 at 10, 0.4 at 20 symbols
    (under the 0.5 threshold): effective length 10, AUC (1.0 + 0.4) / 2 = 0.70 over 10-20."""
    rows = page_numbers((built(tmp_path) / "index.html").read_text())
    assert list(rows) == ["alpha"]
    assert rows["alpha"][:5] == ["alpha", "transformer", "-", "10", "0.70 10-20"]


@pytest.mark.slow
@pytest.mark.skipif(not any(map(shutil.which, CHROMIUM_NAMES)), reason="headless Chromium is not installed")
def test_the_picture_is_a_png_with_the_pages_numbers_beside_it(tmp_path):
    out = built(tmp_path)
    numbers = screenshot(out, tmp_path / "page.png")
    assert (tmp_path / "page.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads(numbers.read_text()) == page_numbers((out / "index.html").read_text())


def test_a_link_in_place_of_the_picture_or_its_numbers_is_refused(tmp_path):
    (tmp_path / "theirs.json").write_text("not ours")
    (tmp_path / "page.json").symlink_to(tmp_path / "theirs.json")
    with pytest.raises(SystemExit, match="is a symbolic link"):
        screenshot(tmp_path, tmp_path / "page.png")
    assert (tmp_path / "theirs.json").read_text() == "not ours"
