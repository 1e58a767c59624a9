"""Property-based tests (hypothesis) of the choice extractor and the judge-output parsers: any
text at all is read without an exception, into a valid verdict or None, and a verdict in the
asked format is read back exactly whatever follows it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lm_eval_audio.tasks.airbench import data as airbench
from lm_eval_audio.tasks.airbench import judges as aj
from lm_eval_audio.tasks.audiobench import judges as abj

settings.register_profile("lm_eval_audio", max_examples=300, deadline=None)
settings.load_profile("lm_eval_audio")

ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=400)
# Text that holds nothing verdict-shaped on a line of its own.
PROSE = st.text(st.characters(codec="utf-8", exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
                max_size=200).filter(lambda t: "rating" not in t.lower())
LETTER = st.sampled_from("ABCD")
SCORE = st.integers(0, 10) | st.floats(0, 10).map(lambda x: round(x, 1))


@given(ANY_TEXT)
def test_the_official_choice_rule_never_fails_and_gives_a_letter_or_none(response):
    assert airbench.official_choice(response) in (None, "A", "B", "C", "D")


@given(LETTER, ANY_TEXT)
def test_a_response_starting_with_a_letter_is_that_letter(letter, rest):
    assert airbench.official_choice(letter + rest) == letter


@given(PROSE.filter(lambda t: t.strip()[:1] not in ("A", "B", "C", "D")), LETTER)
def test_the_answer_is_x_dot_is_read_from_its_second_to_last_character(prose, letter):
    assert airbench.official_choice(f"{prose} {letter}.") == letter


@given(ANY_TEXT, st.sampled_from([2, 4]))
def test_the_alignment_parser_never_fails_and_stays_within_the_options(reply, n):
    parsed = aj.parse_choice(reply, n)
    assert parsed is None or parsed in "ABCD"[:n]


@given(LETTER, ANY_TEXT)
def test_a_letter_alone_on_the_first_line_is_read_whatever_follows(letter, rest):
    assert aj.parse_choice(f"{letter}\n{rest}", 4) == letter


@given(ANY_TEXT)
def test_the_pair_parser_never_fails_and_stays_within_0_to_10(reply):
    parsed = aj.parse_pair_scores(reply)
    assert parsed is None or (len(parsed) == 2 and all(0 <= s <= 10 for s in parsed))


@given(SCORE, SCORE, ANY_TEXT)
def test_two_scores_on_the_first_line_are_read_exactly_whatever_follows(first, second, rest):
    assert aj.parse_pair_scores(f"{first} {second}\n{rest}") == (float(first), float(second))


@given(st.sampled_from(["rubric", "binary"]), ANY_TEXT)
def test_the_rating_parser_never_fails_and_stays_within_the_rubric(kind, reply):
    parsed = abj.parse_rating(reply, kind)
    assert parsed is None or parsed in abj.KINDS[kind][1]


@given(st.sampled_from(["rubric", "binary"]), st.data(), PROSE)
def test_a_rating_line_is_read_exactly_after_any_explanation(kind, data, explanation):
    rating = data.draw(st.sampled_from(sorted(abj.KINDS[kind][1])))
    assert abj.parse_rating(f"Explanation: {explanation}\nRating: {rating}", kind) == rating


@given(st.sampled_from(["rubric", "binary"]), ANY_TEXT)
def test_two_ratings_that_disagree_are_no_rating(kind, middle):
    assert abj.parse_rating(f"Rating: 0\n{middle}\nRating: 1", kind) is None
