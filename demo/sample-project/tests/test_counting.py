"""Tests of wordstats.counting."""

import unittest

from wordstats.counting import count_lines, count_words, top_words


class CountWordsTest(unittest.TestCase):
    def test_words_separated_by_single_spaces(self):
        self.assertEqual(count_words("the quick brown fox"), 4)


class CountLinesTest(unittest.TestCase):
    def test_a_last_line_without_a_line_break_counts(self):
        self.assertEqual(count_lines("one\ntwo"), 2)

    def test_empty_text_has_no_lines(self):
        self.assertEqual(count_lines(""), 0)


class TopWordsTest(unittest.TestCase):
    def test_most_common_first_whatever_the_case(self):
        self.assertEqual(top_words("b a B c b a", 2), [("b", 3), ("a", 2)])


if __name__ == "__main__":
    unittest.main()
