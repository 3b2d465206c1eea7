"""``python -m engine analyse``: readable and JSON output, and errors on stderr with exit code 2."""

from __future__ import annotations

import json

import pytest

from engine.__main__ import main


def test_readable_output_shows_melds_deadwood_and_discards(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["analyse", "--wild", "8", "4H", "8S", "6H", "KD"]) == 0
    out = capsys.readouterr().out
    assert "run 4H 8S=5H 6H" in out
    assert "deadwood: KD (10 points)" in out
    assert "can go out: yes" in out


def test_json_output_has_the_api_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--json", "--round", "6", "4H", "8S", "6H", "KD"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["wild"] == "8"
    assert body["deadwood"] == ["KD"]
    assert body["suggested_discard"] == "KD"
    assert body["can_go_out"] is True
    assert body["melds"][0] == {
        "kind": "run",
        "cards": ["4H", "8S", "6H"],
        "stands_for": [None, "5H", None],
    }


def test_rules_may_be_a_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["analyse", "--rules", '{"preset": "classic", "aces": "high_or_low"}', "QH", "KH", "AH"]
        )
        == 0
    )
    assert "deadwood: - (0 points)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyse", "ZZ"], "'ZZ'"),
        (["analyse", "--round", "12", "4H"], "round 12"),
        (["analyse", "--rules", "poker", "4H"], "poker"),
        (["analyse", "--rules", "{bad json", "4H"], "error:"),
    ],
)
def test_errors_go_to_stderr_with_exit_code_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
