import pytest

import dmljax as dml

FL = dml.FeatureLevel


def test_values_match_directml():
    expected = {
        "FL_1_0": 0x1000, "FL_2_0": 0x2000, "FL_2_1": 0x2100, "FL_3_0": 0x3000, "FL_3_1": 0x3100,
        "FL_4_0": 0x4000, "FL_4_1": 0x4100, "FL_5_0": 0x5000, "FL_5_1": 0x5100, "FL_5_2": 0x5200,
        "FL_6_0": 0x6000, "FL_6_1": 0x6100, "FL_6_2": 0x6200, "FL_6_3": 0x6300, "FL_6_4": 0x6400,
    }  # fmt: skip
    assert {level.name: level.value for level in FL} == expected


def test_latest_is_the_newest_level_and_levels_are_ordered():
    assert FL.LATEST is FL.FL_6_4
    assert list(FL) == sorted(FL)
    assert FL.FL_2_1 < FL.FL_3_0


def test_coerce_accepts_members_and_values():
    assert FL.coerce(FL.FL_3_1, op="op") is FL.FL_3_1
    assert FL.coerce(0x4100, op="op") is FL.FL_4_1


def test_coerce_refuses_unknown_values_and_wrong_types():
    with pytest.raises(dml.errors.InvalidArgumentError, match="feature_level") as e:
        FL.coerce(0x4200, op="compile_operator")
    assert e.value.given == "0x4200"
    with pytest.raises(dml.errors.ArgumentTypeError, match="feature_level"):
        FL.coerce("FL_4_1", op="compile_operator")
    with pytest.raises(dml.errors.ArgumentTypeError):
        FL.coerce(True, op="compile_operator")
