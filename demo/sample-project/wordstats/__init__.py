"""Line and word statistics of plain text."""

from wordstats.counting import count_lines, count_words, top_words

__all__ = ["count_lines", "count_words", "top_words"]
