"""leakage.design.pricing.mutual_information: which search a pricing that ran out names."""

import math

from leakage.design.bnb import SearchResult
from leakage.design.pricing.mutual_information import Pricing


def _pricing(**searches):
    return Pricing(max(b for b, _ in searches.values()), None,
                   {k: SearchResult(b, [], -math.inf, 10, ex) for k, (b, ex) in searches.items()})


def test_a_light_top_search_level_with_its_box_floor_names_the_exhausted_box_search():
    # the light-top search stops at the box search's bound (its floor, plus its margins): when the
    # box search ran out, the pricing is limited by it, not by nothing
    floor = 3.8858939929716776e-04
    p = _pricing(staircase=(-1.4, False), box_top=(floor, True), heavy_two_level=(3.87e-4, True),
                 light_top=(floor + 1e-10 * (1 + floor), False))
    assert p.limited_by == "box_top"


def test_a_search_that_closed_above_the_others_limits_nothing():
    p = _pricing(staircase=(-1.4, False), box_top=(3.0e-4, True), light_top=(3.5e-4, False))
    assert p.limited_by is None


def test_the_exhausted_search_with_the_largest_bound_is_named():
    p = _pricing(staircase=(1e-4, True), box_top=(2e-4, True), light_top=(-1.0, False))
    assert p.limited_by == "box_top"
    assert _pricing(box=(math.inf, False)).limited_by is None
